/**
 * Conversations whose nodes link to their parents (ChatGPT's `mapping`, Open WebUI's
 * `history.messages`, claude.ai's `parent_message_uuid`): the tree their links make, and the
 * walk that converts it into records, depth first, iteratively (conversations run deep).
 *
 * Nodes are held by position (their index in `keys`, source order), their links in typed
 * arrays: one map from key to position is the only hashing, where maps of parents, children,
 * visited nodes and entry ids by key cost four or five lookups per node. On a ChatGPT node with
 * 200,000 children that is the difference between about 1.9 s and 0.8 s of linking and walking
 * (docs/performance.md, "ChatGPT import").
 */

import type { SessionEntry, SessionInfoEntry } from "../core/types.js";

/** No parent: the node is a root (in {@link LinkedNodes.parent}). */
export const ROOT = -1;

/** A conversation's nodes and their links, by position. */
export interface LinkedNodes {
	/** Every node's key, in source order: a node's position is its index here. */
	readonly keys: readonly string[];
	/** Each node's parent's position, or {@link ROOT}. The walk cuts a node on a cycle to a root. */
	readonly parent: Int32Array;
	/** Each node's children's positions, in order; undefined for none. */
	readonly children: ReadonlyArray<readonly number[] | undefined>;
}

/** Each key's position in `keys`. */
export function positionsOf(keys: readonly string[]): Map<string, number> {
	const positions = new Map<string, number>();
	for (let i = 0; i < keys.length; i++) positions.set(keys[i] as string, i);
	return positions;
}

/**
 * Each node's parent position: `parentKey(i)` names the node's parent (null for a root); a key
 * that is no node's is reported to `onMissing` and the node made a root.
 */
export function parentLinks(
	keys: readonly string[],
	positions: ReadonlyMap<string, number>,
	parentKey: (position: number) => string | null,
	onMissing: (position: number, parent: string) => void,
): Int32Array {
	const parent = new Int32Array(keys.length);
	for (let i = 0; i < keys.length; i++) {
		const key = parentKey(i);
		const at = key === null ? undefined : positions.get(key);
		if (key !== null && at === undefined) onMissing(i, key);
		parent[i] = at ?? ROOT;
	}
	return parent;
}

/** Why a child id of a node's list is not taken as its child (see {@link orderChildren}). */
export type BadChild = "not an id" | "missing" | "other parent";

/**
 * The children of every node of a conversation whose nodes link to their parents and list their
 * children (ChatGPT's `children`, Open WebUI's `childrenIds`): the parent links decide the tree,
 * a node's own list the order of its children; a child the list leaves out comes after the
 * listed ones, in `keys` order. A listed id that is no node's, or a node whose parent link
 * names another node, is reported to `onBad` and left out. Linear in the nodes and the listed
 * ids (a mark per node, not a search of the list, so 200,000 children cost no more per child).
 */
export function orderChildren(
	positions: ReadonlyMap<string, number>,
	parent: Int32Array,
	listed: (position: number) => readonly unknown[],
	onBad: (position: number, child: unknown, why: BadChild) => void,
): Array<number[] | undefined> {
	const count = parent.length;
	const children = new Array<number[] | undefined>(count).fill(undefined);
	// A node has one parent, so one mark per node serves every list.
	const placed = new Uint8Array(count);
	for (let i = 0; i < count; i++) {
		let list: number[] | undefined;
		for (const child of listed(i)) {
			if (typeof child !== "string") {
				onBad(i, child, "not an id");
				continue;
			}
			const at = positions.get(child);
			if (at === undefined) onBad(i, child, "missing");
			else if (parent[at] !== i) onBad(i, child, "other parent");
			else if (placed[at] === 0) {
				placed[at] = 1;
				list ??= [];
				list.push(at);
			}
		}
		children[i] = list;
	}
	for (let i = 0; i < count; i++) {
		const up = parent[i] as number;
		if (up === ROOT || placed[i] === 1) continue;
		placed[i] = 1;
		const list = children[up];
		if (list) list.push(i);
		else children[up] = [i];
	}
	return children;
}

/** The children of every node in position order (for sources that list no children). */
export function childrenInOrder(parent: Int32Array): Array<number[] | undefined> {
	const children = new Array<number[] | undefined>(parent.length).fill(undefined);
	for (let i = 0; i < parent.length; i++) {
		const up = parent[i] as number;
		if (up === ROOT) continue;
		const list = children[up];
		if (list) list.push(i);
		else children[up] = [i];
	}
	return children;
}

/** Where a node of a linked conversation is converted: under which entry, after which model and time. */
export interface NodePlace {
	parentId: string | null;
	model: string | undefined;
	time: number;
}

/** A node converted to entries (its own is the last), and the model and time its children inherit. */
export interface ConvertedNode {
	entries: SessionEntry[];
	model: string | undefined;
	time: number;
}

/**
 * The order a linked conversation is converted in: depth first from each root, children in
 * order, iteratively (conversations run deep). A node no root reaches sits on a cycle of parent
 * links: `onCycle` reports it, and it is cut from its parent (its `parent` set to {@link ROOT})
 * and walked as a root. Every problem is so reported before anything is converted, which lets
 * an import convert (and write) a batch at a time (linked-import.ts).
 */
export function walkOrder(nodes: LinkedNodes, onCycle: (position: number) => void): Int32Array {
	const { parent, children } = nodes;
	const count = parent.length;
	const order = new Int32Array(count);
	let placed = 0;
	const visited = new Uint8Array(count);
	const stack: number[] = [];
	const walk = (root: number) => {
		stack.push(root);
		while (stack.length > 0) {
			const at = stack.pop() as number;
			if (visited[at] === 1) continue;
			visited[at] = 1;
			order[placed++] = at;
			const list = children[at];
			if (list) for (let i = list.length - 1; i >= 0; i--) stack.push(list[i] as number);
		}
	};
	for (let i = 0; i < count; i++) if (parent[i] === ROOT) walk(i);
	for (let i = 0; i < count; i++) {
		if (visited[i] === 1) continue;
		onCycle(i);
		// Cut from its parent: the parent, walked later, skips it as visited (no filtering of
		// the parent's list, which would cost the list's length for every node cut from it).
		parent[i] = ROOT;
		walk(i);
	}
	return order;
}

/** Where the conversion of a linked conversation starts: the title entry (the roots go under it) and the first time. */
export interface FirstRecords {
	title: SessionInfoEntry | undefined;
	time: number;
}

/** The entries one node was converted to (its own is the last); `position` {@link ROOT} for the title entry. */
export interface NodeEntries {
	position: number;
	entries: readonly SessionEntry[];
}

/**
 * A linked conversation converted in `order` (see {@link walkOrder}), a node at a time: the
 * title entry first, if any, with the roots under it, then each node's entries. A generator, so
 * that a caller can take a batch, write it and let it go; `entryOf` is filled with each node's
 * own entry id (the last of its entries) as the node is converted.
 */
export function* convertInOrder(
	nodes: LinkedNodes,
	order: Int32Array,
	first: FirstRecords,
	convert: (position: number, at: NodePlace) => ConvertedNode,
	entryOf: Array<string | undefined> = new Array<string | undefined>(nodes.parent.length),
): Generator<NodeEntries> {
	const { parent } = nodes;
	if (first.title) yield { position: ROOT, entries: [first.title] };
	const start: NodePlace = { parentId: first.title?.id ?? null, model: undefined, time: first.time };
	// A node's place is made from its parent's, converted before it: the parent's model and time by position.
	const modelOf = new Array<string | undefined>(parent.length);
	const timeOf = new Float64Array(parent.length);
	for (let k = 0; k < order.length; k++) {
		const at = order[k] as number;
		const up = parent[at] as number;
		const place: NodePlace =
			up === ROOT ? start : { parentId: entryOf[up] ?? null, model: modelOf[up], time: timeOf[up] as number };
		const converted = convert(at, place);
		entryOf[at] = (converted.entries[converted.entries.length - 1] as SessionEntry).id;
		modelOf[at] = converted.model;
		timeOf[at] = converted.time;
		yield { position: at, entries: converted.entries };
	}
}

/**
 * Converts a linked conversation into records, whole: {@link walkOrder}, then
 * {@link convertInOrder}. Returns the records and each node's own entry id, by position.
 */
export function walkLinkedNodes(
	nodes: LinkedNodes,
	first: FirstRecords,
	convert: (position: number, at: NodePlace) => ConvertedNode,
	onCycle: (position: number) => void,
): { records: SessionEntry[]; entryOf: Array<string | undefined> } {
	const order = walkOrder(nodes, onCycle);
	const entryOf = new Array<string | undefined>(nodes.parent.length).fill(undefined);
	const records: SessionEntry[] = [];
	for (const node of convertInOrder(nodes, order, first, convert, entryOf))
		for (const entry of node.entries) records.push(entry);
	return { records, entryOf };
}
