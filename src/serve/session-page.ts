/**
 * A session's page: the HTML export's page (src/render/html/), the same client code, with
 * the view options of a served page (its key, whether it may be written, where its live tail
 * and downloads are, the command that resumes it) and a policy that lets it connect to its
 * own origin.
 */

import { loadClientScript } from "../render/html/client-script.js";
import { exportSessionHtmlParts } from "../render/html/export.js";
import { PAGE_CSS } from "../render/html/style.js";
import type { Session } from "../session.js";
import type { IndexedSession } from "./catalog.js";
import { pagePolicy } from "./pages.js";
import { resumeCommand } from "./resume.js";

/** The view options a served session page gets (read by src/render/html/client/live.ts). */
export interface ServedView {
	key: string;
	agent: string | null;
	writable: boolean;
	/** The live tail (events.ts); the page adds `?since=N`. */
	events: string;
	/** Where its actions are posted: `${actions}/label` and so on. */
	actions: string;
	/** The downloads, by format. */
	downloads: { jsonl: string; html: string; md: string };
	/** The command that resumes the session in its agent, if it has one. */
	resume: string | null;
}

/** The view options of a session's page. */
export function servedView(row: IndexedSession): ServedView {
	const base = `/api/sessions/${row.key}`;
	return {
		key: row.key,
		agent: row.agent,
		writable: row.writable,
		events: `${base}/events`,
		actions: base,
		downloads: {
			jsonl: `${base}/download?format=jsonl`,
			html: `${base}/download?format=html`,
			md: `${base}/download?format=md`,
		},
		resume: resumeCommand(row) ?? null,
	};
}

/** The page (in pieces) and its Content-Security-Policy. */
export async function sessionPage(session: Session, row: IndexedSession): Promise<{ parts: string[]; policy: string }> {
	const page = await exportSessionHtmlParts(session, {}, servedView(row));
	return { parts: page.parts, policy: pagePolicy(await loadClientScript(), PAGE_CSS) };
}
