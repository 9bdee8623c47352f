/**
 * The in-memory entry tree: an index by id, a children index, the leaf pointer, labels and the
 * session name. Pure: no I/O. Every walk is iterative, so a 200,000-deep chain or a node with
 * 200,000 children cannot overflow the stack.
 */

import { SessionTreeError } from "./errors.js";
import type { LabelEntry, SessionEntry, SessionHeader, SessionInfoEntry, SessionTreeNode } from "./types.js";

/** An indexed entry. `parent` is the resolved parent (after lenient bridging, if any). */
export interface TreeNode {
	readonly entry: SessionEntry;
	parent: TreeNode | undefined;
	/** Children in file order; created on first child. */
	children: TreeNode[] | undefined;
	/** Position in file order among the tree's entries. */
	readonly order: number;
}

/** A label and when it was set. */
export interface LabelState {
	label: string;
	timestamp: string;
}

/** One row of {@link SessionTree.flatten}: display order, depth 0 for roots. */
export interface FlatTreeRow {
	entry: SessionEntry;
	depth: number;
	label?: string;
}

/**
 * The entry tree of one session.
 *
 * Construct it with {@link SessionTree.empty} and {@link SessionTree.insert}, or through the
 * loader in `load.ts`, which also links entries whose parents come later in the file.
 */
export class SessionTree {
	readonly header: SessionHeader;
	private readonly nodes = new Map<string, TreeNode>();
	private readonly ordered: TreeNode[] = [];
	private readonly rootNodes: TreeNode[] = [];
	private readonly labels = new Map<string, LabelState>();
	private name: string | undefined;
	private leaf: TreeNode | undefined;

	private constructor(header: SessionHeader) {
		this.header = header;
	}

	/** A tree with no entries. */
	static empty(header: SessionHeader): SessionTree {
		return new SessionTree(header);
	}

	/** Number of entries. */
	get size(): number {
		return this.ordered.length;
	}

	/** True when an entry has this id. */
	has(id: string): boolean {
		return this.nodes.has(id);
	}

	/** The entry with this id. */
	getEntry(id: string): SessionEntry | undefined {
		return this.nodes.get(id)?.entry;
	}

	/** The indexed node with this id (for walks by other core modules). */
	getNode(id: string): TreeNode | undefined {
		return this.nodes.get(id);
	}

	/** The resolved parent id: differs from `entry.parentId` only where a lenient load bridged a gap. */
	getParentId(id: string): string | null | undefined {
		const node = this.nodes.get(id);
		if (!node) return undefined;
		return node.parent ? node.parent.entry.id : null;
	}

	/** All entries in file order. */
	getEntries(): SessionEntry[] {
		return this.ordered.map((node) => node.entry);
	}

	/** The leaf id, or `null` when the leaf is before the first entry. */
	getLeafId(): string | null {
		return this.leaf ? this.leaf.entry.id : null;
	}

	/** The leaf entry, if the leaf is set. */
	getLeafEntry(): SessionEntry | undefined {
		return this.leaf?.entry;
	}

	/** Moves the leaf pointer. Throws ENTRY_NOT_FOUND for an unknown id. */
	setLeaf(id: string | null): void {
		if (id === null) {
			this.leaf = undefined;
			return;
		}
		this.leaf = this.requireNode(id);
	}

	/** Direct children of an entry (or the roots for `null`), in file order. O(children). */
	getChildren(id: string | null): SessionEntry[] {
		const list = id === null ? this.rootNodes : this.nodes.get(id)?.children;
		return list ? list.map((node) => node.entry) : [];
	}

	/** The label in effect for an entry. */
	getLabel(id: string): string | undefined {
		return this.labels.get(id)?.label;
	}

	/** Every label in effect, by target id, in the order they were set. */
	getLabels(): ReadonlyMap<string, LabelState> {
		return this.labels;
	}

	/** The session name from the latest `session_info` entry in the file. */
	getSessionName(): string | undefined {
		return this.name;
	}

	/**
	 * Adds an entry whose parent is already in the tree (or `null`), and makes it the leaf.
	 * Throws DUPLICATE_ID or MISSING_PARENT; the tree is unchanged then.
	 */
	insert(entry: SessionEntry): void {
		this.leaf = this.attach(entry, entry.parentId);
	}

	/**
	 * Adds an entry under `parentId` (which may differ from `entry.parentId`, e.g. when it names
	 * a persisted-leaf record) without moving the leaf.
	 * Throws DUPLICATE_ID or MISSING_PARENT; the tree is unchanged then.
	 */
	attach(entry: SessionEntry, parentId: string | null): TreeNode {
		if (this.nodes.has(entry.id)) {
			throw new SessionTreeError("DUPLICATE_ID", `an entry with id ${entry.id} already exists`);
		}
		const parent = parentId === null ? undefined : this.nodes.get(parentId);
		if (parentId !== null && !parent) {
			throw new SessionTreeError("MISSING_PARENT", `parent ${parentId} of entry ${entry.id} not found`);
		}
		const node = this.addNode(entry);
		this.link(node, parent);
		return node;
	}

	/**
	 * Adds an entry without linking it to a parent (the loader links in a second pass).
	 * @internal
	 */
	addNode(entry: SessionEntry): TreeNode {
		const node: TreeNode = { entry, parent: undefined, children: undefined, order: this.ordered.length };
		this.nodes.set(entry.id, node);
		this.ordered.push(node);
		this.applyState(entry);
		return node;
	}

	/**
	 * Links a node to its parent (or makes it a root). Call in file order so children stay in
	 * file order.
	 * @internal
	 */
	link(node: TreeNode, parent: TreeNode | undefined): void {
		node.parent = parent;
		if (!parent) {
			this.rootNodes.push(node);
		} else if (parent.children) {
			parent.children.push(node);
		} else {
			parent.children = [node];
		}
	}

	/** Tracks labels and the name, which depend on file order only. */
	private applyState(entry: SessionEntry): void {
		if (entry.type === "label") {
			const { targetId, label } = entry as LabelEntry;
			if (label) this.labels.set(targetId, { label, timestamp: entry.timestamp });
			else this.labels.delete(targetId);
		} else if (entry.type === "session_info") {
			const name = (entry as SessionInfoEntry).name;
			this.name = typeof name === "string" ? name.trim() || undefined : undefined;
		}
	}

	/**
	 * Entries from the root down to `fromId` (default: the leaf). Linear in the depth.
	 * Throws ENTRY_NOT_FOUND for an unknown id.
	 */
	getBranch(fromId?: string | null): SessionEntry[] {
		const start = fromId === undefined ? this.leaf : fromId === null ? undefined : this.requireNode(fromId);
		const path: SessionEntry[] = [];
		for (let node = start; node; node = node.parent) path.push(node.entry);
		return path.reverse();
	}

	/** Ids of all entries that have no children, sorted by code unit. */
	listBranches(): string[] {
		const ids: string[] = [];
		for (const node of this.ordered) if (!node.children) ids.push(node.entry.id);
		return ids.sort(compareCodeUnits);
	}

	/**
	 * The tree as nested nodes: roots in file order, children oldest first (a stable sort by
	 * the instant of `timestamp`, as pi's), labels attached. Built without recursion.
	 */
	getTree(): SessionTreeNode[] {
		// Two linear passes over the file order: one output node per entry, then children in
		// their display order. No map, no recursion.
		const out: SessionTreeNode[] = new Array(this.ordered.length);
		const labelled = this.labels.size > 0;
		for (let i = 0; i < this.ordered.length; i++) {
			const node = this.ordered[i] as TreeNode;
			const made: SessionTreeNode = { entry: node.entry, children: [] };
			if (labelled) {
				const label = this.labels.get(node.entry.id);
				if (label) {
					made.label = label.label;
					made.labelTimestamp = label.timestamp;
				}
			}
			out[i] = made;
		}
		for (let i = 0; i < this.ordered.length; i++) {
			const children = (this.ordered[i] as TreeNode).children;
			if (!children) continue;
			const target = (out[i] as SessionTreeNode).children;
			for (const child of sortedChildren(children)) target.push(out[child.order] as SessionTreeNode);
		}
		return this.rootNodes.map((root) => out[root.order] as SessionTreeNode);
	}

	/**
	 * The tree in display order (depth-first, pre-order, children as in {@link getTree}) as
	 * flat rows. Iterative.
	 */
	flatten(rootId?: string): FlatTreeRow[] {
		const rows: FlatTreeRow[] = [];
		const starts = rootId === undefined ? this.rootNodes : [this.requireNode(rootId)];
		const stack: Array<{ node: TreeNode; depth: number }> = [];
		for (let i = starts.length - 1; i >= 0; i--) stack.push({ node: starts[i] as TreeNode, depth: 0 });
		for (let item = stack.pop(); item; item = stack.pop()) {
			const { node, depth } = item;
			const row: FlatTreeRow = { entry: node.entry, depth };
			const label = this.labels.get(node.entry.id)?.label;
			if (label !== undefined) row.label = label;
			rows.push(row);
			if (!node.children) continue;
			const children = sortedChildren(node.children);
			for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i] as TreeNode, depth: depth + 1 });
		}
		return rows;
	}

	private requireNode(id: string): TreeNode {
		const node = this.nodes.get(id);
		if (!node) throw new SessionTreeError("ENTRY_NOT_FOUND", `no entry with id ${id}`);
		return node;
	}
}

/** Orders by code unit, as JavaScript's default sort and pi's expected `leaves` do. */
export function compareCodeUnits(a: string, b: string): number {
	return a < b ? -1 : a > b ? 1 : 0;
}

/** Children oldest first; `Array.prototype.sort` is stable, so equal instants keep file order. */
function sortedChildren(children: TreeNode[]): TreeNode[] {
	if (children.length < 2) return children;
	const keyed = children.map((node) => ({ node, time: Date.parse(node.entry.timestamp) }));
	keyed.sort((a, b) => a.time - b.time);
	return keyed.map((k) => k.node);
}
