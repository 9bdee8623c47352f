/**
 * The import of a linked conversation (a ChatGPT conversation's `mapping`) a batch at a time:
 * its nodes are linked, ordered and checked once (every problem reported before anything is
 * converted), and its records are then made as they are written, a batch at a time, and let go.
 * A conversation whose root has 200,000 children so never holds 200,000 entries at once, and
 * the garbage collector finds the entries of a batch young and cheap to free, where a whole
 * import keeps every one alive until the end (docs/performance.md, "The ChatGPT import").
 *
 * Ids are derived in conversion order (`DerivedIds`), so every conversion starts from fresh
 * ids and gives the same records: a batched write, `records` made whole, and the probe of
 * `holdsConversation` agree record for record.
 */

import { asRawRecord, asRawRecords, type RawRecord } from "../core/records.js";
import type { ToolPairingReport } from "../core/tool-pairing.js";
import type { SessionEntry, SessionHeader } from "../core/types.js";
import type { DerivedIds } from "./common.js";
import { toolPairingOfRecords } from "./context-check.js";
import { laterTime, leafRecordFor, needsLeafRecord } from "./leaf-record.js";
import {
	type ConvertedNode,
	convertInOrder,
	type FirstRecords,
	type LinkedNodes,
	type NodePlace,
	ROOT,
} from "./linked-nodes.js";
import type { BatchedImport, ImportFormat, ImportSkip } from "./types.js";

/** One conversion of a linked conversation: fresh ids, the title they begin with, and the converter using them. */
export interface LinkedRun {
	readonly ids: DerivedIds;
	readonly first: FirstRecords;
	readonly convert: (position: number, at: NodePlace) => ConvertedNode;
}

/** A linked conversation, linked, ordered and checked (see the module comment), ready to convert. */
export interface LinkedConversation {
	readonly format: ImportFormat;
	readonly header: SessionHeader;
	readonly skipped: readonly ImportSkip[];
	readonly state?: Readonly<Record<string, unknown>>;
	readonly nodes: LinkedNodes;
	/** The conversion order (`walkOrder`), cycles cut. */
	readonly order: Int32Array;
	/** The position of the node that becomes the leaf. */
	readonly current: number;
	/** A new conversion, from fresh ids. */
	start(): LinkedRun;
}

/** The entry types that make a session a conversation (see `holdsConversation` in index.ts). */
const CONVERSATION = new Set<string>(["message", "custom_message", "compaction"]);

/** A linked conversation imported a batch at a time: a {@link BatchedImport}. */
export class LinkedImport implements BatchedImport {
	readonly format: ImportFormat;
	readonly header: SessionHeader;
	readonly state?: Readonly<Record<string, unknown>>;
	private skips: readonly ImportSkip[];
	/** Every record, once asked for whole. */
	private made: { records: SessionEntry[]; leafId: string } | undefined;
	/** The leaf's id and its branch's entries (root first), once the records were written a batch at a time. */
	private written: { leafId: string; branch: SessionEntry[] } | undefined;

	constructor(private readonly conversation: LinkedConversation) {
		this.format = conversation.format;
		this.header = conversation.header;
		if (conversation.state !== undefined) this.state = conversation.state;
		this.skips = conversation.skipped;
	}

	get skipped(): readonly ImportSkip[] {
		return this.skips;
	}

	/** Puts what the source left out around this conversation (other conversations of its file) before its own skips. */
	prependSkipped(skips: readonly ImportSkip[]): void {
		this.skips = [...skips, ...this.skips];
	}

	/** Every record, converted on first use and kept (for what compares them with a stored session). */
	get records(): readonly SessionEntry[] {
		return this.whole().records;
	}

	get leafId(): string {
		return this.written?.leafId ?? this.whole().leafId;
	}

	private whole(): { records: SessionEntry[]; leafId: string } {
		if (!this.made) {
			const { nodes, order, current } = this.conversation;
			const run = this.conversation.start();
			const entryOf = new Array<string | undefined>(nodes.parent.length);
			const records: SessionEntry[] = [];
			for (const node of convertInOrder(nodes, order, run.first, run.convert, entryOf)) {
				for (const entry of node.entries) records.push(entry);
			}
			this.made = { records, leafId: entryOf[current] as string };
		}
		return this.made;
	}

	*recordsAfterHeader(size: number): Generator<RawRecord[]> {
		const { nodes, order, current } = this.conversation;
		const run = this.conversation.start();
		const entryOf = new Array<string | undefined>(nodes.parent.length);
		// The leaf's branch, by position: its entries are kept for the tool pairing, the rest let go.
		const onBranch = new Uint8Array(nodes.parent.length);
		for (let at = current; at !== ROOT && onBranch[at] === 0; at = nodes.parent[at] as number) onBranch[at] = 1;
		const branch: SessionEntry[] = [];
		let latest = this.header.timestamp;
		let last: string | null = null;
		let batch: RawRecord[] = [];
		for (const node of convertInOrder(nodes, order, run.first, run.convert, entryOf)) {
			// The title (no node's, at ROOT) is every root's parent, so on the branch.
			const kept = node.position === ROOT || onBranch[node.position] === 1;
			for (const entry of node.entries) {
				if (kept) branch.push(entry);
				latest = laterTime(latest, entry.timestamp);
				last = entry.id;
				batch.push(asRawRecord(entry));
				if (batch.length >= size) {
					yield batch;
					batch = [];
				}
			}
		}
		const leafId = entryOf[current] as string;
		const imported = { header: this.header, state: this.state, leafId };
		if (needsLeafRecord(imported, last)) batch.push(leafRecordFor(imported, (id) => run.ids.has(id), latest));
		if (batch.length > 0) yield batch;
		this.written = { leafId, branch };
	}

	holdsConversation(): boolean {
		const { nodes, order } = this.conversation;
		const run = this.conversation.start();
		// Converted lazily: the first entry a model is sent ends the probe.
		for (const node of convertInOrder(nodes, order, run.first, run.convert)) {
			if (node.entries.some((entry) => CONVERSATION.has(entry.type))) return true;
		}
		return false;
	}

	toolPairing(location: string): ToolPairingReport {
		const header = asRawRecord(this.header);
		if (this.written) {
			return toolPairingOfRecords([header, ...asRawRecords(this.written.branch)], location, this.leafId);
		}
		const { records, leafId } = this.whole();
		return toolPairingOfRecords([header, ...asRawRecords(records)], location, leafId);
	}

	close(): void {
		// Nothing is held open: the source's text was parsed whole.
	}
}
