/**
 * What the conformance suite checks with: records and entries to write, reading records back
 * (envelopes through the read's source), outcome checks, and a store wrapper that records
 * what a store answered. Only the public contract is used, so any store can be checked.
 */

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { RawRecord } from "../core/records.js";
import { type TreeRow, treeRowsOf } from "../core/tree.js";
import type { MessageEntry, SessionHeader } from "../core/types.js";
import { errorCode, isRawRecord } from "../core/validate.js";
import type { Session } from "../session.js";
import type {
	AppendOutcome,
	ReplaceOutcome,
	SessionStore,
	StoreCapabilities,
	StorePosition,
	StoreRead,
	TailRead,
} from "../storage/store.js";

/** A current-version header with a fresh id, keys in pi's order. */
export function newHeader(cwd = "/conformance"): SessionHeader {
	return { type: "session", version: 3, id: randomUUID(), timestamp: new Date().toISOString(), cwd };
}

let idCounter = 0;

/** A fresh 8-hex entry id (pi's shape), unique in this process. */
export function entryId(): string {
	idCounter = (idCounter + 1) % 0x100000000;
	return idCounter.toString(16).padStart(8, "0");
}

/** A user message entry in pi's layout (so stores with lazy bodies index it as an envelope). */
export function messageRecord(id: string, parentId: string | null, text: string): MessageEntry {
	return {
		type: "message",
		id,
		parentId,
		timestamp: new Date().toISOString(),
		message: { role: "user", content: text, timestamp: 1 },
	};
}

/** A chain of `count` user message entries under `parentId`. */
export function chain(count: number, parentId: string | null, text = "message"): MessageEntry[] {
	const records: MessageEntry[] = [];
	let parent = parentId;
	for (let i = 0; i < count; i++) {
		const id = entryId();
		records.push(messageRecord(id, parent, `${text} ${i}`));
		parent = id;
	}
	return records;
}

/**
 * The item at `index` of test data (a negative index counts from the end, as `at` does); fails
 * when there is none.
 */
export function itemAt<T>(items: readonly T[], index: number, what = "the test data"): T {
	const item = items.at(index);
	assert.ok(item !== undefined, `${what}: no item at ${index} of ${items.length}`);
	return item;
}

/** The record a line's JSON text holds; fails unless it is a JSON object. */
export function parseRecordText(text: string, what = "a line"): RawRecord {
	const value: unknown = JSON.parse(text);
	assert.ok(isRawRecord(value), `${what}: not a JSON object: ${text.slice(0, 80)}`);
	return value;
}

/** The same records as the JSON text a line holds: comparing these compares key order too. */
export function jsonTexts(records: readonly object[]): string[] {
	return records.map((record) => JSON.stringify(record));
}

/**
 * Every record of a read, in order: parsed records as they are, envelopes read back through
 * the read's source. Fails on a line that is damaged or torn (the suite writes none), and on
 * an envelope or a source from a store whose capabilities say it has no lazy bodies.
 */
export function recordsOf(read: StoreRead, capabilities: StoreCapabilities, what = "read"): RawRecord[] {
	assert.ok(Array.isArray(read.lines), `${what}: lines is an array`);
	assert.equal(typeof read.position, "string", `${what}: the position is a string`);
	if (!capabilities.lazyBodies) {
		assert.equal(read.source, undefined, `${what}: a source, from a store whose capabilities say lazyBodies: false`);
	}
	const records: Array<RawRecord | undefined> = [];
	const envelopes: Array<{ at: number; envelope: NonNullable<StoreRead["lines"][number]["envelope"]> }> = [];
	read.lines.forEach((line, at) => {
		assert.ok(!line.torn, `${what}: line ${line.line} comes back torn`);
		assert.equal(line.error, undefined, `${what}: line ${line.line} comes back damaged: ${line.error?.message}`);
		if (line.envelope !== undefined) {
			assert.ok(capabilities.lazyBodies, `${what}: an envelope, from a store whose capabilities say lazyBodies: false`);
			envelopes.push({ at, envelope: line.envelope });
			records.push(undefined);
			return;
		}
		assert.ok(line.record, `${what}: line ${line.line} has neither a record nor an envelope`);
		records.push(line.record);
	});
	if (envelopes.length > 0) {
		assert.ok(read.source, `${what}: envelopes without a source to read their bodies`);
		const texts = read.source.readLines(envelopes.map((item) => item.envelope));
		assert.equal(texts.length, envelopes.length, `${what}: the source returns one text per envelope`);
		envelopes.forEach((item, index) => {
			const record = parseRecordText(itemAt(texts, index, what), `${what}: the body of envelope ${item.envelope.id}`);
			assert.equal(record.id, item.envelope.id, `${what}: the body read for envelope ${item.envelope.id}`);
			assert.equal(record.type, item.envelope.type, `${what}: the type of envelope ${item.envelope.id}`);
			records[item.at] = record;
		});
	}
	return records.map((record, at) => {
		assert.ok(record, `${what}: record ${at} was read`);
		return record;
	});
}

/** Asserts that a read holds exactly `want`, key order included. */
export function assertRecords(
	read: StoreRead,
	want: readonly object[],
	capabilities: StoreCapabilities,
	what = "read",
): void {
	assert.deepEqual(jsonTexts(recordsOf(read, capabilities, what)), jsonTexts(want), `${what}: the records`);
}

/** The position of an `ok` outcome; fails on any other. */
export function okPosition(outcome: AppendOutcome | ReplaceOutcome, what = "write"): StorePosition {
	if (outcome.status !== "ok") assert.fail(`${what}: expected ok, got ${describeOutcome(outcome)}`);
	assert.equal(typeof outcome.position, "string", `${what}: the position is a string`);
	return outcome.position;
}

/** The position and backup of an `ok` replace; fails on any other outcome. */
export function okReplace(outcome: ReplaceOutcome, what = "replace"): { position: StorePosition; backup: string } {
	if (outcome.status !== "ok") assert.fail(`${what}: expected ok, got ${describeOutcome(outcome)}`);
	assert.equal(typeof outcome.position, "string", `${what}: the position is a string`);
	return { position: outcome.position, backup: outcome.backup };
}

/** The read of a `behind` outcome; fails on any other. */
export function behindRead(outcome: AppendOutcome | ReplaceOutcome, what = "write"): StoreRead {
	if (outcome.status !== "behind") assert.fail(`${what}: expected behind, got ${describeOutcome(outcome)}`);
	return outcome.read;
}

/** Fails unless the outcome is `stale`. */
export function assertStale(outcome: AppendOutcome | ReplaceOutcome, what = "write"): void {
	assert.equal(outcome.status, "stale", `${what}: expected stale, got ${describeOutcome(outcome)}`);
}

function describeOutcome(outcome: AppendOutcome | ReplaceOutcome): string {
	if (outcome.status === "behind") return `behind (${outcome.read.lines.length} line(s) appended by others)`;
	return outcome.status;
}

/**
 * Awaits `action` and fails unless it rejects (or throws) an error whose `code` is `code`.
 * Codes are compared, not classes, so a store that bundles its own copy of session-tree passes.
 */
export async function assertCode(action: () => unknown, code: string, what: string): Promise<void> {
	let failed = false;
	try {
		await action();
	} catch (error) {
		failed = true;
		assert.ok(error instanceof Error, `${what}: threw a non-Error: ${String(error)}`);
		const got = errorCode(error);
		assert.equal(got, code, `${what}: expected a SessionTreeError ${code}, got code ${String(got)}: ${error.message}`);
	}
	assert.ok(failed, `${what}: expected a SessionTreeError ${code}, but it succeeded`);
}

export type { TreeRow };

/** What pi reported for a fixture (the fields the suite compares). */
export interface Expected {
	leafId: string | null;
	path: string[];
	context: unknown;
	tree: TreeRow[];
	leaves: string[];
	sessionName: string | null;
	entryCount: number;
	/** Legacy cases: the text pi wrote back over the file when it migrated it. */
	migratedText?: string;
	/** Legacy cases: each context message's role and text (these do not depend on ids). */
	contextRoles?: Array<{ role: string; text: string }>;
}

/**
 * Asserts that `session` shows what pi reported for a fixture: the leaf, the active path, the
 * context, the tree, the leaves, the name and the entry count, with no problem read.
 */
export function assertAsPiReads(session: Session, want: Expected): void {
	assert.equal(session.getLeafId(), want.leafId, "leafId");
	assert.deepEqual(
		session.getBranch().map((entry) => entry.id),
		want.path,
		"path",
	);
	assert.deepEqual(asJson(session.buildSessionContext()), want.context, "context");
	assert.deepEqual(treeRows(session), want.tree, "tree");
	assert.deepEqual(session.listBranches(), want.leaves, "leaves");
	assert.equal(session.getSessionName() ?? null, want.sessionName, "sessionName");
	assert.equal(session.entryCount, want.entryCount, "entryCount");
	assert.deepEqual(session.problems, [], "problems");
}

/** A session's tree as a fixture's flat rows. */
export function treeRows(session: Session): TreeRow[] {
	return treeRowsOf(session.flattenTree());
}

/** A value as JSON sees it (undefined fields dropped), as pi's expected files were written. */
export function asJson(value: unknown): unknown {
	return JSON.parse(JSON.stringify(value));
}

/** What a {@link RecordingStore} saw: the status of every append and replace, in order. */
export type Recorded = Array<{ op: "append" | "replace"; status: string }>;

/**
 * A store that forwards every operation to `inner` and notes the outcome of each append and
 * replace, so a test can see that a `Session` met a `stale` or `behind` answer and recovered.
 */
export class RecordingStore implements SessionStore {
	readonly outcomes: Recorded = [];
	readonly readTail?: (count: number) => Promise<TailRead | undefined>;

	constructor(protected readonly inner: SessionStore) {
		const readTail = inner.readTail?.bind(inner);
		if (readTail) this.readTail = readTail;
	}

	get location(): string {
		return this.inner.location;
	}

	get capabilities(): StoreCapabilities {
		return this.inner.capabilities;
	}

	exists(): Promise<boolean> {
		return this.inner.exists();
	}

	create(header: SessionHeader): Promise<StorePosition> {
		return this.inner.create(header);
	}

	read(): Promise<StoreRead> {
		return this.inner.read();
	}

	readSince(position: StorePosition): Promise<StoreRead | undefined> {
		return this.inner.readSince(position);
	}

	async append(records: readonly object[], expected: StorePosition): Promise<AppendOutcome> {
		const outcome = await this.inner.append(records, expected);
		this.outcomes.push({ op: "append", status: outcome.status });
		return outcome;
	}

	async replace(records: readonly object[], expected: StorePosition): Promise<ReplaceOutcome> {
		const outcome = await this.inner.replace(records, expected);
		this.outcomes.push({ op: "replace", status: outcome.status });
		return outcome;
	}

	derive(header: SessionHeader): SessionStore {
		return this.inner.derive(header);
	}

	flush(): Promise<void> {
		return this.inner.flush();
	}

	close(): Promise<void> {
		return this.inner.close();
	}
}

/**
 * A store whose next appends lose their answer, as a connection that drops after the commit
 * loses it: the append is made, then the same append is sent again (as a store that resolves
 * the lost answer does), and its caller gets that second answer: `behind` (or `stale`), with
 * the records the first one stored. `afterLoss` runs between the two (another writer appending
 * meanwhile). A store derived from it (a fork's) takes over the losses not yet spent.
 */
export class LostAnswerStore extends RecordingStore {
	/** How many of the next appends lose their answer. */
	losses: number;
	/** Runs after an append whose answer is lost, before it is sent again. */
	afterLoss: (() => Promise<void>) | undefined;

	constructor(inner: SessionStore, losses = 1) {
		super(inner);
		this.losses = losses;
	}

	override async append(records: readonly object[], expected: StorePosition): Promise<AppendOutcome> {
		if (this.losses > 0) {
			this.losses--;
			const first = await this.inner.append(records, expected);
			assert.equal(first.status, "ok", "the append whose answer is lost is made");
			await this.afterLoss?.();
		}
		return super.append(records, expected);
	}

	override derive(header: SessionHeader): SessionStore {
		const derived = new LostAnswerStore(this.inner.derive(header), this.losses);
		this.losses = 0;
		return derived;
	}
}
