/**
 * The shared import layer: other agents' histories into pi sessions.
 *
 * - `detectFormat` (./detect.ts, re-exported here) tells the format from the content (never
 *   from a file name).
 * - {@link loadImporter} loads the importer of a format when it is first needed (each lives in
 *   its own module: ./chatgpt.js, ./openwebui.js, ./claude-code.js, ./codex.js).
 * - {@link importSources} expands files, directories and ZIP files into sources, imports each
 *   in memory (a Claude Code transcript file in a stream, its records made as they are
 *   written: ./claude-code-file.ts), and writes each session through the store interface into
 *   a collection (a directory, `sqlite:PATH`, `postgres://…`) or one location. It is re-runnable: a session that
 *   exists already is compared with the new import: identical, nothing is written; the stored
 *   records all in the import, only the new ones are appended (and the leaf moved); anything
 *   else is refused, naming the first entry that differs. A source that fails writes nothing.
 * - {@link openImported} opens an imported session read-only, without writing it anywhere.
 *
 * See docs/import.md.
 */

import { SessionTreeError } from "../core/errors.js";
import { asRawRecord, asRawRecords, type RawRecord } from "../core/records.js";
import type { ToolPairingReport } from "../core/tool-pairing.js";
import { Session } from "../session.js";
import { appendBatches, type CopyTarget, inBatches, recordBatches, removeUnfinished } from "../storage/batches.js";
import { collectionToWrite, sessionStoreFor } from "../storage/placement.js";
import { readRegularFile } from "../storage/regular-file.js";
import type { SessionCollection, SessionStore, StorePosition } from "../storage/store.js";
import { STREAMED_RECORD_BATCH, StreamedImport } from "./claude-code-file.js";
import { isJson } from "./common.js";
import { toolPairingOfRecords } from "./context-check.js";
import {
	DETECT_LINE_BYTES,
	FORMAT_NAMES,
	IMPORT_FORMATS,
	importFailure,
	sniffFirstLines,
	sniffFormat,
} from "./detect.js";
import { latestTime, leafRecordFor, needsLeafRecord } from "./leaf-record.js";
import { ImportedSessionStore } from "./read-only.js";
import { decodeText, expandInputs, type PendingSource } from "./sources.js";
import {
	type ImportedSession,
	type Importer,
	type ImportFormat,
	type ImportSkip,
	type ImportSource,
	isBatchedImport,
} from "./types.js";
import type { ZipLimits } from "./zip.js";

export { detectFormat, IMPORT_FORMATS, isImportFormat, type SourceKind, sniffFormat } from "./detect.js";
export type { ImportedSession, Importer, ImportFormat, ImportSkip, ImportSource } from "./types.js";

/**
 * Each format's importer, its module imported on first use (literal specifiers, so the CLI's
 * bundler splits each importer into a chunk of its own).
 */
const IMPORTERS: Record<ImportFormat, () => Promise<Importer>> = {
	chatgpt: async () => (await import("./chatgpt.js")).importChatGPT,
	openwebui: async () => (await import("./openwebui.js")).importOpenWebUI,
	"claude-code": async () => (await import("./claude-code.js")).importClaudeCode,
	codex: async () => (await import("./codex.js")).importCodex,
	gemini: async () => (await import("./gemini.js")).importGemini,
	"claude-ai": async () => (await import("./claude-ai.js")).importClaudeAi,
};

/**
 * The importers that give sessions made a batch at a time as they are written (a
 * `BatchedImport`, see types.ts), where a format has one: what an import that writes uses.
 */
const BATCHED_IMPORTERS: Partial<Record<ImportFormat, () => Promise<Importer>>> = {
	chatgpt: async () => (await import("./chatgpt.js")).importChatGPTInBatches,
};

const loaded = new Map<string, Promise<Importer>>();

/** An importer loaded once: its module imported on first use, forgotten if that failed. */
function loadOnce(key: string, load: () => Promise<Importer>): Promise<Importer> {
	let importer = loaded.get(key);
	if (!importer) {
		importer = load();
		loaded.set(key, importer);
		importer.catch(() => loaded.delete(key));
	}
	return importer;
}

/** The importer of a format, its module imported on first use. */
export function loadImporter(format: ImportFormat): Promise<Importer> {
	return loadOnce(format, IMPORTERS[format]);
}

/** The importer of a format for a write: the batched one where the format has one (see `BATCHED_IMPORTERS`). */
function loadBatchedImporter(format: ImportFormat): Promise<Importer> {
	const batched = BATCHED_IMPORTERS[format];
	return batched ? loadOnce(`${format} in batches`, batched) : loadImporter(format);
}

/** Options of {@link importText}. */
export interface ImportTextOptions {
	/** The format, when not detected from the content. */
	from?: ImportFormat;
	/** Work around broken links, reporting each as a skip (see {@link ImportSource.lenient}). */
	lenient?: boolean;
}

/**
 * The sessions of one source, in memory: its format detected (or `from`), its importer run.
 * @throws SessionTreeError naming the source: INVALID_ARGUMENT when the format cannot be told,
 *   the importer's error (INVALID_JSON, INVALID_RECORD naming the record and field) otherwise
 */
export function importText(text: string, name: string, options: ImportTextOptions = {}): Promise<ImportedSession[]> {
	return importTextWith(loadImporter, text, name, options);
}

/** {@link importText} with the importers `load` gives. */
async function importTextWith(
	load: (format: ImportFormat) => Promise<Importer>,
	text: string,
	name: string,
	options: ImportTextOptions,
): Promise<ImportedSession[]> {
	const kind = sniffFormat(text);
	const format = options.from ?? (kind === "pi" ? undefined : kind);
	if (format === undefined) {
		throw new SessionTreeError(
			"INVALID_ARGUMENT",
			kind === "pi"
				? "already a pi session (nothing to import)"
				: `not a format session-tree imports (${IMPORT_FORMATS.join(", ")}); name one with --from`,
			{ file: name },
		);
	}
	const importer = await load(format);
	const source: ImportSource = { name, text, lenient: options.lenient === true };
	try {
		return importer(source);
	} catch (error) {
		throw importFailure(error, format, name, options.from, kind);
	}
}

// ---- the records of an imported session ------------------------------------------------------

/** The persisted-leaf record of an import (see leaf-record.ts), unlike every id `taken`. */
function leafRecordOf(
	imported: ImportedSession,
	taken: Pick<ReadonlySet<string>, "has">,
	records: readonly RawRecord[],
): RawRecord {
	return leafRecordFor(imported, (candidate) => taken.has(candidate), latestTime(records, imported.header.timestamp));
}

/**
 * Every record an imported session is written as: the header, its records, and a
 * persisted-leaf record when the leaf is not the last entry or the import carries `state`.
 */
export function sessionRecords(imported: ImportedSession): RawRecord[] {
	const records = asRawRecords(imported.records);
	const out: RawRecord[] = [asRawRecord(imported.header), ...records];
	const last = records.length > 0 ? String(records[records.length - 1]?.id) : null;
	if (needsLeafRecord(imported, last)) {
		// A scan per candidate id (one, nearly always) rather than a set of every id: no second index of a wide import.
		const taken = { has: (id: string) => records.some((record) => record.id === id) };
		out.push(leafRecordOf(imported, taken, records));
	}
	return out;
}

// ---- writing -----------------------------------------------------------------------------------

/** What writing one session did. */
export type WriteStatus = "written" | "appended" | "unchanged";

/** The outcome of writing one imported session. */
export interface WriteResult {
	/** Where the session is. */
	location: string;
	status: WriteStatus;
	/** Records written: every record for a new session, the new ones for an append, 0 when unchanged. */
	records: number;
}

/** Where an import writes: a collection of many sessions, or one session's location. */
export type ImportTarget = CopyTarget;

/** What a write will do, decided before anything is written. */
type Plan =
	| {
			kind: "create";
			store: SessionStore;
			header: RawRecord;
			/** The records after the header, in batches. */
			rest: Iterable<readonly RawRecord[]>;
	  }
	| { kind: "append"; store: SessionStore; records: RawRecord[]; position: StorePosition }
	| { kind: "unchanged"; store: SessionStore };

/** A JSON text for comparing records (undefined fields dropped, as they are when written). */
function jsonOf(value: unknown): string {
	return JSON.stringify(value) ?? "undefined";
}

/** The source id an entry was made from, for messages. */
function sourceIdOf(record: RawRecord): string {
	const source = record.source;
	if (!isJson(source)) return "";
	const id = source.key ?? source.id ?? source.uuid;
	return typeof id === "string" ? ` (source ${id})` : "";
}

/**
 * What writing `imported` into `store` takes: create it, append what is new, or nothing.
 * @throws SessionTreeError FILE_EXISTS when the store holds a session that is not an earlier
 *   import of the same source, naming the first entry that differs
 */
async function plan(imported: ImportedSession, store: SessionStore): Promise<Plan> {
	if (!(await store.exists())) {
		// A batched import is written a batch at a time, its records made as they are written.
		if (isBatchedImport(imported)) {
			const rest = imported.recordsAfterHeader(STREAMED_RECORD_BATCH);
			return { kind: "create", store, header: asRawRecord(imported.header), rest };
		}
		const [header, ...rest] = sessionRecords(imported);
		return { kind: "create", store, header: header as RawRecord, rest: inBatches(rest) };
	}
	const read = await store.read();
	const stored: RawRecord[] = [];
	for (const batch of recordBatches(read, store.location)) stored.push(...batch);
	const refuse = (what: string) =>
		new SessionTreeError(
			"FILE_EXISTS",
			`session ${imported.header.id} is here already and ${what}; it is left as it is (never rewritten): import into a fresh --dir, or remove it first`,
			{ file: store.location },
		);
	const [header, ...rest] = stored;
	if (!header || jsonOf(header) !== jsonOf(imported.header)) throw refuse("its header differs from this import's");
	const fresh = new Map<string, RawRecord>();
	for (const record of asRawRecords(imported.records)) fresh.set(String(record.id), record);
	const storedIds = new Set<string>();
	let lastImportLeaf: RawRecord | undefined;
	for (const record of rest) {
		storedIds.add(String(record.id));
		if (record.type === "leaf") {
			if (record.source !== undefined) lastImportLeaf = record;
			continue;
		}
		const mine = fresh.get(String(record.id));
		if (!mine) throw refuse(`its entry ${String(record.id)}${sourceIdOf(record)} is not in the source`);
		if (jsonOf(mine) !== jsonOf(record)) {
			throw refuse(`its entry ${String(record.id)}${sourceIdOf(record)} differs from the source's`);
		}
	}
	const added = [...fresh.values()].filter((record) => !storedIds.has(String(record.id)));
	const records: RawRecord[] = [...added];
	if (added.length === 0) {
		const same =
			imported.state === undefined ||
			(lastImportLeaf !== undefined &&
				lastImportLeaf.targetId === imported.leafId &&
				jsonOf(lastImportLeaf.source) === jsonOf(imported.state));
		if (same) return { kind: "unchanged", store };
	}
	const last = added.length > 0 ? String(added[added.length - 1]?.id) : null;
	if (added.length === 0 || needsLeafRecord(imported, last)) {
		const taken = new Set([...storedIds, ...fresh.keys()]);
		records.push(leafRecordOf(imported, taken, [...rest, ...added]));
	}
	return { kind: "append", store, records, position: read.position };
}

/** Carries out a plan. A new session that fails part way is removed. */
async function carryOut(step: Plan, collection: SessionCollection | undefined): Promise<WriteResult> {
	const { store } = step;
	try {
		if (step.kind === "unchanged") return { location: store.location, status: "unchanged", records: 0 };
		if (step.kind === "append") {
			await appendBatches(store, inBatches(step.records), step.position, "import");
			await store.flush();
			return { location: store.location, status: "appended", records: step.records.length };
		}
		const position = await store.create(step.header as unknown as Parameters<SessionStore["create"]>[0]);
		// Counted as written: a batched import knows its number of records only then.
		const written = { records: 1 };
		try {
			await appendBatches(store, counted(step.rest, written), position, "import");
			await store.flush();
		} catch (error) {
			await removeUnfinished(store, collection);
			throw error;
		}
		return { location: store.location, status: "written", records: written.records };
	} finally {
		await store.close();
	}
}

/** `batches` as they are, their records added to `count.records`. */
function* counted<T>(batches: Iterable<readonly T[]>, count: { records: number }): Generator<readonly T[]> {
	for (const batch of batches) {
		count.records += batch.length;
		yield batch;
	}
}

/**
 * Writes one imported session into a target (re-runnable, see the module comment).
 * @throws SessionTreeError FILE_EXISTS when the target holds a different session with its id
 */
export async function writeImported(imported: ImportedSession, target: ImportTarget): Promise<WriteResult> {
	const step = await plan(imported, sessionStoreFor(target, imported.header));
	return carryOut(step, "collection" in target ? target.collection : undefined);
}

/**
 * Writes the sessions of one source: every session is planned (and a conflict refused) before
 * anything is written; a write that fails removes the sessions this call created.
 */
export async function writeSessions(
	sessions: readonly ImportedSession[],
	target: (imported: ImportedSession) => ImportTarget,
): Promise<WriteResult[]> {
	const ids = new Set<string>();
	for (const imported of sessions) {
		if (ids.has(imported.header.id)) {
			throw new SessionTreeError("INVALID_RECORD", `two sessions with the id ${imported.header.id} in one source`);
		}
		ids.add(imported.header.id);
	}
	const steps: Array<{ step: Plan; collection: SessionCollection | undefined }> = [];
	for (const imported of sessions) {
		const where = target(imported);
		steps.push({
			step: await plan(imported, sessionStoreFor(where, imported.header)),
			collection: "collection" in where ? where.collection : undefined,
		});
	}
	const results: WriteResult[] = [];
	for (const { step, collection } of steps) {
		try {
			results.push(await carryOut(step, collection));
		} catch (error) {
			for (const [k, done] of results.entries()) {
				const made = steps[k];
				if (done.status === "written" && made) await removeUnfinished(made.step.store, made.collection);
			}
			throw error;
		}
	}
	return results;
}

// ---- a whole run -------------------------------------------------------------------------------

/** Options of {@link importSources}. */
export interface ImportOptions extends ImportTextOptions {
	/** Where the sessions go: a collection location (a directory, made if missing; `sqlite:PATH`; `postgres://…`). */
	dir?: string;
	/** One session's location (a `.jsonl` path, `sqlite:PATH#ID`, …): the inputs must hold exactly one session. */
	out?: string;
	/** Where a session goes without `dir` and `out`, by the header's cwd (the CLI: pi's directory of that cwd). */
	defaultDir?: (cwd: string) => string;
	/** Called after each source with the number done so far. */
	onProgress?: (done: number, total: number) => void;
	/**
	 * How much the members read from a ZIP archive may inflate to (per member, per archive) and
	 * how many members it may list; unset ones come from `SESSION_TREE_ZIP_*_LIMIT`, else the
	 * defaults (`DEFAULT_ZIP_LIMITS`). An archive past them fails, and nothing of it is written.
	 */
	zipLimits?: Partial<ZipLimits>;
}

/** One session an import wrote (or found written already). */
export interface ImportedResult extends WriteResult {
	/** The source it came from. */
	source: string;
	/** Its session id. */
	sessionId: string;
	format: ImportFormat;
	/**
	 * What a provider would refuse in the context at the session's leaf (tool calls without a
	 * result, results without a call or separated from it), and the calls of a turn the source
	 * left under way (`pending`); see `checkToolPairing`.
	 */
	toolPairing: ToolPairingReport;
}

/** A source that failed: nothing of it was written. */
export interface ImportFailure {
	source: string;
	error: Error;
}

/** What {@link importSources} did. */
export interface ImportReport {
	sessions: ImportedResult[];
	/** What the importers left out, and files of no format found in directories or archives. */
	skipped: ImportSkip[];
	failures: ImportFailure[];
}

function asError(error: unknown): Error {
	return error instanceof Error ? error : new Error(String(error));
}

/**
 * Imports every session the inputs hold (files, directories, ZIP files) and writes each, a
 * source at a time: see the module comment. Never throws for a source: what failed is in the
 * report's `failures`, and nothing of a failed source is written.
 */
export async function importSources(inputs: readonly string[], options: ImportOptions = {}): Promise<ImportReport> {
	const report: ImportReport = { sessions: [], skipped: [], failures: [] };
	if (options.dir !== undefined && options.out !== undefined) {
		throw new SessionTreeError("INVALID_ARGUMENT", "give either a directory (dir) or one location (out), not both");
	}
	const { sources, problems } = expandInputs(inputs, { zipLimits: options.zipLimits });
	for (const problem of problems) report.failures.push({ source: problem.name, error: problem.error });

	const collections = new Map<string, SessionCollection>();
	const collection = (location: string) => {
		let found = collections.get(location);
		if (!found) {
			found = collectionToWrite(location);
			collections.set(location, found);
		}
		return found;
	};
	const target = (imported: ImportedSession): ImportTarget => {
		if (options.out !== undefined) return { location: options.out };
		if (options.dir !== undefined) return { collection: collection(options.dir) };
		if (!options.defaultDir) throw new SessionTreeError("INVALID_ARGUMENT", "no place to write the sessions to");
		return { collection: collection(options.defaultDir(imported.header.cwd)) };
	};
	const record = (source: string, sessions: readonly ImportedSession[], results: readonly WriteResult[]) => {
		results.forEach((result, i) => {
			const imported = sessions[i] as ImportedSession;
			const toolPairing = isBatchedImport(imported)
				? imported.toolPairing(result.location)
				: toolPairingOfRecords(
						[asRawRecord(imported.header), ...asRawRecords(imported.records)],
						result.location,
						imported.leafId,
					);
			report.sessions.push({ ...result, source, sessionId: imported.header.id, format: imported.format, toolPairing });
		});
	};

	try {
		if (options.out !== undefined) {
			// One location takes one session: every source is imported before anything is written.
			const found: Array<{ source: string; session: ImportedSession }> = [];
			try {
				let done = 0;
				for (const pending of sources) {
					const sessions = await importPending(pending, options, report);
					for (const session of sessions ?? []) found.push({ source: pending.name, session });
					options.onProgress?.(++done, sources.length);
				}
				if (report.failures.length > 0) return report;
				if (found.length !== 1) {
					const names = [...new Set(found.map((item) => item.source))].join(", ") || inputs.join(", ");
					report.failures.push({
						source: names,
						error: new SessionTreeError(
							"INVALID_ARGUMENT",
							`${found.length === 0 ? "no session" : `${found.length} sessions`} in the input; -o writes exactly one (use --dir for many)`,
						),
					});
					return report;
				}
				const [{ source, session }] = found as [{ source: string; session: ImportedSession }];
				report.skipped.push(...session.skipped);
				try {
					record(source, [session], await writeSessions([session], target));
				} catch (error) {
					report.failures.push({ source, error: asError(error) });
				}
				return report;
			} finally {
				closeStreamed(found.map((item) => item.session));
			}
		}
		let done = 0;
		for (const pending of sources) {
			const sessions = await importPending(pending, options, report);
			if (sessions) {
				try {
					const results = await writeSessions(sessions, target);
					for (const session of sessions) report.skipped.push(...session.skipped);
					record(pending.name, sessions, results);
				} catch (error) {
					report.failures.push({ source: pending.name, error: asError(error) });
				} finally {
					closeStreamed(sessions);
				}
			}
			options.onProgress?.(++done, sources.length);
		}
		return report;
	} finally {
		for (const each of collections.values()) await each.close?.();
	}
}

/**
 * The sessions of one pending source, or undefined when it failed or was skipped (recorded in
 * the report). A file found in a directory or archive that is not of a known format is
 * skipped; one the user named fails.
 */
async function importPending(
	pending: PendingSource,
	options: ImportTextOptions,
	report: ImportReport,
): Promise<ImportedSession[] | undefined> {
	let text: string;
	try {
		const transcript = pending.path === undefined ? undefined : await readClaudeCodeFile(pending.path, options);
		if (transcript) {
			let kept: ImportedSession[] | undefined;
			try {
				kept = conversations(transcript, pending, report);
				return kept;
			} finally {
				if (!kept) closeStreamed(transcript);
			}
		}
		text = pending.read();
	} catch (error) {
		report.failures.push({ source: pending.name, error: asError(error) });
		return undefined;
	}
	if (!pending.explicit && options.from === undefined) {
		const kind = sniffFormat(text);
		if (kind === undefined || kind === "pi") {
			report.skipped.push({
				source: pending.name,
				where: "",
				reason: kind === "pi" ? "already a pi session" : "not a format session-tree imports",
			});
			return undefined;
		}
	}
	try {
		return conversations(await importTextWith(loadBatchedImporter, text, pending.name, options), pending, report);
	} catch (error) {
		report.failures.push({ source: pending.name, error: asError(error) });
		return undefined;
	}
}

/**
 * The sessions of a source that hold a conversation. A transcript of titles or snapshots only
 * (Claude Code writes such files beside real ones) is of a known format but no session:
 * skipped in a walk (undefined), a failure when named.
 * @throws SessionTreeError INVALID_ARGUMENT for a source the user named that holds none
 */
function conversations(
	sessions: ImportedSession[],
	pending: PendingSource,
	report: ImportReport,
): ImportedSession[] | undefined {
	if (sessions.length > 0 && sessions.some(holdsConversation)) return sessions;
	if (!pending.explicit) {
		report.skipped.push({ source: pending.name, where: "", reason: "holds no conversation" });
		return undefined;
	}
	const words = sessions[0] ? FORMAT_NAMES[sessions[0].format] : "a file";
	throw new SessionTreeError(
		"INVALID_ARGUMENT",
		`${pending.name}: ${words} that holds no conversation (no message in it): nothing to import`,
		{ file: pending.name },
	);
}

/**
 * The import of the file at `path` read line by line, never as one text, if it is a Claude Code
 * transcript (its first lines tell, as they tell a direct read; or `--from claude-code`); else
 * undefined, and the file is read as a text as any other source.
 * @throws SessionTreeError as {@link importText} of the file's text does
 */
async function readClaudeCodeFile(path: string, options: ImportTextOptions): Promise<ImportedSession[] | undefined> {
	if (options.from !== undefined && options.from !== "claude-code") return undefined;
	const { fileLines, firstLineWithin } = await import("./source-lines.js");
	const lines = fileLines(path);
	let kept = false;
	try {
		if (
			options.from === undefined &&
			(!firstLineWithin(path, DETECT_LINE_BYTES) || sniffFirstLines(lines.scan()) !== "claude-code")
		) {
			return undefined;
		}
		const { streamTranscript } = await import("./claude-code-lazy.js");
		const transcript = streamTranscript({ name: path, lenient: options.lenient === true }, lines);
		if (!transcript) return [];
		kept = true;
		return [new StreamedImport(transcript, lines, path)];
	} catch (error) {
		// What the file looks like, told as importText tells it (from the whole text), only for the message.
		const kind = options.from !== undefined ? sniffFormat(decodeText(readRegularFile(path))) : undefined;
		throw importFailure(error, "claude-code", path, options.from, kind);
	} finally {
		if (!kept) lines.close();
	}
}

/** Closes the files of sessions made a batch at a time (a transcript read in a stream, see claude-code-file.ts). */
function closeStreamed(sessions: Iterable<ImportedSession>): void {
	for (const session of sessions) if (isBatchedImport(session)) session.close();
}

/** True when an imported session holds anything a model would be sent (not only titles, snapshots or notes). */
function holdsConversation(imported: ImportedSession): boolean {
	if (isBatchedImport(imported)) return imported.holdsConversation();
	return imported.records.some((r) => r.type === "message" || r.type === "custom_message" || r.type === "compaction");
}

// ---- reading without converting ---------------------------------------------------------------

/** The id a session has in its source (a ChatGPT conversation id, an Open WebUI chat id), if the import kept it. */
export function sourceIdOfSession(imported: ImportedSession): string | undefined {
	const state = imported.state;
	if (!state) return undefined;
	const conversation = state.conversation;
	if (isJson(conversation)) {
		const id = conversation.conversation_id ?? conversation.id ?? conversation.uuid;
		if (typeof id === "string") return id;
	}
	const row = state.row;
	if (isJson(row) && typeof row.id === "string" && row.id !== "") return row.id;
	const chat = state.chat;
	if (isJson(chat) && typeof chat.id === "string" && chat.id !== "") return chat.id;
	return undefined;
}

/**
 * Opens an imported session read-only (see ./read-only.ts): `location` is what it is shown as
 * (the source file, or `FILE#ID`), `file` the source file that `session-tree import` takes.
 */
export async function openImported(
	imported: ImportedSession,
	location: string,
	options: { lenient?: boolean; file?: string } = {},
): Promise<Session> {
	const records = sessionRecords(imported);
	const store = await ImportedSessionStore.hold(location, imported.format, records, options.file ?? location);
	const session = await Session.openStore(store, { lenient: options.lenient === true });
	holdRecords(session, records);
	return session;
}

/** The records of sessions opened by {@link openImported}. */
const held = new WeakMap<Session, RawRecord[]>();

/**
 * Notes that `session` is another agent's file opened read-only, made of `records` (for
 * {@link recordsHeldBy}).
 */
export function holdRecords(session: Session, records: RawRecord[]): void {
	held.set(session, records);
}

/**
 * The records an imported session opened read-only was made of (its persisted-leaf records
 * too), if it is one; for a transcript read in a stream (open-foreign.ts), whose entries are
 * the session's own, only the header and the persisted-leaf record.
 */
export function recordsHeldBy(session: Session): RawRecord[] | undefined {
	return held.get(session);
}

/** The session of a source that `selector` names (a session id or its prefix, the source's id, or a 1-based index). */
export function chooseSession(
	sessions: readonly ImportedSession[],
	selector: string | undefined,
	file: string,
): ImportedSession {
	if (sessions.length === 0) {
		throw new SessionTreeError("INVALID_ARGUMENT", "holds no conversation", { file });
	}
	if (selector === undefined) {
		if (sessions.length === 1) return sessions[0] as ImportedSession;
		const list = sessions
			.slice(0, 20)
			.map((session, i) => `\n  ${file}#${sourceIdOfSession(session) ?? i + 1}  ${nameOf(session) ?? ""}`.trimEnd())
			.join("");
		const more = sessions.length > 20 ? `\n  … and ${sessions.length - 20} more` : "";
		throw new SessionTreeError(
			"AMBIGUOUS_ID",
			`holds ${sessions.length} sessions; name one as FILE#ID:${list}${more}`,
			{ file },
		);
	}
	const byIndex = /^\d+$/.test(selector) ? sessions[Number(selector) - 1] : undefined;
	const matches = sessions.filter(
		(session) => sourceIdOfSession(session) === selector || session.header.id.startsWith(selector),
	);
	if (matches.length === 1) return matches[0] as ImportedSession;
	if (matches.length === 0 && byIndex) return byIndex;
	throw new SessionTreeError(
		matches.length === 0 ? "ENTRY_NOT_FOUND" : "AMBIGUOUS_ID",
		matches.length === 0
			? `no session ${JSON.stringify(selector)} in it`
			: `${JSON.stringify(selector)} names several sessions`,
		{ file },
	);
}

/** The name an imported session's session_info gives it. */
function nameOf(session: ImportedSession): string | undefined {
	let name: string | undefined;
	for (const record of session.records) if (record.type === "session_info" && record.name) name = record.name;
	return name;
}
