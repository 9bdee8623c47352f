/**
 * The in-memory entry tree: an index by id, a children index, the leaf pointer, labels and the
 * session name. Pure: no I/O. Every walk is iterative, so a 200,000-deep chain or a node with
 * 200,000 children cannot overflow the stack.
 */

import { type ArchiveState, archiveChangeOf, isArchiveRecord } from "./archive.js";
import { SessionTreeError } from "./errors.js";
import { type EntryBodies, type Envelope, TreeNode } from "./tree-node.js";
import type { SessionEntry, SessionHeader, SessionTreeNode } from "./types.js";

// Its node, public through the core's index (`export *` of this module) as before it moved.
export { TreeNode } from "./tree-node.js";

/** A label and when it was set. */
export interface LabelState {
	readonly label: string;
	readonly timestamp: string;
}

/** One row of {@link SessionTree.flatten}: display order, depth 0 for roots. */
export interface FlatTreeRow {
	entry: SessionEntry;
	depth: number;
	label?: string;
	/** True when the entry lies in an archived branch (see {@link SessionTree.getArchived}); absent otherwise. */
	archived?: boolean;
}

/**
 * A flat tree row as plain data: what `session-tree tree --json` prints and what pi's golden
 * fixtures record (`tree` in test/fixtures/pi-v3/README.md).
 */
export interface TreeRow {
	id: string;
	parentId: string | null;
	type: string;
	depth: number;
	label?: string;
}

/** Rows of {@link SessionTree.flatten} as plain data. */
export function treeRowsOf(rows: readonly FlatTreeRow[]): TreeRow[] {
	return rows.map(({ entry, depth, label }) => {
		const row: TreeRow = { id: entry.id, parentId: entry.parentId, type: entry.type, depth };
		if (label !== undefined) row.label = label;
		return row;
	});
}

/** What {@link SessionTree.listBranches} lists. */
export interface ListBranchesOptions {
	/**
	 * Include archived branches (default true). With `false`, the tips of the tree as the views
	 * show it: archived branches and archive records are left out, so an entry whose children
	 * are all archived (or archive records) is a tip.
	 */
	archived?: boolean;
}

/**
 * The reading side of a {@link SessionTree}: what a session hands out
 * (`Session.getTreeIndex()`), so that its tree changes only through the session's writes.
 */
export interface ReadonlySessionTree {
	/** The session header (line 1). */
	readonly header: SessionHeader;
	/** Number of entries. */
	readonly size: number;
	/** True when an entry has this id. */
	has(id: string): boolean;
	/** The entry with this id (parsed on first use). */
	getEntry(id: string): SessionEntry | undefined;
	/** The resolved parent id: differs from `entry.parentId` only where a lenient load bridged a gap. */
	getParentId(id: string): string | null | undefined;
	/** All entries in file order. */
	getEntries(): SessionEntry[];
	/** The leaf id, or `null` when the leaf is before the first entry. */
	getLeafId(): string | null;
	/** The leaf entry, if the leaf is set. */
	getLeafEntry(): SessionEntry | undefined;
	/** Direct children of an entry (or the roots for `null`), in file order. O(children). */
	getChildren(id: string | null): SessionEntry[];
	/** The label in effect for an entry. */
	getLabel(id: string): string | undefined;
	/** Every label in effect, by target id, in the order they were set. */
	getLabels(): ReadonlyMap<string, LabelState>;
	/** The session name from the latest `session_info` entry in the file. */
	getSessionName(): string | undefined;
	/**
	 * The archived branches in effect, by the id of their first entry, in the order they were
	 * archived (see {@link SessionTree.getArchived}).
	 */
	getArchived(): ReadonlyMap<string, ArchiveState>;
	/** True when the entry lies in an archived branch: it or an ancestor is archived. Linear in the depth. */
	isArchived(id: string): boolean;
	/**
	 * Entries from the root down to `fromId` (default: the leaf). Linear in the depth.
	 * Throws ENTRY_NOT_FOUND for an unknown id.
	 */
	getBranch(fromId?: string | null): SessionEntry[];
	/**
	 * The entries of {@link getBranch}, each read when it is reached and not kept (see
	 * {@link SessionTree.walkBranch}). Throws ENTRY_NOT_FOUND for an unknown id.
	 */
	walkBranch(fromId?: string | null): Iterable<SessionEntry>;
	/** The entries of {@link getEntries} from the `start`th, each read when it is reached and not kept (see {@link SessionTree.walkEntries}). */
	walkEntries(start?: number): Iterable<SessionEntry>;
	/** Ids of all entries that have no children, sorted by code unit (see {@link SessionTree.listBranches}). */
	listBranches(options?: ListBranchesOptions): string[];
	/** The tree as nested nodes, or the subtree of one entry (see {@link SessionTree.getTree}). */
	getTree(rootId?: string): SessionTreeNode[];
	/** The tree in display order as flat rows (see {@link SessionTree.flatten}). */
	flatten(rootId?: string): FlatTreeRow[];
}

/**
 * The entry tree of one session.
 *
 * Construct it with {@link SessionTree.empty} and {@link SessionTree.insert}, or through the
 * loader in `load.ts`, which also links entries whose parents come later in the file.
 */
export class SessionTree implements ReadonlySessionTree {
	readonly header: SessionHeader;
	private readonly nodes = new Map<string, TreeNode>();
	private readonly ordered: TreeNode[] = [];
	private readonly rootNodes: TreeNode[] = [];
	private readonly labels = new Map<string, LabelState>();
	/** Archived branches in effect: target id → when (folded from archive records like labels). */
	private readonly archived = new Map<string, ArchiveState>();
	/** Ids of archive records, in file order. */
	private readonly archiveRecords: string[] = [];
	private name: string | undefined;
	private leaf: TreeNode | undefined;
	private view: ReadonlySessionTree | undefined;

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

	/**
	 * A read-only view of this tree: it reads the live tree, and has no method that changes it
	 * (a frozen object, made once per tree).
	 */
	asReadonly(): ReadonlySessionTree {
		this.view ??= new ReadonlyTreeView(this);
		return this.view;
	}

	/** True when an entry has this id. */
	has(id: string): boolean {
		return this.nodes.has(id);
	}

	/** The entry with this id (parsed on first use). */
	getEntry(id: string): SessionEntry | undefined {
		return this.nodes.get(id)?.entry;
	}

	/**
	 * The indexed node with this id (for walks by other core modules).
	 * @internal
	 */
	getNode(id: string): TreeNode | undefined {
		return this.nodes.get(id);
	}

	/** The resolved parent id: differs from `entry.parentId` only where a lenient load bridged a gap. */
	getParentId(id: string): string | null | undefined {
		const node = this.nodes.get(id);
		if (!node) return undefined;
		return node.parent ? node.parent.id : null;
	}

	/**
	 * The nodes in file order (the tree's own array: do not change it).
	 * @internal
	 */
	nodesInOrder(): readonly TreeNode[] {
		return this.ordered;
	}

	/**
	 * The roots' nodes in file order (the tree's own array: do not change it).
	 * @internal
	 */
	getRootNodes(): readonly TreeNode[] {
		return this.rootNodes;
	}

	/** All entries in file order. */
	getEntries(): SessionEntry[] {
		TreeNode.load(this.ordered);
		return this.ordered.map((node) => node.entry);
	}

	/** The leaf id, or `null` when the leaf is before the first entry. */
	getLeafId(): string | null {
		return this.leaf ? this.leaf.id : null;
	}

	/**
	 * The leaf node, if the leaf is set.
	 * @internal
	 */
	getLeafNode(): TreeNode | undefined {
		return this.leaf;
	}

	/**
	 * Moves the leaf pointer to a node of this tree (the reducer's, for a node it just added).
	 * @internal
	 */
	setLeafNode(node: TreeNode): void {
		this.leaf = node;
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
		const list = id === null ? this.rootNodes : this.nodes.get(id)?.childNodes();
		if (!list) return [];
		TreeNode.load(list);
		return list.map((node) => node.entry);
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
	 * The archived branches in effect, by the id of their first entry (the target of the
	 * archive record in effect), in the order they were archived. Folded from archive records
	 * (`custom` entries of type `session-tree/archive`, src/core/archive.ts) in file order as
	 * labels are: the last record for a target decides. A branch archived inside an archived
	 * branch stays archived when the outer one is brought back. Targets not in the tree are
	 * left out.
	 */
	getArchived(): ReadonlyMap<string, ArchiveState> {
		if (this.archived.size === 0) return this.archived;
		const known = new Map<string, ArchiveState>();
		for (const [id, state] of this.archived) if (this.nodes.has(id)) known.set(id, state);
		return known;
	}

	/** True when the entry lies in an archived branch: it or an ancestor is archived. Linear in the depth. */
	isArchived(id: string): boolean {
		if (this.archived.size === 0) return false;
		for (let node = this.nodes.get(id); node; node = node.parent) if (this.archived.has(node.id)) return true;
		return false;
	}

	/**
	 * Ids of every entry of an archived branch. Linear in what they hold.
	 * @internal
	 */
	archivedIds(): Set<string> {
		return this.subtreeIds(this.archived.keys());
	}

	/**
	 * Ids of what the views put away: every entry of an archived branch, and every archive
	 * record (with what may hang below one). Linear in what they hold.
	 * @internal
	 */
	putAwayIds(): Set<string> {
		return this.subtreeIds([...this.archived.keys(), ...this.archiveRecords]);
	}

	/** Ids of the entries below and at `roots` (unknown ids skipped), without recursion. */
	private subtreeIds(roots: Iterable<string>): Set<string> {
		const ids = new Set<string>();
		const starts: TreeNode[] = [];
		for (const id of roots) {
			const node = this.nodes.get(id);
			if (node) starts.push(node);
		}
		for (let node = starts.pop(); node; node = starts.pop()) {
			if (ids.has(node.id)) continue;
			ids.add(node.id);
			for (let child = node.firstChild; child; child = child.nextSibling) starts.push(child);
		}
		return ids;
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
	 * @internal
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
		const node = TreeNode.of(entry, this.ordered.length);
		this.nodes.set(entry.id, node);
		this.ordered.push(node);
		this.applyState(entry);
		return node;
	}

	/**
	 * Adds an entry known by its envelope, parsed on first use (never a label or a session
	 * name, which the tree's state needs now), without linking it.
	 * @internal
	 */
	addLazyNode(envelope: Envelope, bodies: EntryBodies): TreeNode {
		const node = TreeNode.adopt(envelope, bodies, this.ordered.length);
		this.nodes.set(envelope.id, node);
		this.ordered.push(node);
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
		} else if (parent.lastChild) {
			parent.lastChild.nextSibling = node;
			parent.lastChild = node;
		} else {
			parent.firstChild = node;
			parent.lastChild = node;
		}
	}

	/** Tracks labels and the name, which depend on file order only. */
	private applyState(entry: SessionEntry): void {
		if (entry.type === "label") {
			const { targetId, label } = entry;
			if (label) this.labels.set(targetId, Object.freeze({ label, timestamp: entry.timestamp }));
			else this.labels.delete(targetId);
		} else if (entry.type === "session_info") {
			const name = entry.name;
			this.name = typeof name === "string" ? name.trim() || undefined : undefined;
		} else if (entry.type === "custom" && isArchiveRecord(entry)) {
			this.archiveRecords.push(entry.id);
			const change = archiveChangeOf(entry);
			if (!change) return;
			// Deleted first, so that the map's order is the order of the records in effect.
			this.archived.delete(change.targetId);
			if (change.archived) this.archived.set(change.targetId, Object.freeze({ timestamp: entry.timestamp }));
		}
	}

	/**
	 * Entries from the root down to `fromId` (default: the leaf). Linear in the depth.
	 * Throws ENTRY_NOT_FOUND for an unknown id.
	 */
	getBranch(fromId?: string | null): SessionEntry[] {
		const start = fromId === undefined ? this.leaf : fromId === null ? undefined : this.requireNode(fromId);
		// One walk when every entry on the path is parsed (the usual case after a resume).
		const entries: SessionEntry[] = [];
		for (let node = start; node; node = node.parent) {
			const entry = node.loadedEntry;
			if (entry === undefined) {
				const path = this.getPath(fromId);
				TreeNode.load(path);
				return path.map((step) => step.entry);
			}
			entries.push(entry);
		}
		return entries.reverse();
	}

	/**
	 * The entries from the root down to `fromId` (default: the leaf), as {@link getBranch} gives
	 * them, each parsed for the caller when it is reached and not kept in the tree (see
	 * `TreeNode.peekEntry`): a body not parsed yet is read from the store again by the next
	 * walk. Writing out a long path of a large session (`session-tree md`) so holds one batch of
	 * bodies at a time (a few hundred, read together), where `getBranch` keeps every body it
	 * parses. Throws ENTRY_NOT_FOUND for an unknown id (at once, before the first entry).
	 */
	walkBranch(fromId?: string | null): Iterable<SessionEntry> {
		return peekEach(this.getPath(fromId));
	}

	/**
	 * Every entry in file order, as {@link getEntries} gives them, each parsed when it is
	 * reached and not kept (see {@link walkBranch}); from the `start`th (0-based) when given.
	 */
	walkEntries(start = 0): Iterable<SessionEntry> {
		return peekEach(this.ordered.slice(start));
	}

	/**
	 * {@link walkEntries} with, beside each entry, the stored bytes (UTF-8) of its line when the
	 * entry was parsed from them for this walk and is their `JSON.parse` as it is (a body read
	 * lazily and found good), else undefined: a writer of records (an export) can copy the
	 * bytes instead of encoding the entry again.
	 * @internal
	 */
	walkEntryLines(start = 0): Iterable<EntryLine> {
		const nodes = this.ordered.slice(start);
		// Without `known`, every item is an entry.
		return { [Symbol.iterator]: () => peekBatches(nodes, true) as Iterator<EntryLine> };
	}

	/**
	 * {@link walkEntryLines}, but each entry whose body is still unparsed in its store is first
	 * offered to `known` with its envelope (where its line is, and its type, id and parent):
	 * when `known` gives something for it, that is given instead of the entry, and its body is
	 * not read here at all (another reader of the same store read it: `session-tree html`'s
	 * second thread). Any other entry (parsed already, made in memory) is given as by
	 * {@link walkEntryLines}. `known` is asked in file order, a few hundred lines ahead of
	 * what is given; each item of a line offered to it names that line (`place`).
	 * @internal
	 */
	walkEntryLinesKnowing<K>(known: (line: Envelope) => K | undefined, start = 0): Iterable<EntryLine | KnownLine<K>> {
		const nodes = this.ordered.slice(start);
		return { [Symbol.iterator]: () => peekBatches(nodes, true, known) };
	}

	/**
	 * The nodes from the root down to `fromId` (default: the leaf), without parsing any body.
	 * Throws ENTRY_NOT_FOUND for an unknown id.
	 * @internal
	 */
	getPath(fromId?: string | null): TreeNode[] {
		const start = fromId === undefined ? this.leaf : fromId === null ? undefined : this.requireNode(fromId);
		const path: TreeNode[] = [];
		for (let node = start; node; node = node.parent) path.push(node);
		return path.reverse();
	}

	/**
	 * Ids of all entries that have no children, sorted by code unit. With
	 * `{ archived: false }`, the tips of the tree the views show: archived branches and archive
	 * records left out (see {@link ListBranchesOptions}).
	 */
	listBranches(options: ListBranchesOptions = {}): string[] {
		const ids: string[] = [];
		const away = options.archived === false && this.archiveRecords.length > 0 ? this.putAwayIds() : undefined;
		if (!away) {
			for (const node of this.ordered) if (!node.firstChild) ids.push(node.id);
			return ids.sort(compareCodeUnits);
		}
		for (const node of this.ordered) {
			if (away.has(node.id)) continue;
			let child = node.firstChild;
			while (child && away.has(child.id)) child = child.nextSibling;
			if (!child) ids.push(node.id);
		}
		return ids.sort(compareCodeUnits);
	}

	/**
	 * The tree as nested nodes: roots in file order, children oldest first (a stable sort by
	 * the instant of `timestamp`, as pi's), labels attached. Built without recursion. Each
	 * node's `entry` is parsed when it is first read (a getter), so walking the shape of a
	 * large tree parses nothing.
	 *
	 * With `rootId`, the subtree of that entry only, as one node (its nodes as the whole tree's
	 * would be, an entry put away by an archive record marked `archived` as there): a view of
	 * part of a large tree makes the nodes it shows, not every node. Throws ENTRY_NOT_FOUND for
	 * an unknown id.
	 */
	getTree(rootId?: string): SessionTreeNode[] {
		if (rootId !== undefined) return [this.subtreeView(this.requireNode(rootId))];
		// No map, no recursion. Children usually come after their parent in file order: then
		// one pass from the end makes every node with its children's nodes at hand, each list
		// made at its size (an empty array grown by a push reserves 17 slots). Otherwise two
		// passes: every output node, then the children.
		const ordered = this.ordered;
		const count = ordered.length;
		const out = new Array<TreeViewNode>(count);
		let made = count;
		for (; made > 0; made--) {
			const node = ordered[made - 1] as TreeNode;
			const first = node.firstChild;
			if (first && first.order < made) break;
			out[made - 1] = new TreeViewNode(node, first ? childViews(node, out) : []);
		}
		if (made > 0) {
			for (let i = 0; i < made; i++) out[i] = new TreeViewNode(ordered[i] as TreeNode, []);
			for (let i = 0; i < made; i++) {
				const node = ordered[i] as TreeNode;
				if (node.firstChild) (out[i] as TreeViewNode).children = childViews(node, out);
			}
		}
		// A node's order is its index in file order, so `out[node.order]` is its output node.
		for (const [id, label] of this.labels) {
			const view = this.viewOf(id, out);
			if (view && label) {
				view.label = label.label;
				view.labelTimestamp = label.timestamp;
			}
		}
		for (const id of this.archived.keys()) {
			const view = this.viewOf(id, out);
			if (view) view.archived = true;
		}
		const roots: SessionTreeNode[] = [];
		for (const root of this.rootNodes) {
			const view = out[root.order];
			if (view) roots.push(view);
		}
		return roots;
	}

	/**
	 * The output node of `root` with its subtree's (see {@link getTree}): the subtree's nodes in
	 * pre-order, then their output nodes from the last up, so that each node's children's are
	 * made before it. Labels and marks as {@link getTree} attaches them, looked up by node.
	 */
	private subtreeView(root: TreeNode): SessionTreeNode {
		const nodes: TreeNode[] = [];
		const stack = [root];
		for (let node = stack.pop(); node; node = stack.pop()) {
			nodes.push(node);
			for (let child = node.firstChild; child; child = child.nextSibling) stack.push(child);
		}
		const views = new Map<TreeNode, TreeViewNode>();
		for (let i = nodes.length - 1; i >= 0; i--) {
			const node = nodes[i] as TreeNode;
			const children: SessionTreeNode[] = [];
			if (node.firstChild) for (const child of sortedChildren(node)) children.push(views.get(child) as TreeViewNode);
			views.set(node, this.nodeView(node, children));
		}
		return views.get(root) as TreeViewNode;
	}

	/**
	 * The output node of `node` (see {@link getTree}) with `children`, its label and archive mark
	 * attached: what {@link subtreeView} makes of each node, and the views of single nodes that a
	 * walk of the nodes asks the filters about (render/tree-window.ts).
	 * @internal
	 */
	nodeView(node: TreeNode, children: SessionTreeNode[] = []): TreeViewNode {
		const view = new TreeViewNode(node, children);
		const label = this.labels.get(node.id);
		if (label) {
			view.label = label.label;
			view.labelTimestamp = label.timestamp;
		}
		if (this.archived.has(node.id)) view.archived = true;
		return view;
	}

	/** The output node of entry `id` in `out` (made by {@link getTree}), if the entry is in the tree. */
	private viewOf(id: string, out: readonly TreeViewNode[]): TreeViewNode | undefined {
		const node = this.nodes.get(id);
		return node && this.ordered[node.order] === node ? out[node.order] : undefined;
	}

	/**
	 * The tree in display order (depth-first, pre-order, children as in {@link getTree}) as
	 * flat rows. Iterative.
	 */
	flatten(rootId?: string): FlatTreeRow[] {
		const rows: FlatTreeRow[] = [];
		const starts = rootId === undefined ? this.rootNodes : [this.requireNode(rootId)];
		const stack = starts.map((node) => ({ node, depth: 0, away: this.isArchived(node.id) })).reverse();
		for (let item = stack.pop(); item; item = stack.pop()) {
			const { node, depth } = item;
			const row: FlatTreeRow = new FlatRow(node, depth);
			const label = this.labels.get(node.id)?.label;
			if (label !== undefined) row.label = label;
			const away = item.away || this.archived.has(node.id);
			if (away) row.archived = true;
			rows.push(row);
			if (!node.firstChild) continue;
			for (const child of sortedChildren(node).toReversed()) stack.push({ node: child, depth: depth + 1, away });
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

/**
 * The tree node behind a node of {@link SessionTree.getTree} or a row of
 * {@link SessionTree.flatten} (see tree-view.ts), while its `entry` is the node's (an
 * assignment to it makes it a plain value the node knows nothing of); else undefined.
 * @internal
 */
export function nodeBehind(view: object): TreeNode | undefined {
	return TreeViewNode.nodeOf(view) ?? FlatRow.nodeOf(view);
}

/**
 * A node of {@link SessionTree.getTree} for the tree node behind `view` (see {@link nodeBehind})
 * with no children: what `copyViewNode` (tree-view.ts) makes of such a view, so that the copy is
 * known by its private field like the nodes it copies (no side table, no descriptor to read).
 * @internal
 */
export function childlessViewNode(node: TreeNode): SessionTreeNode {
	return new TreeViewNode(node, []);
}

/**
 * `entry` as an own, enumerable property that parses the entry on first read: spreading,
 * `Object.keys`, `JSON.stringify` and deep comparisons see it as the data property it stands
 * for. Assigning to it replaces it with a plain value.
 */
export function lazyEntryProperty<T extends object>(
	read: (target: T) => SessionEntry,
	assigned?: (target: T) => void,
): PropertyDescriptor {
	return {
		get(this: T) {
			return read(this);
		},
		set(this: T, value: SessionEntry) {
			Object.defineProperty(this, "entry", { value, writable: true, enumerable: true, configurable: true });
			assigned?.(this);
		},
		enumerable: true,
		configurable: true,
	};
}

/**
 * The tree a read-only view reads (the tree itself for a tree), else undefined: for the views
 * that walk its nodes instead of making every node's view (render/tree-window.ts). The view
 * hands out no node (a node's links are the tree's own): this is the one way to them.
 * @internal
 */
export function treeBehind(tree: ReadonlySessionTree): SessionTree | undefined {
	return tree instanceof SessionTree ? tree : ReadonlyTreeView.treeOf(tree);
}

/**
 * What {@link SessionTree.asReadonly} returns: the read methods of the tree and nothing else,
 * frozen; the tree itself is out of reach (a private field).
 */
class ReadonlyTreeView implements ReadonlySessionTree {
	readonly #tree: SessionTree;

	constructor(tree: SessionTree) {
		this.#tree = tree;
		Object.freeze(this);
	}

	get header(): SessionHeader {
		return this.#tree.header;
	}

	get size(): number {
		return this.#tree.size;
	}

	has(id: string): boolean {
		return this.#tree.has(id);
	}

	getEntry(id: string): SessionEntry | undefined {
		return this.#tree.getEntry(id);
	}

	getParentId(id: string): string | null | undefined {
		return this.#tree.getParentId(id);
	}

	getEntries(): SessionEntry[] {
		return this.#tree.getEntries();
	}

	getLeafId(): string | null {
		return this.#tree.getLeafId();
	}

	getLeafEntry(): SessionEntry | undefined {
		return this.#tree.getLeafEntry();
	}

	getChildren(id: string | null): SessionEntry[] {
		return this.#tree.getChildren(id);
	}

	getLabel(id: string): string | undefined {
		return this.#tree.getLabel(id);
	}

	/** A copy: the tree's own map stays out of reach. */
	getLabels(): ReadonlyMap<string, LabelState> {
		return new Map(this.#tree.getLabels());
	}

	getSessionName(): string | undefined {
		return this.#tree.getSessionName();
	}

	/** A copy: the tree's own map stays out of reach. */
	getArchived(): ReadonlyMap<string, ArchiveState> {
		return new Map(this.#tree.getArchived());
	}

	isArchived(id: string): boolean {
		return this.#tree.isArchived(id);
	}

	getBranch(fromId?: string | null): SessionEntry[] {
		return this.#tree.getBranch(fromId);
	}

	walkBranch(fromId?: string | null): Iterable<SessionEntry> {
		return this.#tree.walkBranch(fromId);
	}

	walkEntries(start?: number): Iterable<SessionEntry> {
		return this.#tree.walkEntries(start);
	}

	listBranches(options?: ListBranchesOptions): string[] {
		return this.#tree.listBranches(options);
	}

	getTree(rootId?: string): SessionTreeNode[] {
		return this.#tree.getTree(rootId);
	}

	/** The tree behind `view`, if it is one of these (see {@link treeBehind}). */
	static treeOf(view: object): SessionTree | undefined {
		return #tree in view ? view.#tree : undefined;
	}

	flatten(rootId?: string): FlatTreeRow[] {
		return this.#tree.flatten(rootId);
	}
}
Object.freeze(ReadonlyTreeView.prototype);

/** The entries of `nodes`, each peeked when the iteration reaches it (an iterable that can be walked again). */
function peekEach(nodes: readonly TreeNode[]): Iterable<SessionEntry> {
	return {
		*[Symbol.iterator]() {
			// Without `known`, every item is an entry.
			for (const item of peekBatches(nodes, false)) yield item.entry as SessionEntry;
		},
	};
}

/**
 * The entries of `nodes` as {@link peekEach} gives them, with their lines' bytes when asked
 * (see {@link SessionTree.walkEntryLines}). A batch at a time: one read covers the nearby lines
 * of a batch, where a read per entry cost 100,000 system calls for a walk over s100k (0.8 s of
 * an export's 5 s).
 */
function* peekBatches<K = never>(
	nodes: readonly TreeNode[],
	withLines: boolean,
	known?: (line: Envelope) => K | undefined,
): Generator<EntryLine | KnownLine<K>> {
	// What `known` gave, by the batch's index, the lines offered to it, and the nodes left to read here.
	const given: Array<K | undefined> = [];
	const places: Array<Envelope | undefined> = [];
	const rest: TreeNode[] = [];
	for (let start = 0; start < nodes.length; start += PEEK_BATCH) {
		let batch = nodes.slice(start, start + PEEK_BATCH);
		given.length = 0;
		places.length = 0;
		if (known) {
			rest.length = 0;
			for (const node of batch) {
				const envelope = node.loaded ? undefined : node.envelope;
				const answer = envelope && known(envelope);
				given.push(answer);
				places.push(envelope);
				if (answer === undefined) rest.push(node);
			}
			if (rest.length < batch.length) batch = rest.slice();
		}
		const lines: Array<Uint8Array | undefined> | undefined = withLines ? [] : undefined;
		let entries: SessionEntry[] | undefined;
		try {
			entries = TreeNode.peekMany(batch, lines);
		} catch {
			// A body of the batch cannot be read (a strict read throws): one at a time, so that
			// the entries before it are given before its error (an output written as it is read,
			// `session-tree md`, keeps them).
		}
		let next = 0;
		const count = known ? given.length : batch.length;
		for (let i = 0; i < count; i++) {
			const answer = known ? given[i] : undefined;
			const place = places[i];
			if (answer !== undefined) {
				yield { known: answer, place: place as Envelope };
				continue;
			}
			const at = next++;
			const entry = entries ? (entries[at] as SessionEntry) : (batch[at] as TreeNode).peekEntry();
			const line = entries ? lines?.[at] : undefined;
			yield place ? { entry, line, place } : { entry, line };
		}
	}
}

/** An entry of {@link SessionTree.walkEntryLines} and, when it was parsed from them as it is, the stored bytes of its line. @internal */
export interface EntryLine {
	readonly entry: SessionEntry;
	readonly line: Uint8Array | undefined;
	readonly known?: undefined;
	/** In {@link SessionTree.walkEntryLinesKnowing}: the line offered to `known`, when it was. */
	readonly place?: Envelope;
}

/** What the caller of {@link SessionTree.walkEntryLinesKnowing} knew of an entry's line, given instead of the entry. @internal */
export interface KnownLine<K> {
	readonly known: K;
	readonly entry?: undefined;
	readonly line?: undefined;
	/** The line offered to `known`. */
	readonly place: Envelope;
}

/** Entries a walk parses at a time (see {@link peekEach}): a few hundred kilobytes of bodies held at once. */
const PEEK_BATCH = 256;

/** A node of {@link SessionTree.getTree}: `entry` is parsed on first read. */
class TreeViewNode implements SessionTreeNode {
	declare entry: SessionEntry;
	declare children: SessionTreeNode[];
	declare label?: string;
	declare labelTimestamp?: string;
	declare archived?: boolean;
	/**
	 * The tree node behind this view; undefined once `entry` was assigned: the view then knows
	 * nothing of the value (see {@link nodeBehind}). (One field for both: 100,000 views are made
	 * at a time, and a field more is 8 bytes more of each for the collector to copy.)
	 */
	#node: TreeNode | undefined;
	static readonly #entry = lazyEntryProperty<TreeViewNode>(
		(target) => (target.#node as TreeNode).entry,
		(target) => {
			target.#node = undefined;
		},
	);

	/** The tree node behind `view`, if it is one of these and its `entry` was not assigned. */
	static nodeOf(view: object): TreeNode | undefined {
		// A private field, not the property's descriptor: read for every node a view lays out,
		// and a descriptor is an object made at each read.
		return #node in view ? view.#node : undefined;
	}

	constructor(node: TreeNode, children: SessionTreeNode[]) {
		this.#node = node;
		// Defined first, so that keys come in pi's order: entry, children, label, labelTimestamp.
		Object.defineProperty(this, "entry", TreeViewNode.#entry);
		this.children = children;
	}
}

/** A row of {@link SessionTree.flatten}: `entry` is parsed on first read. */
class FlatRow implements FlatTreeRow {
	declare entry: SessionEntry;
	declare depth: number;
	declare label?: string;
	declare archived?: boolean;
	/** The tree node behind this row; undefined once `entry` was assigned (see {@link TreeViewNode}). */
	#node: TreeNode | undefined;
	static readonly #entry = lazyEntryProperty<FlatRow>(
		(target) => (target.#node as TreeNode).entry,
		(target) => {
			target.#node = undefined;
		},
	);

	/** The tree node behind `row`, if it is one of these and its `entry` was not assigned. */
	static nodeOf(row: object): TreeNode | undefined {
		return #node in row ? row.#node : undefined;
	}

	constructor(node: TreeNode, depth: number) {
		this.#node = node;
		Object.defineProperty(this, "entry", FlatRow.#entry);
		this.depth = depth;
	}
}

/** The output nodes of `parent`'s children in display order (see {@link sortedChildren}), from `out` by order. */
function childViews(parent: TreeNode, out: readonly (SessionTreeNode | undefined)[]): SessionTreeNode[] {
	const only = parent.firstChild;
	// Most entries have one child: nothing to sort.
	if (only && only === parent.lastChild) {
		const view = out[only.order];
		return view ? [view] : [];
	}
	const views: SessionTreeNode[] = [];
	for (const child of sortedChildren(parent)) {
		const view = out[child.order];
		if (view) views.push(view);
	}
	return views;
}

/**
 * The children of a node in display order: oldest first; `Array.prototype.sort` is stable, so
 * equal instants keep file order.
 * @internal
 */
export function sortedChildren(parent: TreeNode): TreeNode[] {
	const children = parent.childNodes();
	if (children.length < 2) return children;
	// Children are usually written in the order of their instants: then the sort would keep them
	// as they are, and nothing is made for it. The sort would find that too: it first looks for
	// runs by comparing neighbours, and a run over every child (no child earlier than the one
	// before it; an unreadable instant, NaN, compares as equal) is left as it is.
	let previous = Date.parse((children[0] as TreeNode).timestamp);
	let i = 1;
	for (; i < children.length; i++) {
		const time = Date.parse((children[i] as TreeNode).timestamp);
		if (time < previous) break;
		previous = time;
	}
	if (i === children.length) return children;
	const keyed = children.map((node) => ({ node, time: Date.parse(node.timestamp) }));
	keyed.sort((a, b) => a.time - b.time);
	return keyed.map((k) => k.node);
}
