/**
 * The links between the entries of a stream: the parent each entry names, resolved when the
 * reducer settles (reducer.ts). A parent may come later in the stream than its child (pi
 * accepts that), so linking is a step of its own, linear in what was applied since the last
 * settle: a parent named through a persisted-leaf record is that record's target, a missing
 * parent is bridged to the previous entry (reported), a cycle is cut (reported).
 */

import type { LoadProblem } from "./normalize.js";
import type { SessionTree } from "./tree.js";
import type { TreeNode } from "./tree-node.js";

/** Where a linking problem goes, with what lenient policy did about it (strict policy throws there). */
export type LinkProblems = (problem: LoadProblem, action: string) => void;

/** The named parents and lines of a stream's entries, by order, and how far they are linked. */
export class EntryLinks {
	/** Per entry, by its order in the tree: the parent id it names and its line. */
	private readonly parentIds: Array<string | null> = [];
	private readonly entryLines: number[] = [];
	/** Entries before this order are linked. */
	private linked = 0;

	/**
	 * @param outside in a window (the last part of a stream), where the ids of entries whose
	 *   parent lies before the window go; they stay unlinked and are no problem
	 */
	constructor(private readonly outside?: Set<string>) {}

	/** Notes the next entry: the parent it names and its line (0 when unknown). */
	note(parentId: string | null, line: number): void {
		this.parentIds.push(parentId);
		this.entryLines.push(line);
	}

	/** The line of the entry at this order (0 if unknown, as for a store without lines). */
	lineOf(order: number): number {
		return this.entryLines[order] ?? 0;
	}

	/**
	 * Links `node` to `parent` now, when every entry before it is linked and `parent` is the one
	 * it names (a session's own append under its leaf); else leaves it to {@link settle}.
	 */
	linkAt(tree: SessionTree, node: TreeNode, parent: TreeNode | undefined): void {
		if (this.linked !== node.order) return;
		tree.link(node, parent);
		this.linked++;
	}

	/**
	 * Links every entry noted since the last settle to its parent, through the persisted-leaf
	 * records `aliases` (id → target); a missing parent is bridged, a cycle cut, each reported.
	 */
	settle(tree: SessionTree, aliases: ReadonlyMap<string, string | null>, report: LinkProblems): void {
		const nodes = tree.nodesInOrder();
		const from = this.linked;
		if (from === nodes.length) return;
		if (from === nodes.length - 1 && this.linkOne(tree, nodes, from, aliases)) return;
		const parents = this.resolveParents(tree, nodes, from, aliases, report);
		this.breakCycles(nodes, parents, from, report);
		for (let i = from; i < nodes.length; i++) {
			const node = nodes[i];
			if (node) tree.link(node, parents[i - from]);
		}
		this.linked = nodes.length;
	}

	/**
	 * Links the one entry applied since the last settle (an append) when its parent is
	 * already linked or it is a root: no cycle can go through it then, so there is nothing to
	 * check and nothing to allocate. False, having done nothing, in any other case.
	 */
	private linkOne(
		tree: SessionTree,
		nodes: readonly TreeNode[],
		at: number,
		aliases: ReadonlyMap<string, string | null>,
	): boolean {
		const node = nodes[at];
		const named = this.parentIds[at] ?? null;
		if (node === undefined) return false;
		let parent: TreeNode | undefined;
		if (named !== null) {
			const previous = nodes[at - 1];
			parent = previous?.id === named ? previous : tree.getNode(resolveAlias(named, aliases) ?? "");
			if (parent === undefined || parent.order >= at) return false;
		}
		tree.link(node, parent);
		this.linked = nodes.length;
		return true;
	}

	/**
	 * Resolved parent node of every entry from `from` on; a missing parent is bridged to the
	 * previous entry. Most entries follow their parent directly, which is checked before the index.
	 */
	private resolveParents(
		tree: SessionTree,
		nodes: readonly TreeNode[],
		from: number,
		aliases: ReadonlyMap<string, string | null>,
		report: LinkProblems,
	): Array<TreeNode | undefined> {
		const parents: Array<TreeNode | undefined> = new Array(nodes.length - from);
		const hasAliases = aliases.size > 0;
		for (let i = from; i < nodes.length; i++) {
			const named = this.parentIds[i] ?? null;
			if (named === null) continue;
			const previous = nodes[i - 1];
			if (previous !== undefined && previous.id === named) {
				parents[i - from] = previous;
				continue;
			}
			const parentId = hasAliases ? resolveAlias(named, aliases) : named;
			const parent = parentId === null ? undefined : tree.getNode(parentId);
			if (parentId === null || parent) {
				parents[i - from] = parent;
				continue;
			}
			const node = nodes[i];
			if (node === undefined) continue;
			if (this.outside) {
				this.outside.add(node.id);
				continue;
			}
			report(
				{
					code: "MISSING_PARENT",
					message: `entry ${node.id} names parent ${named}, which is not in the file`,
					line: this.lineOf(i),
					entryId: node.id,
				},
				previous ? `bridged to the previous entry ${previous.id}` : "kept as a root",
			);
			parents[i - from] = previous;
		}
		return parents;
	}

	/**
	 * Finds parent cycles among the entries from `from` on (only possible through a parent that
	 * comes later in the stream; linked entries never point into new ones) and cuts each at an
	 * entry whose parent is later, which then becomes a root. Linear.
	 */
	private breakCycles(
		nodes: readonly TreeNode[],
		parents: Array<TreeNode | undefined>,
		from: number,
		report: LinkProblems,
	): void {
		const parentOf = (i: number) => parents[i - from];
		let forward = false;
		for (let i = from; i < nodes.length && !forward; i++) forward = (parentOf(i)?.order ?? -1) >= i;
		if (!forward) return;
		const state = new Uint8Array(nodes.length - from); // 0 new, 1 on the current walk, 2 done
		for (let start = from; start < nodes.length; start++) {
			if (state[start - from] !== 0) continue;
			const walk: number[] = [];
			let at: number | undefined = start;
			// Entries linked before `from` are done: their parents are settled.
			while (at !== undefined && at >= from && state[at - from] === 0) {
				state[at - from] = 1;
				walk.push(at);
				at = parentOf(at)?.order;
			}
			if (at !== undefined && at >= from && state[at - from] === 1) {
				const cycle = walk.slice(walk.indexOf(at));
				// Every entry of a cycle has a parent.
				const cut = cycle.find((i) => (parentOf(i)?.order ?? -1) >= i) ?? at;
				const id = nodes[cut]?.id;
				report(
					{
						code: "PARENT_CYCLE",
						message: `following parent ids from entry ${id} leads back to it (a cycle of ${cycle.length})`,
						line: this.lineOf(cut),
						entryId: id,
					},
					"it is kept as a root",
				);
				parents[cut - from] = undefined;
			}
			for (const i of walk) state[i - from] = 2;
		}
	}
}

/**
 * The entry an id means once persisted-leaf records are seen through: a child whose parentId
 * names such a record belongs under that record's target. Bounded, so a loop of leaf records
 * cannot hang.
 */
export function resolveAlias(id: string, aliases: ReadonlyMap<string, string | null>): string | null {
	let current: string | null = id;
	for (let hops = 0; current !== null && aliases.has(current) && hops <= aliases.size; hops++) {
		current = aliases.get(current) ?? null;
	}
	return current;
}
