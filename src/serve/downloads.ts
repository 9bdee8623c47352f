/**
 * The downloads of a session page: the records as JSONL (what the page embeds: redacted unless
 * `?redact=0`), the HTML export, and the active path as Markdown. Each is made as the CLI's
 * `html` and `md` make theirs, from the same renderers.
 */

import type { SessionEntry } from "../core/types.js";
import { exportSessionHtmlParts } from "../render/html/export.js";
import { markdownTitle, writeMarkdown } from "../render/markdown.js";
import { redactRecords, redactText } from "../render/redact.js";
import type { Session } from "../session.js";

/** The formats offered. */
export const DOWNLOAD_FORMATS = ["jsonl", "html", "md"] as const;
export type DownloadFormat = (typeof DOWNLOAD_FORMATS)[number];

/** A download: its body in pieces, its media type and the file name offered. */
export interface Download {
	parts: string[];
	type: string;
	extension: string;
}

/** One record, redacted alone when asked (as the export redacts). */
function scrub<T extends object>(record: T, redact: boolean): T {
	return redact ? (redactRecords([record]).records[0] as T) : record;
}

/** The session in a format (the path to its leaf for Markdown). */
export async function download(session: Session, format: DownloadFormat, redact: boolean): Promise<Download> {
	await session.load();
	if (format === "html") {
		const page = await exportSessionHtmlParts(session, { redact });
		return { parts: page.parts, type: "text/html; charset=utf-8", extension: "html" };
	}
	if (format === "jsonl") {
		const parts = [`${JSON.stringify(scrub(session.getHeader(), redact))}\n`];
		for (const entry of session.walkEntries()) parts.push(`${JSON.stringify(scrub(entry, redact))}\n`);
		return { parts, type: "application/x-ndjson; charset=utf-8", extension: "jsonl" };
	}
	const leafId = session.getLeafId();
	const text = (value: string | undefined) => (value === undefined || !redact ? value : redactText(value));
	const path = (): Iterable<SessionEntry> => ({
		*[Symbol.iterator]() {
			if (leafId !== null) for (const entry of session.walkBranch(leafId)) yield scrub(entry, redact);
		},
	});
	const input = {
		sessionId: session.getSessionId(),
		cwd: text(session.getCwd()) ?? "",
		name: text(session.getSessionName()),
		leafId,
		label: (id: string) => text(session.getLabel(id)),
	};
	const parts: string[] = [];
	writeMarkdown({ ...input, title: markdownTitle({ ...input, entries: path() }), entries: path() }, (piece) =>
		parts.push(piece),
	);
	return { parts, type: "text/markdown; charset=utf-8", extension: "md" };
}
