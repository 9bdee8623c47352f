/**
 * Which rows a session tree is drawn as, and how: pi's `/tree` filters, the box-drawing
 * prefixes, the active path, folding and depth limits. Pure (no Node module, no terminal), so
 * that the terminal view (`tree-text.ts`, `session-tree tree`) and the HTML export's sidebar
 * (`html/client/`) draw the same tree by the same rules; each only turns rows into its own
 * output (text lines, DOM nodes).
 *
 * The rules:
 *
 * - Indentation grows only where the tree forks: an only child is drawn at its parent's
 *   indentation, so a 5,000-entry chain is 5,000 rows with an empty prefix. Siblings get
 *   `├── ` / `└── ` and the rows below them `│   ` / `    `.
 * - Below a fork, the entries of the active path (root → leaf) are marked (`• ` in text, see
 *   {@link showsActiveMark}); above the first fork every entry is on every path.
 * - A filter hides entries; their shown descendants move up to the nearest shown ancestor. A
 *   leaf the filter hides is pointed at from that ancestor ({@link TreeLayout.leafShownAt}).
 * - An archived branch (a node marked `archived`, and everything below it) and the archive
 *   records are hidden whole, unless the filter is `all` ({@link showsArchived}).
 * - `depth` limits the levels below the start, `collapsed` folds the subtree below chosen
 *   entries: either way what is cut becomes one `more` row (`… N more`). `fold` folds long
 *   straight runs to their first and last two rows and a `fold` row (`┆ … N entries …`).
 *
 * Every walk is iterative: no depth of tree can overflow the stack (a 160,000-deep chain is
 * one straight run).
 */

import { isArchiveRecord } from "../core/archive.js";
import { TreeNode } from "../core/tree-node.js";
import { copyViewNode, viewId, viewNodeOf, viewParentId, viewType } from "../core/tree-view.js";
import type { SessionTreeNode } from "../core/types.js";
import { isObject } from "../core/validate.js";
import {
	layRows,
	type Pending,
	pushChildren,
	type RowRules,
	TREE_PIPE,
	type TreeEntryRow,
	type TreeLayoutRow,
} from "./tree-rows.js";

export {
	countBelow,
	TREE_BRANCH,
	TREE_LAST,
	TREE_PIPE,
	TREE_SPACE,
	type TreeEntryRow,
	type TreeFoldRow,
	type TreeLayoutRow,
	type TreeMoreRow,
} from "./tree-rows.js";

/** pi's `/tree` filters, see {@link treeFilterShows}. */
export type TreeFilter = "default" | "no-tools" | "user-only" | "labeled-only" | "all";

/** Every {@link TreeFilter}, in pi's order. */
export const TREE_FILTERS: readonly TreeFilter[] = ["default", "no-tools", "user-only", "labeled-only", "all"];

const DEFAULT_FOLD_LIMIT = 6;

function hasText(content: unknown): boolean {
	if (typeof content === "string") return content.trim().length > 0;
	if (!Array.isArray(content)) return false;
	return content.some(
		(block) =>
			isObject(block) && block.type === "text" && typeof block.text === "string" && block.text.trim().length > 0,
	);
}

/**
 * pi's rule for an assistant message that is not the leaf: shown when it has text, or stopped
 * for another reason than `stop` or `toolUse` (an error, an abort).
 */
export function assistantShownByRule(message: object): boolean {
	const { stopReason: stop, content } = message as { readonly content?: unknown; readonly stopReason?: unknown };
	const errorOrAborted = !!stop && stop !== "stop" && stop !== "toolUse";
	return errorOrAborted || hasText(content);
}

const SETTINGS_TYPES = new Set(["label", "custom", "model_change", "thinking_level_change", "session_info"]);

/**
 * Whether pi's `/tree` selector shows an entry under a filter (pi-coding-agent's
 * tree-selector `applyFilter`). In every mode, assistant messages without text (only tool
 * calls) are hidden unless they stopped with an error or were aborted, or are the leaf.
 * - `default`: everything but settings entries (label, custom, model_change,
 *   thinking_level_change, session_info);
 * - `no-tools`: `default` without tool results;
 * - `user-only`: user messages;
 * - `labeled-only`: entries with a label;
 * - `all`: everything.
 */
export function treeFilterShows(node: SessionTreeNode, filter: TreeFilter, leafId?: string | null): boolean {
	const behind = viewNodeOf(node);
	// An unparsed assistant message whose bytes decided the rule (see decideAssistantsShown):
	// what its parse would say, without parsing it.
	const known = behind instanceof TreeNode ? behind.assistantShown : undefined;
	if (known !== undefined) {
		if (!known && (behind as TreeNode).id !== leafId) return false;
		// A message entry of role "assistant".
		if (filter === "user-only") return false;
		if (filter === "labeled-only") return node.label !== undefined;
		return true;
	}
	// Another message whose bytes were checked: its envelope's role is the parsed one.
	if (behind instanceof TreeNode && behind.roleChecked) {
		const messageRole = behind.role;
		if (filter === "user-only") return messageRole === "user";
		if (filter === "no-tools") return messageRole !== "toolResult";
		if (filter === "labeled-only") return node.label !== undefined;
		return true;
	}
	// Any entry but a message: its type, which the tree node holds, is all the filter asks of it,
	// so its body is not parsed (compactions, summaries, labels, settings changes: parsing them
	// was 36 ms of the page's first layout of a 100,000-entry session).
	if (behind instanceof TreeNode && behind.type !== "message") return shownByKind(behind.type, undefined, filter, node);
	const { entry } = node;
	const message = entry.type === "message" ? entry.message : undefined;
	if (message?.role === "assistant" && entry.id !== leafId && !assistantShownByRule(message)) return false;
	return shownByKind(entry.type, message?.role, filter, node);
}

/** What `filter` says of an entry of this type (and message role) that pi's rule for assistant messages did not hide. */
function shownByKind(type: string, role: string | undefined, filter: TreeFilter, node: SessionTreeNode): boolean {
	switch (filter) {
		case "user-only":
			return role === "user";
		case "no-tools":
			return !SETTINGS_TYPES.has(type) && role !== "toolResult";
		case "labeled-only":
			return node.label !== undefined;
		case "all":
			return true;
		default:
			return !SETTINGS_TYPES.has(type);
	}
}

/**
 * Has the bytes of the unparsed messages in the tree below `roots` (below the entry `from`
 * only, when given) tell what {@link treeFilterShows} needs of them (see
 * `TreeNode.decideShown`: whether an assistant message passes pi's rule, that another message
 * has the role its envelope says), in one pass over the store: what a view asks before it lays
 * out many nodes under a filter, so that the filter parses no message and the bodies of the
 * rows it hides are never parsed. Each node is asked once; a parsed body is its own answer.
 * Iterative. With `limit`, nothing is decided when the tree holds more nodes than that (the
 * rows around a leaf give up on such a tree: render/tree-window.ts).
 */
export function decideAssistantsShown(
	roots: readonly SessionTreeNode[],
	from?: string,
	limit = Number.POSITIVE_INFINITY,
): void {
	const nodes: TreeNode[] = [];
	const stack = [...roots];
	let collecting = from === undefined;
	let count = 0;
	for (let view = stack.pop(); view; view = stack.pop()) {
		if (++count > limit) return;
		const behind = viewNodeOf(view);
		if (!collecting) {
			if ((behind ? behind.id : view.entry.id) !== from) {
				for (const child of view.children) stack.push(child);
				continue;
			}
			// The subtree of `from` only.
			collecting = true;
			stack.length = 0;
		}
		if (behind instanceof TreeNode && behind.type === "message" && behind.role !== undefined && !behind.loaded) {
			nodes.push(behind);
		}
		for (const child of view.children) stack.push(child);
	}
	if (nodes.length > 0) TreeNode.decideShown(nodes);
}

/**
 * Whether archived branches and archive records are shown: under the `all` filter, or when
 * `archived` says so. Everywhere else they are hidden whole, the archived entry with
 * everything below it.
 */
export function showsArchived(filter: TreeFilter | undefined, archived?: "hide" | "show"): boolean {
	return archived === undefined ? filter === "all" : archived === "show";
}

/** True for a node put away: the first entry of an archived branch, or an archive record. */
export function isPutAway(node: SessionTreeNode): boolean {
	return node.archived === true || (viewType(node) === "custom" && isArchiveRecord(node.entry));
}

/**
 * Ids of every node put away: the nodes {@link isPutAway} and everything below them (what
 * the views hide unless {@link showsArchived}). Iterative.
 */
export function putAwayIds(roots: readonly SessionTreeNode[]): Set<string> {
	const ids = new Set<string>();
	const stack = roots.map((node) => ({ node, away: false }));
	for (let item = stack.pop(); item; item = stack.pop()) {
		const away = item.away || isPutAway(item.node);
		if (away) ids.add(viewId(item.node));
		for (const child of item.node.children) stack.push({ node: child, away });
	}
	return ids;
}

/** Every node of a tree by id, found without recursion. */
export function indexTreeNodes(roots: readonly SessionTreeNode[]): Map<string, SessionTreeNode> {
	const byId = new Map<string, SessionTreeNode>();
	const stack = [...roots];
	for (let node = stack.pop(); node; node = stack.pop()) {
		byId.set(viewId(node), node);
		for (const child of node.children) stack.push(child);
	}
	return byId;
}

/**
 * {@link indexTreeNodes}, and with `checkPutAway` whether any node is put away
 * ({@link isPutAway}; undefined without it): one walk, each node's tree node looked up once.
 */
function indexTree(
	roots: readonly SessionTreeNode[],
	checkPutAway: boolean,
): { byId: Map<string, SessionTreeNode>; putAway: boolean | undefined } {
	const byId = new Map<string, SessionTreeNode>();
	let putAway = false;
	const stack = [...roots];
	for (let node = stack.pop(); node; node = stack.pop()) {
		const behind = viewNodeOf(node);
		byId.set(behind ? behind.id : node.entry.id, node);
		if (checkPutAway && !putAway) {
			putAway =
				node.archived === true ||
				((behind ? behind.type : node.entry.type) === "custom" && isArchiveRecord(node.entry));
		}
		for (const child of node.children) stack.push(child);
	}
	return { byId, putAway: checkPutAway ? putAway : undefined };
}

/**
 * The tree as pi's `/tree` shows it under `filter`: the shown entries, each with its shown
 * descendants re-attached to it where hidden entries were between (children stay in order).
 * Archived branches are left out unless the filter is `all` (see {@link showsArchived}).
 * Returns copies of the nodes; `keep` is shown whatever the filter says. Iterative.
 */
export function filterTree(
	roots: readonly SessionTreeNode[],
	filter: TreeFilter,
	options: { leafId?: string | null; keep?: string; archived?: "hide" | "show" } = {},
): SessionTreeNode[] {
	const hide = !showsArchived(filter, options.archived);
	return buildView(roots, (node) => treeFilterShows(node, filter, options.leafId), options.keep, hide).roots;
}

/**
 * The shown tree below `starts` (copies), and the ids shown; `always` is shown whatever `show`
 * says. With `hideArchived`, a node put away ({@link isPutAway}) is left out with everything
 * below it (a start too, unless it is `always`).
 *
 * Without `show`, when no node below `starts` is put away (or `hideArchived` is off), every
 * node is shown as it is: the nodes themselves stand for their copies (same entry, same
 * children, same keys), and the ids shown are gathered only when asked for (`shown` is then a
 * set made on its first use). A walk that only reads types and ids is the whole cost.
 * @internal
 */
export function buildView(
	starts: readonly SessionTreeNode[],
	show: ((node: SessionTreeNode) => boolean) | undefined,
	always: string | undefined,
	hideArchived: boolean,
	/** Whether a node below `starts` is put away, when the caller found out already. */
	putAway?: boolean,
): { roots: SessionTreeNode[]; shown: ReadonlySet<string>; whole: boolean } {
	if (!show && (!hideArchived || !(putAway ?? anyPutAway(starts)))) {
		return { roots: [...starts], shown: lazySubtreeIds(starts), whole: true };
	}
	const roots: SessionTreeNode[] = [];
	const shown = new Set<string>();
	const stack: Array<{ node: SessionTreeNode; holder: SessionTreeNode | undefined }> = [];
	for (const node of starts.toReversed()) stack.push({ node, holder: undefined });
	for (let item = stack.pop(); item; item = stack.pop()) {
		const { node } = item;
		if (hideArchived && isPutAway(node) && viewId(node) !== always) continue;
		let holder = item.holder;
		if (!show || viewId(node) === always || show(node)) {
			// A copy that leaves the body unparsed: ids are all the layout reads of most entries.
			const copy = copyViewNode(node);
			(holder ? holder.children : roots).push(copy);
			shown.add(viewId(node));
			holder = copy;
		}
		const { children } = node;
		for (let k = children.length - 1; k >= 0; k--) stack.push({ node: children[k] as SessionTreeNode, holder });
	}
	return { roots, shown, whole: false };
}

/** True when a node below `starts` (or one of them) is put away ({@link isPutAway}). Iterative. */
function anyPutAway(starts: readonly SessionTreeNode[]): boolean {
	const stack = [...starts];
	for (let node = stack.pop(); node; node = stack.pop()) {
		if (isPutAway(node)) return true;
		const { children } = node;
		for (let k = 0; k < children.length; k++) stack.push(children[k] as SessionTreeNode);
	}
	return false;
}

/** The ids of every node below `starts` (and theirs), as a set made the first time it is read. */
function lazySubtreeIds(starts: readonly SessionTreeNode[]): ReadonlySet<string> {
	return lazyIds(() => {
		const ids = new Set<string>();
		const stack = [...starts];
		for (let node = stack.pop(); node; node = stack.pop()) {
			ids.add(viewId(node));
			const { children } = node;
			for (let k = 0; k < children.length; k++) stack.push(children[k] as SessionTreeNode);
		}
		return ids;
	});
}

/**
 * A set of ids that `make` makes the first time it is read; `has`, when given, answers
 * membership without making it (it must answer as the made set would). @internal
 */
export function lazyIds(make: () => Set<string>, has?: (id: string) => boolean): ReadonlySet<string> {
	let ids: Set<string> | undefined;
	const made = (): Set<string> => {
		ids ??= make();
		return ids;
	};
	const set: ReadonlySet<string> = {
		get size() {
			return made().size;
		},
		has: has ?? ((id) => made().has(id)),
		forEach: (each, thisArg) => {
			for (const id of made()) each.call(thisArg, id, id, set);
		},
		entries: () => made().entries(),
		keys: () => made().keys(),
		values: () => made().values(),
		[Symbol.iterator]: () => made()[Symbol.iterator](),
	};
	return set;
}

/** Ids on the path from the root to `leafId` (none for null or an id not in `byId`). */
export function activePathIds(
	byId: ReadonlyMap<string, SessionTreeNode>,
	leafId: string | null | undefined,
): Set<string> {
	const ids = new Set<string>();
	let id = leafId ?? null;
	while (id !== null && !ids.has(id)) {
		const node = byId.get(id);
		if (!node) break;
		// The node's own id, the very string a row's lookup (viewId) gives: a lookup that finds
		// the same string is decided without reading a second one (a parent id is a copy).
		ids.add(viewId(node));
		id = viewParentId(node);
	}
	return ids;
}

/** What {@link layoutTree} lays out. */
export interface TreeLayoutOptions {
	/** The entry marked as the leaf; the active path runs from the root to it. */
	leafId?: string | null;
	/** Show only what this pi `/tree` filter shows. Default: every entry. */
	filter?: TreeFilter;
	/**
	 * Archived branches and archive records: hidden whole, or shown. Default: shown under the
	 * `all` filter, hidden otherwise (see {@link showsArchived}).
	 */
	archived?: "hide" | "show";
	/** Show only the subtree of this entry (a full id). */
	from?: string;
	/** Show this many levels below the start (the roots or `from`); deeper ones become a `more` row. */
	depth?: number;
	/** Fold straight runs of more than `foldLimit` entries to their first and last two. */
	fold?: boolean;
	/** Longest straight run left unfolded (at least 4). Default 6. */
	foldLimit?: number;
	/** Entries whose descendants are folded away (into a `more` row below them). */
	collapsed?: ReadonlySet<string>;
	/**
	 * Clip every row's `prefix` as {@link clipPrefix} with this many characters would (a whole
	 * number, at least 0), without making the whole prefix: below a deep fork a whole prefix
	 * is thousands of characters long, one per row (s100k's rows had 364 million characters of
	 * prefixes in all). Default: whole prefixes.
	 */
	maxIndent?: number;
	/**
	 * What a layout learns of the tree whatever the filter (each entry's node by id, whether any
	 * is put away, the active path): given, it is filled by the first layout and read by the
	 * next ones, which then skip those walks. The caller owns it for one tree: a new one for a
	 * tree whose nodes changed (a view that shows many filters of one tree keeps one).
	 */
	index?: TreeLayoutIndex;
}

/** See {@link TreeLayoutOptions.index}; its fields are the layouts' to fill. */
export interface TreeLayoutIndex {
	/** @internal */
	byId?: Map<string, SessionTreeNode>;
	/** @internal */
	putAway?: boolean;
	/** @internal */
	activeFor?: string | null;
	/** @internal */
	active?: Set<string>;
}

/** What {@link layoutTree} returns. */
export interface TreeLayout {
	/** The rows, top to bottom. Empty when no entry is shown. */
	readonly rows: TreeLayoutRow[];
	/** Ids on the path from the root to the leaf. */
	readonly active: ReadonlySet<string>;
	/**
	 * The row that carries the leaf marker: the leaf, or, when the filter hides it, its nearest
	 * shown ancestor; null when there is no leaf or no shown ancestor.
	 */
	readonly leafShownAt: string | null;
	/** The ids shown (rows of kind `entry`, and those folded into `fold` rows). */
	readonly shown: ReadonlySet<string>;
	/**
	 * The active path's nodes, roots first, when they are the rows' own nodes (a layout drawn once
	 * of a tree shown whole, nothing folded or collapsed, see leafPath): the rows hold them (down
	 * to the depth limit) in this order, so a renderer going down the rows tells a row on the
	 * path by comparing its node with the next of these (one comparison instead of looking its id
	 * up in {@link active}; `tree-text.ts`).
	 * @internal
	 */
	readonly activePath?: readonly SessionTreeNode[] | undefined;
}

/** The {@link RowRules} of a layout's options, for a leaf's row and active path. @internal */
export function rowRules(
	options: TreeLayoutOptions,
	leafShownAt: string | null,
	active: ReadonlySet<string>,
): RowRules {
	return {
		maxDepth: options.depth !== undefined && options.depth >= 0 ? Math.floor(options.depth) : undefined,
		collapsed: options.collapsed,
		fold: options.fold === true,
		foldLimit: Math.max(4, options.foldLimit ?? DEFAULT_FOLD_LIMIT),
		clip: options.maxIndent === undefined ? undefined : Math.max(0, Math.floor(options.maxIndent)),
		leafShownAt,
		active,
	};
}

/** A layout, and what it was made of (for tree-leaf.ts, which updates it for another leaf). @internal */
export interface LaidOutTree {
	readonly layout: TreeLayout;
	/** The shown tree: the roots of copies (or of the nodes themselves when `whole`). */
	readonly view: SessionTreeNode[];
	/** Every node of the tree by id, when the layout needed it (a `from` or a leaf). */
	readonly byId: Map<string, SessionTreeNode> | undefined;
	/** True when every node below the start is shown as it is (no copies: see `buildView`). */
	readonly whole: boolean;
}

/**
 * The rows a tree (as {@link SessionTree.getTree} returns it) is drawn as, top to bottom (see
 * the module's documentation for the rules). Linear in the number of entries, iterative; the
 * nodes are copied only where a filter or an archived branch hides some (see `buildView`).
 */
export function layoutTree(roots: readonly SessionTreeNode[], options: TreeLayoutOptions = {}): TreeLayout {
	// Nothing of this layout is kept but its rows: no index of the whole tree is needed (see leafPath).
	return layOutTree(roots, options, options.index === undefined).layout;
}

/**
 * {@link layoutTree}, with the shown tree it laid out. With `once`, the nodes by id (`byId`) are
 * not given (the caller keeps nothing for later layouts), and the path to the leaf is found
 * without them where it can be ({@link leafPath}). @internal
 */
export function layOutTree(
	roots: readonly SessionTreeNode[],
	options: TreeLayoutOptions = {},
	once = false,
): LaidOutTree {
	const leafId = options.leafId ?? null;
	const filter = options.filter;
	const hideArchived = !showsArchived(filter, options.archived);
	const shows = filter === undefined ? undefined : (node: SessionTreeNode) => treeFilterShows(node, filter, leafId);
	const cache = options.index;
	const checkPutAway = filter === undefined && hideArchived && options.from === undefined;
	const found =
		once && cache === undefined && options.from === undefined && leafId !== null
			? leafPath(roots, leafId, checkPutAway)
			: undefined;
	if (found) {
		const built = buildView(roots, shows, undefined, hideArchived, found.putAway);
		// As activePathIds makes it: the leaf first, each node's own id.
		const ids = found.path.map(viewId);
		const active = new Set<string>(ids.toReversed());
		// The nearest shown node of the path from the leaf up, as shownAncestor walks it (every
		// node of a tree shown whole is shown).
		let leafShownAt: string | null = null;
		for (let i = ids.length - 1; i >= 0 && leafShownAt === null; i--) {
			const id = ids[i] as string;
			if (built.whole || built.shown.has(id)) leafShownAt = id;
		}
		// Every node of the path up to the depth limit is a row of its own, in the path's order,
		// unless runs are folded or entries collapsed.
		const rowsHoldPath = built.whole && options.fold !== true && (options.collapsed?.size ?? 0) === 0;
		return layRowsOf(options, built, active, leafShownAt, undefined, rowsHoldPath ? found.path : undefined);
	}
	// One walk indexes the nodes and, for the whole tree, finds whether any is put away.
	let indexed: ReturnType<typeof indexTree> | undefined;
	if (options.from !== undefined || leafId !== null) {
		if (cache?.byId !== undefined && cache.putAway !== undefined) {
			indexed = { byId: cache.byId, putAway: checkPutAway ? cache.putAway : undefined };
		} else if (cache !== undefined) {
			// Kept for the next layouts: both answers, whatever this one needs.
			const whole = indexTree(roots, true);
			cache.byId = whole.byId;
			cache.putAway = whole.putAway;
			indexed = { byId: whole.byId, putAway: checkPutAway ? whole.putAway : undefined };
		} else indexed = indexTree(roots, checkPutAway);
	}
	const byId = indexed?.byId ?? new Map<string, SessionTreeNode>();
	const from = options.from === undefined ? undefined : byId.get(options.from);
	const starts: readonly SessionTreeNode[] = options.from === undefined ? roots : from ? [from] : [];
	const built = buildView(starts, shows, from === undefined ? undefined : viewId(from), hideArchived, indexed?.putAway);
	let active: Set<string>;
	if (cache?.active !== undefined && cache.activeFor === leafId) active = cache.active;
	else {
		active = activePathIds(byId, leafId);
		if (cache !== undefined && indexed !== undefined) {
			cache.active = active;
			cache.activeFor = leafId;
		}
	}
	// Every node of the tree is shown: the index says which ids are (no set of them to make).
	const { shown } = built;
	const isShown =
		built.whole && options.from === undefined ? (id: string) => byId.has(id) : (id: string) => shown.has(id);
	return layRowsOf(options, built, active, shownAncestor(byId, leafId, isShown), indexed?.byId);
}

/** The rows of the shown tree `built` (see buildView), with the active path and the leaf's row decided. */
function layRowsOf(
	options: TreeLayoutOptions,
	built: ReturnType<typeof buildView>,
	active: Set<string>,
	leafShownAt: string | null,
	byId: Map<string, SessionTreeNode> | undefined,
	activePath?: readonly SessionTreeNode[],
): LaidOutTree {
	const { roots: view, shown, whole } = built;
	const rows: TreeLayoutRow[] = [];
	const laidOut = { layout: { rows, active, leafShownAt, shown, activePath }, view, byId, whole };
	if (view.length === 0) return laidOut;
	const stack: Pending[] = [];
	const rules = rowRules(options, leafShownAt, active);
	pushChildren(rules, stack, view, undefined, 0);
	layRows(rules, stack, rows);
	return laidOut;
}

/**
 * The path from a root to the node of `leafId`, roots first, as the views nest (empty when no
 * node has that id), and with `checkPutAway` whether any node is put away ({@link isPutAway}):
 * one walk that indexes nothing. For s100k an index of every node and the active path looked
 * up in it took 100–110 ms of a 200 ms layout; `tree` draws its layout once and keeps nothing.
 *
 * Undefined (the caller indexes the tree) unless every node walked is a session's tree node
 * (ids unique), and each node of the path names the one above it as its parent, the root none:
 * then the path is exactly the one {@link activePathIds} walks through the parent ids.
 * @internal
 */
export function leafPath(
	roots: readonly SessionTreeNode[],
	leafId: string,
	checkPutAway: boolean,
): { path: SessionTreeNode[]; putAway: boolean | undefined } | undefined {
	const stack: SessionTreeNode[] = [];
	const depths: number[] = [];
	for (let k = roots.length - 1; k >= 0; k--) {
		stack.push(roots[k] as SessionTreeNode);
		depths.push(0);
	}
	// The views from a root to the one being looked at.
	const path: SessionTreeNode[] = [];
	let found: SessionTreeNode[] | undefined;
	let putAway = false;
	for (let view = stack.pop(); view; view = stack.pop()) {
		const depth = depths.pop() as number;
		const behind = viewNodeOf(view);
		if (!behind) return undefined;
		path.length = depth;
		path.push(view);
		if (found === undefined && behind.id === leafId) found = path.slice();
		if (checkPutAway && !putAway)
			putAway = view.archived === true || (behind.type === "custom" && isArchiveRecord(view.entry));
		if (found !== undefined && (!checkPutAway || putAway)) break;
		const { children } = view;
		for (let k = children.length - 1; k >= 0; k--) {
			stack.push(children[k] as SessionTreeNode);
			depths.push(depth + 1);
		}
	}
	found ??= [];
	let parent: string | null = null;
	for (const view of found) {
		const behind = viewNodeOf(view) as NonNullable<ReturnType<typeof viewNodeOf>>;
		if (behind.declaredParentId !== parent) return undefined;
		parent = behind.id;
	}
	return { path: found, putAway: checkPutAway ? putAway : undefined };
}

/**
 * The row that carries the leaf marker: the leaf, or, when the filter hides it, its nearest
 * shown ancestor (as pi selects that one); null when none is shown. @internal
 */
export function shownAncestor(
	byId: ReadonlyMap<string, SessionTreeNode>,
	leafId: string | null,
	isShown: (id: string) => boolean,
): string | null {
	let at = leafId;
	// A walk of more steps than there are nodes went round: parent ids that name each other in a
	// circle (nodes a caller made, or a damaged file), none of them shown. (It looped for ever.)
	for (let steps = 0; at !== null && !isShown(at); steps++) {
		if (steps > byId.size) return null;
		const node = byId.get(at);
		at = node ? viewParentId(node) : null;
	}
	return at;
}

/**
 * Whether an entry row carries the active-path mark (`• `): it is on the active path and
 * below a fork (above the first fork every entry is on every path).
 */
export function showsActiveMark(row: TreeEntryRow, active: ReadonlySet<string>): boolean {
	return row.prefix !== "" && active.has(viewId(row.node));
}

/**
 * Caps an indentation at `max` characters: a deeper one keeps its rightmost `max` characters
 * (its last levels and the connector) after `«N» `, N the row's depth (its levels of
 * indentation, 4 characters each), so that deep rows keep room for their text and still say
 * how deep they are.
 */
export function clipPrefix(prefix: string, max: number): string {
	if (prefix.length <= max) return prefix;
	return `«${Math.ceil(prefix.length / TREE_PIPE.length)}» ${prefix.slice(prefix.length - max)}`;
}
