/**
 * The tree's node: one per entry, with the links of the tree, and the entry or where its body
 * is. A lazily read entry's node is the store's {@link Envelope} of the line (a subclass, here
 * beside it: the node's base class and the envelope refer to each other). What reads a body is
 * known only as {@link EntryBodies} (`LazyBodies` of lazy.ts), so the tree imports nothing that
 * reads: lazy.ts and tree.ts both import this module, and not each other.
 */

import { HIDDEN, OTHER_ROLE, SHOWN, type ShownAnswer } from "./shown-bytes.js";
import type { PathStep, SessionEntry } from "./types.js";

/** What a lazily read node's body is read from (`LazyBodies`, lazy.ts): entries for envelopes, in order. */
export interface EntryBodies {
	/** The entries of these envelopes; with `lines`, each line's stored bytes where the entry is their parse (`LazyBodies.load`). */
	load(envelopes: readonly Envelope[], lines?: Array<Uint8Array | undefined>): SessionEntry[];
	/** Whether pi's filters let each envelope's assistant message through, from its bytes (`LazyBodies.shown`). */
	shown?(envelopes: readonly Envelope[]): ShownAnswer[];
}

/**
 * An indexed entry. `parent` is the resolved parent (after lenient bridging, if any). The
 * entry itself may not be parsed yet (see `lazy.ts`): `id`, `type`, `timestamp` and `role`
 * are always at hand, `entry` parses the body on first use.
 *
 * A lazily read entry is its own node: the store's {@link Envelope} of the line (a subclass)
 * joins the tree as it is. Opening a large session thus allocates nothing per line once the
 * lines are read; a second object per line, made in one burst after the read, used to leave
 * megabytes of young objects that the garbage collector then copied during the first appends.
 */
export class TreeNode {
	parent: TreeNode | undefined = undefined;
	/**
	 * The children in file order, as a list through `nextSibling` (see {@link childNodes}):
	 * linking a child writes two fields and allocates nothing (an array per parent, made as
	 * the nodes are linked at the end of an open, was 5 MB of young objects for 100,000 entries).
	 */
	firstChild: TreeNode | undefined = undefined;
	/** The last child, where the next one is linked. */
	lastChild: TreeNode | undefined = undefined;
	/** The next child of the same parent, in file order. */
	nextSibling: TreeNode | undefined = undefined;
	/** Position in file order among the tree's entries; -1 until the node joins a tree. */
	order = -1;
	private value: SessionEntry | undefined;
	/** Where an unparsed body is read from, once a lazily read node joined a tree. */
	private bodies: EntryBodies | undefined = undefined;
	/**
	 * For an unparsed assistant message, what its bytes said of pi's filters (see
	 * {@link decideShown}): 0 not asked yet, else a `ShownAnswer` of shown-bytes.ts.
	 */
	private shownBytes = 0;

	protected constructor(
		readonly id: string,
		readonly type: string,
		readonly timestamp: string,
		/** The message role, when known without parsing (always, for a node made from a parsed entry). */
		readonly role: string | undefined,
		value: SessionEntry | undefined,
	) {
		this.value = value;
	}

	/** A node for a parsed entry. */
	static of(entry: SessionEntry, order: number): TreeNode {
		const message = entry.type === "message" ? entry.message : undefined;
		const role = typeof message?.role === "string" ? message.role : undefined;
		const node = new TreeNode(entry.id, entry.type, entry.timestamp, role, entry);
		node.order = order;
		return node;
	}

	/**
	 * Where the unparsed body is, for a lazily read entry: the node itself, when it is an
	 * {@link Envelope}; undefined for a node made from a parsed entry.
	 */
	get envelope(): Envelope | undefined {
		return undefined;
	}

	/**
	 * Makes a lazily read node (an envelope) a node of a tree, at `order`, its body read from
	 * `bodies` on first use. A node that is in a tree already (an envelope applied twice) is
	 * not changed: a copy of it joins instead.
	 * @internal
	 */
	static adopt(envelope: Envelope, bodies: EntryBodies, order: number): TreeNode {
		const node = envelope.order === -1 ? envelope : envelope.copy();
		node.bodies = bodies;
		node.order = order;
		return node;
	}

	/** The entry; parses its line the first time for a lazily loaded node. */
	get entry(): SessionEntry {
		return this.value ?? this.parse();
	}

	/** Parses the body of a lazily loaded node (every node has an entry, or a body to parse). */
	private parse(): SessionEntry {
		if (this.bodies && this.envelope) [this.value] = this.bodies.load([this.envelope]);
		if (this.value === undefined) throw new Error(`session-tree: entry ${this.id} has no body to parse`);
		return this.value;
	}

	/** The children in file order, as a new array. O(children). */
	childNodes(): TreeNode[] {
		const out: TreeNode[] = [];
		for (let child = this.firstChild; child; child = child.nextSibling) out.push(child);
		return out;
	}

	/** True once the entry is parsed. */
	get loaded(): boolean {
		return this.value !== undefined;
	}

	/** The entry if it is parsed, without parsing it. */
	get loadedEntry(): SessionEntry | undefined {
		return this.value;
	}

	/**
	 * The entry without keeping it: a body not parsed yet is parsed for the caller and left
	 * unparsed in the tree (each call parses it again), so that a walk over every entry of a
	 * large session (a printed tree) holds one body at a time instead of all of them.
	 */
	peekEntry(): SessionEntry {
		if (this.value !== undefined) return this.value;
		const envelope = this.envelope;
		const [entry] = this.bodies && envelope ? this.bodies.load([envelope]) : [];
		return entry ?? this.parse();
	}

	/**
	 * {@link peekEntry} of many nodes at once: the bodies not parsed yet are read in one pass
	 * over their store (by offset, nearby lines together, as {@link load} reads them) and
	 * parsed for the caller, in the order given, without being kept in the tree. With `lines`,
	 * `lines[i]` holds the stored bytes of the entry's line when it was parsed from them here
	 * (see `EntryBodies.load`), else undefined.
	 * @internal
	 */
	static peekMany(nodes: readonly TreeNode[], lines?: Array<Uint8Array | undefined>): SessionEntry[] {
		const out = new Array<SessionEntry>(nodes.length);
		let bodies: EntryBodies | undefined;
		const at: number[] = [];
		const envelopes: Envelope[] = [];
		for (let i = 0; i < nodes.length; i++) {
			const node = nodes[i] as TreeNode;
			const envelope = node.value === undefined ? node.envelope : undefined;
			// One store for the batch (a tree's nodes share theirs); any other node alone, below.
			if (envelope && node.bodies && (bodies === undefined || node.bodies === bodies)) {
				bodies = node.bodies;
				at.push(i);
				envelopes.push(envelope);
			}
		}
		const texts: Array<Uint8Array | undefined> | undefined = lines === undefined ? undefined : [];
		const parsed = bodies ? bodies.load(envelopes, texts) : [];
		if (lines !== undefined) lines.length = nodes.length;
		for (let k = 0; k < at.length; k++) {
			const entry = parsed[k];
			if (entry !== undefined) out[at[k] as number] = entry;
			if (lines !== undefined) lines[at[k] as number] = texts?.[k];
		}
		for (let i = 0; i < nodes.length; i++) if (out[i] === undefined) out[i] = (nodes[i] as TreeNode).peekEntry();
		return out;
	}

	/**
	 * Whether pi's filters let this assistant message through (it has text, or stopped with an
	 * error or was aborted; see `treeFilterShows`), as its bytes said when {@link decideShown}
	 * read them: undefined when not asked, not decided from the bytes, or once the entry is
	 * parsed (the parsed entry is then the answer). True and false are exact: what the parsed
	 * entry would say, and the parse would report no problem.
	 */
	get assistantShown(): boolean | undefined {
		if (this.value !== undefined) return undefined;
		return this.shownBytes === SHOWN ? true : this.shownBytes === HIDDEN ? false : undefined;
	}

	/**
	 * True for an unparsed message of another role than "assistant" whose bytes
	 * {@link decideShown} found to be a valid entry of the role its envelope says: the filters
	 * can read the role of the envelope (`role`) for it, as they would read the parsed one.
	 */
	get roleChecked(): boolean {
		return this.value === undefined && this.shownBytes === OTHER_ROLE;
	}

	/**
	 * Decides {@link assistantShown} (and {@link roleChecked}) for the unparsed messages among
	 * `nodes` not asked before, in one pass over their store's bytes (nothing parsed or kept but
	 * the answer): what a view that filters many nodes asks before laying them out, so that the
	 * filters parse no body and the bodies of the rows they hide are never parsed.
	 * @internal
	 */
	static decideShown(nodes: Iterable<TreeNode>): void {
		const pending = new Map<EntryBodies, { nodes: TreeNode[]; envelopes: Envelope[] }>();
		for (const node of nodes) {
			const { bodies, envelope } = node;
			if (node.value !== undefined || node.shownBytes !== 0 || !bodies?.shown || !envelope) continue;
			if (node.type !== "message" || node.role === undefined) continue;
			const batch = pending.get(bodies);
			if (batch) {
				batch.nodes.push(node);
				batch.envelopes.push(envelope);
			} else {
				pending.set(bodies, { nodes: [node], envelopes: [envelope] });
			}
		}
		for (const [bodies, batch] of pending) {
			const answers = bodies.shown?.(batch.envelopes) ?? [];
			for (let i = 0; i < batch.nodes.length; i++) (batch.nodes[i] as TreeNode).shownBytes = answers[i] ?? 0;
		}
	}

	/**
	 * Takes an answer of {@link decideShown} from elsewhere (the page of an export: the answers
	 * of its parse of the same line, render/shown-hints.ts), for an unparsed message not asked
	 * yet: {@link SHOWN} or {@link HIDDEN} when its envelope says "assistant", {@link OTHER_ROLE}
	 * for another role. The caller vouches that the answer is what the parse would give.
	 * @internal
	 */
	knowShown(answer: ShownAnswer): void {
		if (this.value !== undefined || this.shownBytes !== 0 || this.type !== "message" || this.role === undefined) return;
		const assistant = this.role === "assistant";
		if (answer === OTHER_ROLE ? !assistant : assistant && (answer === SHOWN || answer === HIDDEN))
			this.shownBytes = answer;
	}

	/** The parent id the entry names (before any lenient bridging), known without parsing it. */
	get declaredParentId(): string | null {
		const envelope = this.envelope;
		return envelope ? envelope.parentId : this.entry.parentId;
	}

	/**
	 * Parses the bodies of many nodes in one pass over the store (instead of one read each).
	 * Steps that are not tree nodes (see `stepsOf`) hold parsed entries already: skipped.
	 * @internal
	 */
	static load(steps: readonly PathStep[]): void {
		const pending = new Map<EntryBodies, { nodes: TreeNode[]; envelopes: Envelope[] }>();
		for (const node of steps) {
			if (!(node instanceof TreeNode) || node.value !== undefined || !node.bodies || !node.envelope) continue;
			const batch = pending.get(node.bodies);
			if (batch) {
				batch.nodes.push(node);
				batch.envelopes.push(node.envelope);
			} else {
				pending.set(node.bodies, { nodes: [node], envelopes: [node.envelope] });
			}
		}
		for (const [bodies, { nodes, envelopes }] of pending) {
			bodies.load(envelopes).forEach((entry, i) => {
				const node = nodes[i];
				if (node) node.value = entry;
			});
		}
	}
}

/**
 * What is known of a line without parsing it, and where it is. It is also the loader's
 * `ParsedLine` for that line (its `envelope` is itself) and, once the loader added it to a
 * tree, that entry's {@link TreeNode}: a million lines cost one object each.
 */
export class Envelope extends TreeNode {
	constructor(
		type: string,
		id: string,
		readonly parentId: string | null,
		timestamp: string,
		/** The message role, for `message` entries whose role could be read in place. */
		role: string | undefined,
		/** Byte offset of the line in its store. */
		readonly offset: number,
		/** Byte length of the line, without its newline. */
		readonly length: number,
		/** 1-based line number, for messages. */
		readonly line: number,
		/**
		 * For a `message` line as pi writes them, its content right after its role and its own
		 * timestamp as the last key of the message and of the line
		 * (`"message":{"role":"user","content":…,"timestamp":1736157600000}}`): that number, read in
		 * place; else undefined. (Nothing checks that the rest of the line is JSON.)
		 */
		readonly endTimestamp?: number,
	) {
		super(id, type, timestamp, role, undefined);
	}

	/** The line as a `ParsedLine` (this envelope), and the node's body's place: itself. */
	override get envelope(): Envelope {
		return this;
	}

	/** The same line, in no tree yet. */
	copy(): Envelope {
		const { type, id, parentId, timestamp, role, offset, length, line, endTimestamp } = this;
		return new Envelope(type, id, parentId, timestamp, role, offset, length, line, endTimestamp);
	}
}
