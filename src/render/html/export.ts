/**
 * `exportSessionHtml`: a whole session as one self-contained, offline HTML page (the library
 * side of `session-tree html`). See docs/html.md.
 */

import { resolve } from "node:path";
import type { SessionHeader } from "../../core/types.js";
import type { Session } from "../../session.js";
import { holdsSecret, type RedactionCounts, redactRecords, redactText } from "../redact.js";
import { shownHint } from "../shown-hints.js";
import { firstPrompt } from "../title.js";
import { loadClientScript } from "./client-script.js";
import { dataElementParts, encodeRecordsInPieces, htmlPageAround } from "./page.js";
import type { PageCheckThread } from "./page-checks.js";

/** Options of {@link exportSessionHtml}. */
export interface HtmlExportOptions {
	/**
	 * The entry the page shows first, as the end of the path: a full id or a unique prefix.
	 * Default: the session's leaf.
	 */
	leafId?: string | null;
	/** Replace secrets with `[REDACTED:kind]` (see render/redact.ts). Default true. */
	redact?: boolean;
}

/** What {@link exportSessionHtml} returns. */
export interface HtmlExport {
	/** The page. */
	html: string;
	/** The secrets replaced, by kind (empty without redaction). */
	redactions: RedactionCounts;
	/** The full id of the entry shown first, or null. */
	leafId: string | null;
	/** Entries embedded. */
	entryCount: number;
}

/**
 * A session as one HTML file that works offline: the whole tree (every branch), the
 * conversation of the selected path, what the model receives there, search, permalinks.
 *
 * The page embeds every record of the session: the header and the entries in file order
 * (as the session reads them: migrated to version 3, a lenient open's repairs applied),
 * redacted unless `redact: false`. Its Content-Security-Policy lets nothing leave the page.
 *
 * @example
 * ```ts
 * const session = await Session.open("session.jsonl");
 * const { html, redactions } = await exportSessionHtml(session);
 * await writeFile("session.html", html, { mode: 0o600 });
 * ```
 * @throws SessionTreeError ENTRY_NOT_FOUND or AMBIGUOUS_ID for a `leafId` that names no single
 *   entry; IO_ERROR when the client script is missing (a build without scripts/bundle-client.mjs)
 */
export async function exportSessionHtml(session: Session, options: HtmlExportOptions = {}): Promise<HtmlExport> {
	const { parts, ...rest } = await exportSessionHtmlParts(session, options);
	return { html: parts.join(""), ...rest };
}

/**
 * The page of {@link exportSessionHtml} as pieces whose concatenation is its `html`, made
 * reading one entry at a time (`Session.walkEntries`): a command writes the pieces one after
 * the other, so a large session (a Claude Code transcript read directly) never has every
 * body, its whole JSONL text or the whole page in memory at once. `more.server`: the view
 * options of a page `session-tree serve` serves (see `HtmlPageInput.server`); `more.checks`: a
 * worker checking the session's file (see {@link pageRecords}).
 * @internal
 */
export async function exportSessionHtmlParts(
	session: Session,
	options: HtmlExportOptions = {},
	more: { server?: object; checks?: PageCheckThread | undefined } = {},
): Promise<Omit<HtmlExport, "html"> & { parts: string[] }> {
	const parts: string[] = [];
	const made = await writeSessionHtml(session, (part) => parts.push(part), options, more);
	return { parts, ...made };
}

/**
 * The page of {@link exportSessionHtml} given to `write` in parts, one after the other, as they
 * are made: the head once the title is known (the session's name, else its first prompt,
 * found as the records are read), then each element of records as gzip gives its bytes, then
 * the view options and the script. A large page is never held whole (s1m's 446 MiB): only the
 * elements made before the title is known are held, when the session has no name.
 * @internal
 */
export async function writeSessionHtml(
	session: Session,
	write: (part: string) => void,
	options: HtmlExportOptions = {},
	more: { server?: object; checks?: PageCheckThread | undefined } = {},
): Promise<Omit<HtmlExport, "html">> {
	const { server, checks } = more;
	const records = await pageRecords(session, options, checks);
	const clientScript = await loadClientScript();
	const around = () =>
		htmlPageAround({ header: records.header, clientScript, ...records.view(), ...(server ? { server } : {}) });
	// The pieces made before the head could be written; undefined once it was.
	let held: string[] | undefined = [];
	const writeHead = (pieces: readonly string[]) => {
		write(around().before);
		for (const part of dataElementParts(pieces)) write(part);
		held = undefined;
	};
	await encodeRecordsInPieces(records.header, records.entries, undefined, (piece) => {
		if (held === undefined) for (const part of dataElementParts([piece])) write(part);
		else if (records.titleKnown()) writeHead([...held, piece]);
		else held.push(piece);
	});
	if (held !== undefined) writeHead(held);
	write(around().after);
	return { redactions: records.counts, leafId: records.leafId, entryCount: session.entryCount };
}

/** The records a page holds, and what is known of them once they were read (see {@link pageRecords}). */
export interface PageRecords {
	/** The header, redacted. */
	header: SessionHeader;
	/** The entries in file order, redacted, each a record or its stored line; read once. */
	entries: Iterable<object | Uint8Array>;
	/** The secrets replaced so far, by kind. */
	counts: RedactionCounts;
	/** The full id of the entry shown first, or null (not redacted). */
	leafId: string | null;
	/** The page's view options for these records: complete once `entries` was read through. */
	view(): PageView;
	/**
	 * Whether the title's parts in {@link view} are final: the session has a name, or the first
	 * prompt was read (a page's head can be written).
	 */
	titleKnown(): boolean;
}

/** What a page says of its records besides them (see `HtmlPageInput`). */
export interface PageView {
	leafId: string | null;
	name: string | undefined;
	prompt: string | undefined;
	shown: string;
	fileVersion: number;
}

/**
 * The records of a session as its page holds them (the export's and `session-tree serve`'s):
 * the header and the entries, redacted unless `redact: false`, read one at a time, with the
 * title's first prompt and the filters' hints (shown-hints.ts) gathered as they are read.
 * With `checks` started on the session's own file (page-checks.ts), the lines its worker
 * checked are taken as it read them; it is not used for another file, a file of another
 * version than 3 (read whole, migrated) or with other redaction.
 * @throws SessionTreeError ENTRY_NOT_FOUND or AMBIGUOUS_ID for a `leafId` that names no single entry
 * @internal
 */
export async function pageRecords(
	session: Session,
	options: HtmlExportOptions = {},
	checks?: PageCheckThread,
): Promise<PageRecords> {
	await session.load();
	const given = options.leafId;
	const leafId = given === undefined ? session.getLeafId() : given === null ? null : session.resolveId(given);
	const redact = options.redact !== false;
	const counts: RedactionCounts = {};
	// Each record redacted alone, its counts added up: the counts of the records redacted together.
	const redacted = <T extends object>(record: T): T => {
		if (!redact) return record;
		const copy = redactRecords([record]);
		for (const [kind, n] of Object.entries(copy.counts)) counts[kind] = (counts[kind] ?? 0) + n;
		return copy.records[0] as T;
	};
	const header = redacted(session.getHeader());
	// The title's first prompt is taken from the records as the page holds them, as it is being written.
	let prompt: string | undefined;
	// What pi's filters say of each entry, from the record as the page holds it (shown-hints.ts).
	const hints: string[] = [];
	const worker = checks && checksApply(checks, session, redact) ? checks : undefined;
	const walk = worker ? session.walkEntryLinesKnowing((line) => worker.take(line)) : session.walkEntryLines();
	const entries: Iterable<object | Uint8Array> = {
		*[Symbol.iterator]() {
			for (const { entry, line, known, place } of walk) {
				if (known) {
					// Checked by the worker: no secret, an entry without problems, these bytes.
					if (prompt === undefined && known.prompt !== undefined) prompt = known.prompt;
					hints.push(known.hint);
					yield known.bytes;
				} else {
					// Only a record that holds a secret is copied; any other is written as it is: as the
					// stored bytes of its line when it was parsed from them (not made JSON and UTF-8 again).
					const copy = redact && holdsSecret(entry) ? redacted(entry) : entry;
					if (prompt === undefined && entry.type === "message") prompt = firstPrompt([copy]);
					hints.push(shownHint(copy));
					yield copy === entry && line !== undefined ? line : copy;
				}
				// The reader has taken the record (gzipRecords copies its bytes): the worker's memory of it is free.
				if (worker && place) worker.passed(place);
			}
		},
	};
	const name = session.getSessionName();
	return {
		header,
		entries,
		counts,
		leafId,
		view: () => ({
			// Ids hold no secrets, but the page must name the leaf as the records do.
			leafId: leafId === null || !redact ? leafId : redactText(leafId),
			// Counted already: the name is in a session_info record.
			name: name === undefined || !redact ? name : redactText(name),
			prompt,
			shown: hints.join(""),
			fileVersion: session.fileVersion,
		}),
		titleKnown: () => name !== undefined || prompt !== undefined,
	};
}

/** Whether the worker of `checks` read what the page is made of: the session's own file, as the page redacts. */
function checksApply(checks: PageCheckThread, session: Session, redact: boolean): boolean {
	const file = session.file;
	return (
		file !== undefined &&
		resolve(file) === resolve(checks.file) &&
		session.fileVersion === 3 &&
		checks.redact === redact
	);
}
