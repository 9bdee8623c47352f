/**
 * `exportSessionHtml`: a whole session as one self-contained, offline HTML page (the library
 * side of `session-tree html`). See docs/html.md.
 */

import type { SessionHeader } from "../../core/types.js";
import type { Session } from "../../session.js";
import { type RedactionCounts, redactRecords, redactText } from "../redact.js";
import { loadClientScript } from "./client-script.js";
import { renderHtmlPage } from "./page.js";

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
	await session.load();
	const given = options.leafId;
	const leafId = given === undefined ? session.getLeafId() : given === null ? null : session.resolveId(given);
	const clientScript = await loadClientScript();
	const header = session.getHeader();
	const entries = session.getEntries();
	const redact = options.redact !== false;
	const all: object[] = [header, ...entries];
	const { records, counts } = redact ? redactRecords(all) : { records: all, counts: {} };
	const name = session.getSessionName();
	const html = renderHtmlPage({
		header: records[0] as SessionHeader,
		records: records.slice(1),
		// Ids hold no secrets, but the page must name the leaf as the records do.
		leafId: leafId === null || !redact ? leafId : redactText(leafId),
		clientScript,
		// Counted already: the name is in a session_info record.
		name: name === undefined || !redact ? name : redactText(name),
		fileVersion: session.fileVersion,
	});
	return { html, redactions: counts, leafId, entryCount: entries.length };
}
