/**
 * The sessions page and the search page: a shell whose only content is the script
 * (src/serve/client/, inline, allowed by its hash) and the stylesheet (by its hash). The
 * script asks the JSON API for the sessions and inserts every text of them with
 * `textContent`, so nothing of a session is ever markup. The session page is the HTML
 * export's (session-page.ts).
 */

import { contentSecurityPolicy, cspHash, escapeHtml } from "../render/html/page.js";
import { loadServeScript } from "./client-script.js";
import { SERVE_CSS } from "./style.js";

/** The pages of the shell. */
export type ShellPage = "list" | "search";

/** A page's Content-Security-Policy: its script and style by hash, fetches to its own origin, no framing. */
export function pagePolicy(script: string, style: string): string {
	return `${contentSecurityPolicy(script, style, true)}; frame-ancestors 'none'`;
}

/** The page's HTML and its policy. */
export async function shellPage(page: ShellPage): Promise<{ html: string; policy: string }> {
	const script = await loadServeScript();
	const title = page === "list" ? "Sessions" : "Search";
	const html = [
		"<!doctype html>",
		'<html lang="en">',
		"<head>",
		'<meta charset="utf-8">',
		'<meta name="referrer" content="no-referrer">',
		'<meta name="viewport" content="width=device-width, initial-scale=1">',
		`<title>${escapeHtml(title)} · session-tree</title>`,
		`<style>${SERVE_CSS}</style>`,
		"</head>",
		`<body data-page="${page}">`,
		'<div id="app">Loading…</div>',
		"<noscript><p>This page needs JavaScript.</p></noscript>",
		`<script>${script}</script>`,
		"</body>",
		"</html>",
		"",
	].join("\n");
	return { html, policy: pagePolicy(script, SERVE_CSS) };
}

export { cspHash };
