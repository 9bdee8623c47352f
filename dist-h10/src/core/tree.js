/**
 * The in-memory entry tree: an index by id, a children index, the leaf pointer, labels and the
 * session name. Pure: no I/O. Every walk is iterative, so a 200,000-deep chain or a node with
 * 200,000 children cannot overflow the stack.
 */
import { SessionTreeError } from "./errors.js";
/**
 * An indexed entry. `parent` is the resolved parent (after lenient bridging, if any). The
 * entry itself may not be parsed yet (see `lazy.ts`): `id`, `type`, `timestamp` and `role`
 * are always at hand, `entry` parses the body on first use.
 */
export class TreeNode {
    id;
    type;
    timestamp;
    role;
    order;
    envelope;
    bodies;
    parent = undefined;
    /** Children in file order; created on first child. */
    children = undefined;
    value;
    constructor(id, type, timestamp, 
    /** The message role, when known without parsing (always, once parsed). */
    role, 
    /** Position in file order among the tree's entries. */
    order, value, 
    /** Where the unparsed body is, for a lazily loaded entry. */
    envelope, bodies) {
        this.id = id;
        this.type = type;
        this.timestamp = timestamp;
        this.role = role;
        this.order = order;
        this.envelope = envelope;
        this.bodies = bodies;
        this.value = value;
    }
    /** A node for a parsed entry. */
    static of(entry, order) {
        const message = entry.type === "message" ? entry.message : undefined;
        const role = typeof message?.role === "string" ? message.role : undefined;
        return new TreeNode(entry.id, entry.type, entry.timestamp, role, order, entry, undefined, undefined);
    }
    /** A node whose body is parsed on first use. */
    static lazy(envelope, bodies, order) {
        const { id, type, timestamp, role } = envelope;
        return new TreeNode(id, type, timestamp, role, order, undefined, envelope, bodies);
    }
    /** The entry; parses its line the first time for a lazily loaded node. */
    get entry() {
        if (this.value === undefined)
            this.value = this.bodies.load([this.envelope])[0];
        return this.value;
    }
    /** True once the entry is parsed. */
    get loaded() {
        return this.value !== undefined;
    }
    /** The entry if it is parsed, without parsing it. */
    get loadedEntry() {
        return this.value;
    }
    /**
     * Parses the bodies of many nodes in one pass over the store (instead of one read each).
     * @internal
     */
    static load(nodes) {
        const pending = new Map();
        for (const node of nodes) {
            if (node.value !== undefined || !node.bodies)
                continue;
            const list = pending.get(node.bodies);
            if (list)
                list.push(node);
            else
                pending.set(node.bodies, [node]);
        }
        for (const [bodies, list] of pending) {
            const entries = bodies.load(list.map((node) => node.envelope));
            for (let i = 0; i < list.length; i++)
                list[i].value = entries[i];
        }
    }
}
/**
 * The entry tree of one session.
 *
 * Construct it with {@link SessionTree.empty} and {@link SessionTree.insert}, or through the
 * loader in `load.ts`, which also links entries whose parents come later in the file.
 */
export class SessionTree {
    header;
    nodes = new Map();
    ordered = [];
    rootNodes = [];
    labels = new Map();
    name;
    leaf;
    constructor(header) {
        this.header = header;
    }
    /** A tree with no entries. */
    static empty(header) {
        return new SessionTree(header);
    }
    /** Number of entries. */
    get size() {
        return this.ordered.length;
    }
    /** True when an entry has this id. */
    has(id) {
        return this.nodes.has(id);
    }
    /** The entry with this id (parsed on first use). */
    getEntry(id) {
        return this.nodes.get(id)?.entry;
    }
    /** The indexed node with this id (for walks by other core modules). */
    getNode(id) {
        return this.nodes.get(id);
    }
    /** The resolved parent id: differs from `entry.parentId` only where a lenient load bridged a gap. */
    getParentId(id) {
        const node = this.nodes.get(id);
        if (!node)
            return undefined;
        return node.parent ? node.parent.id : null;
    }
    /**
     * The nodes in file order (the tree's own array: do not change it).
     * @internal
     */
    nodesInOrder() {
        return this.ordered;
    }
    /** All entries in file order. */
    getEntries() {
        TreeNode.load(this.ordered);
        return this.ordered.map((node) => node.entry);
    }
    /** The leaf id, or `null` when the leaf is before the first entry. */
    getLeafId() {
        return this.leaf ? this.leaf.id : null;
    }
    /** The leaf node, if the leaf is set. */
    getLeafNode() {
        return this.leaf;
    }
    /** The leaf entry, if the leaf is set. */
    getLeafEntry() {
        return this.leaf?.entry;
    }
    /** Moves the leaf pointer. Throws ENTRY_NOT_FOUND for an unknown id. */
    setLeaf(id) {
        if (id === null) {
            this.leaf = undefined;
            return;
        }
        this.leaf = this.requireNode(id);
    }
    /** Direct children of an entry (or the roots for `null`), in file order. O(children). */
    getChildren(id) {
        const list = id === null ? this.rootNodes : this.nodes.get(id)?.children;
        if (!list)
            return [];
        TreeNode.load(list);
        return list.map((node) => node.entry);
    }
    /** The label in effect for an entry. */
    getLabel(id) {
        return this.labels.get(id)?.label;
    }
    /** Every label in effect, by target id, in the order they were set. */
    getLabels() {
        return this.labels;
    }
    /** The session name from the latest `session_info` entry in the file. */
    getSessionName() {
        return this.name;
    }
    /**
     * Adds an entry whose parent is already in the tree (or `null`), and makes it the leaf.
     * Throws DUPLICATE_ID or MISSING_PARENT; the tree is unchanged then.
     */
    insert(entry) {
        this.leaf = this.attach(entry, entry.parentId);
    }
    /**
     * Adds an entry under `parentId` (which may differ from `entry.parentId`, e.g. when it names
     * a persisted-leaf record) without moving the leaf.
     * Throws DUPLICATE_ID or MISSING_PARENT; the tree is unchanged then.
     */
    attach(entry, parentId) {
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
    addNode(entry) {
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
    addLazyNode(envelope, bodies) {
        const node = TreeNode.lazy(envelope, bodies, this.ordered.length);
        this.nodes.set(envelope.id, node);
        this.ordered.push(node);
        return node;
    }
    /**
     * Links a node to its parent (or makes it a root). Call in file order so children stay in
     * file order.
     * @internal
     */
    link(node, parent) {
        node.parent = parent;
        if (!parent) {
            this.rootNodes.push(node);
        }
        else if (parent.children) {
            parent.children.push(node);
        }
        else {
            parent.children = [node];
        }
    }
    /** Tracks labels and the name, which depend on file order only. */
    applyState(entry) {
        if (entry.type === "label") {
            const { targetId, label } = entry;
            if (label)
                this.labels.set(targetId, { label, timestamp: entry.timestamp });
            else
                this.labels.delete(targetId);
        }
        else if (entry.type === "session_info") {
            const name = entry.name;
            this.name = typeof name === "string" ? name.trim() || undefined : undefined;
        }
    }
    /**
     * Entries from the root down to `fromId` (default: the leaf). Linear in the depth.
     * Throws ENTRY_NOT_FOUND for an unknown id.
     */
    getBranch(fromId) {
        const start = fromId === undefined ? this.leaf : fromId === null ? undefined : this.requireNode(fromId);
        // One walk when every entry on the path is parsed (the usual case after a resume).
        const entries = [];
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
     * The nodes from the root down to `fromId` (default: the leaf), without parsing any body.
     * Throws ENTRY_NOT_FOUND for an unknown id.
     */
    getPath(fromId) {
        const start = fromId === undefined ? this.leaf : fromId === null ? undefined : this.requireNode(fromId);
        const path = [];
        for (let node = start; node; node = node.parent)
            path.push(node);
        return path.reverse();
    }
    /** Ids of all entries that have no children, sorted by code unit. */
    listBranches() {
        const ids = [];
        for (const node of this.ordered)
            if (!node.children)
                ids.push(node.id);
        return ids.sort(compareCodeUnits);
    }
    /**
     * The tree as nested nodes: roots in file order, children oldest first (a stable sort by
     * the instant of `timestamp`, as pi's), labels attached. Built without recursion. Each
     * node's `entry` is parsed when it is first read (a getter), so walking the shape of a
     * large tree parses nothing.
     */
    getTree() {
        // Two linear passes over the file order: one output node per entry, then children in
        // their display order. No map, no recursion.
        const out = new Array(this.ordered.length);
        const labelled = this.labels.size > 0;
        for (let i = 0; i < this.ordered.length; i++) {
            const node = this.ordered[i];
            const made = new TreeViewNode(node);
            if (labelled) {
                const label = this.labels.get(node.id);
                if (label) {
                    made.label = label.label;
                    made.labelTimestamp = label.timestamp;
                }
            }
            out[i] = made;
        }
        for (let i = 0; i < this.ordered.length; i++) {
            const children = this.ordered[i].children;
            if (!children)
                continue;
            const target = out[i].children;
            for (const child of sortedChildren(children))
                target.push(out[child.order]);
        }
        return this.rootNodes.map((root) => out[root.order]);
    }
    /**
     * The tree in display order (depth-first, pre-order, children as in {@link getTree}) as
     * flat rows. Iterative.
     */
    flatten(rootId) {
        const rows = [];
        const starts = rootId === undefined ? this.rootNodes : [this.requireNode(rootId)];
        const stack = [];
        for (let i = starts.length - 1; i >= 0; i--)
            stack.push({ node: starts[i], depth: 0 });
        for (let item = stack.pop(); item; item = stack.pop()) {
            const { node, depth } = item;
            const row = new FlatRow(node, depth);
            const label = this.labels.get(node.id)?.label;
            if (label !== undefined)
                row.label = label;
            rows.push(row);
            if (!node.children)
                continue;
            const children = sortedChildren(node.children);
            for (let i = children.length - 1; i >= 0; i--)
                stack.push({ node: children[i], depth: depth + 1 });
        }
        return rows;
    }
    requireNode(id) {
        const node = this.nodes.get(id);
        if (!node)
            throw new SessionTreeError("ENTRY_NOT_FOUND", `no entry with id ${id}`);
        return node;
    }
}
/** Orders by code unit, as JavaScript's default sort and pi's expected `leaves` do. */
export function compareCodeUnits(a, b) {
    return a < b ? -1 : a > b ? 1 : 0;
}
/**
 * `entry` as an own, enumerable property that parses the entry on first read: spreading,
 * `Object.keys`, `JSON.stringify` and deep comparisons see it as the data property it stands
 * for. Assigning to it replaces it with a plain value.
 */
function lazyEntryProperty(read) {
    return {
        get() {
            return read(this);
        },
        set(value) {
            Object.defineProperty(this, "entry", { value, writable: true, enumerable: true, configurable: true });
        },
        enumerable: true,
        configurable: true,
    };
}
/** A node of {@link SessionTree.getTree}: `entry` is parsed on first read. */
class TreeViewNode {
    #node;
    static #entry = lazyEntryProperty((target) => target.#node.entry);
    constructor(node) {
        this.#node = node;
        // Defined first, so that keys come in pi's order: entry, children, label, labelTimestamp.
        Object.defineProperty(this, "entry", TreeViewNode.#entry);
        this.children = [];
    }
}
/** A row of {@link SessionTree.flatten}: `entry` is parsed on first read. */
class FlatRow {
    #node;
    static #entry = lazyEntryProperty((target) => target.#node.entry);
    constructor(node, depth) {
        this.#node = node;
        Object.defineProperty(this, "entry", FlatRow.#entry);
        this.depth = depth;
    }
}
/** Children oldest first; `Array.prototype.sort` is stable, so equal instants keep file order. */
function sortedChildren(children) {
    if (children.length < 2)
        return children;
    const keyed = children.map((node) => ({ node, time: Date.parse(node.timestamp) }));
    keyed.sort((a, b) => a.time - b.time);
    return keyed.map((k) => k.node);
}
//# sourceMappingURL=tree.js.map