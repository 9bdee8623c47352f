/**
 * A session's page: the HTML export's page (src/render/html/), the same client code, with
 * the view options of a served page (its key, whether it may be written, where its records,
 * live tail and downloads are, the command that resumes it) and a policy that lets it connect
 * to its own origin. The records are not in the page: it fetches them (page-data.ts).
 */

import { loadClientScript } from "../render/html/client-script.js";
import { htmlPageAround } from "../render/html/page.js";
import { PAGE_CSS } from "../render/html/style.js";
import { redactText } from "../render/redact.js";
import type { IndexedSession } from "./catalog.js";
import type { PageBuild } from "./page-data.js";
import { pagePolicy } from "./pages.js";
import { resumeCommand } from "./resume.js";

/** The view options a served session page gets (read by src/render/html/client/live.ts). */
export interface ServedView {
	key: string;
	agent: string | null;
	writable: boolean;
	/**
	 * Where the page reads its records (gzip JSONL, page-data.ts), with `?build=` the build this
	 * page was served with; the answer's `X-Session-Build` names the build sent, and
	 * `${records}/meta?build=ID` its view options (the leaf, the filters' hints, the version).
	 */
	records: string;
	build: string;
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
export function servedView(row: IndexedSession, build: PageBuild): ServedView {
	const base = `/api/sessions/${row.key}`;
	return {
		key: row.key,
		agent: row.agent,
		writable: row.writable,
		records: `${base}/records`,
		build: build.id,
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

/** The page and its Content-Security-Policy; the title is the index's (redacted), the records the build's. */
export async function sessionPage(row: IndexedSession, build: PageBuild): Promise<{ html: string; policy: string }> {
	const clientScript = await loadClientScript();
	const view = servedView(row, build);
	const { before, after } = htmlPageAround({
		header: { id: row.id },
		leafId: null,
		clientScript,
		name: row.name === null ? undefined : redactText(row.name),
		prompt: row.firstMessage === null ? undefined : redactText(row.firstMessage),
		server: view,
		recordsUrl: `${view.records}?build=${encodeURIComponent(view.build)}`,
	});
	return { html: before + after, policy: pagePolicy(clientScript, PAGE_CSS) };
}
