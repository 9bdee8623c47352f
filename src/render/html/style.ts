/**
 * The stylesheet of the exported page, inlined in one `<style>` whose hash the page's
 * Content-Security-Policy allows (no style attributes anywhere: the client sets element.style
 * from script, which the policy does not restrict). Light and dark themes follow
 * `<html data-theme>`, which the client sets from prefers-color-scheme and its toggle.
 */

/** The CSS of the page. `--row-height` must equal the client's ROW_HEIGHT (sidebar.ts). */
export const PAGE_CSS = `
:root {
	--row-height: 22px;
	--bg: #ffffff; --bg2: #f5f6f8; --bg3: #eceef2; --fg: #1d2128; --muted: #66707d; --border: #d8dce3;
	--accent: #2563eb; --accent-bg: #dbe7ff; --current-bg: #fff4c2; --mark: #ffe58a;
	--user: #0e7490; --assistant: #15803d; --tool: #1d4ed8; --summary: #9333ea; --custom: #a16207; --error: #b91c1c;
	--add-bg: #e3f7e6; --add: #166534; --del-bg: #fde6e6; --del: #991b1b; --hunk: #6d28d9;
	--code-bg: #f1f3f6;
	color-scheme: light;
}
:root[data-theme="dark"] {
	--bg: #15181d; --bg2: #1c2027; --bg3: #252a33; --fg: #dde2ea; --muted: #98a2b0; --border: #343b47;
	--accent: #7aa7ff; --accent-bg: #20335c; --current-bg: #3d3514; --mark: #6b5a12;
	--user: #5ec8de; --assistant: #6fd08c; --tool: #8cb4ff; --summary: #d09cff; --custom: #e0b95a; --error: #ff8585;
	--add-bg: #16311d; --add: #8fe0a3; --del-bg: #3a1a1a; --del: #ffa3a3; --hunk: #c4a5ff;
	--code-bg: #1f242c;
	color-scheme: dark;
}
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; }
body {
	background: var(--bg); color: var(--fg);
	font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
}
pre, code, .tree, .rid, .entry-id, .ctx-est, .r-id { font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; }
button, select, input { font: inherit; color: inherit; }
button { cursor: pointer; }
#app { height: 100vh; display: grid; grid-template-rows: auto minmax(0, 1fr); }
#app.loading { display: block; padding: 2rem; color: var(--muted); }
.fatal { white-space: pre-wrap; color: var(--error); padding: 2rem; }
noscript p { padding: 2rem; }

.topbar {
	display: flex; gap: 1rem; align-items: center; justify-content: space-between; flex-wrap: wrap;
	padding: 0.5rem 1rem; border-bottom: 1px solid var(--border); background: var(--bg2);
}
.topbar h1 { font-size: 1.05rem; margin: 0; overflow-wrap: anywhere; }
.facts { margin: 0.15rem 0 0; color: var(--muted); font-size: 0.8rem; display: flex; flex-wrap: wrap; gap: 0 1rem; }
.facts span { overflow-wrap: anywhere; }
.tools { display: flex; gap: 0.5rem; align-items: center; }
.search { width: 22rem; max-width: 40vw; padding: 0.3rem 0.5rem; border: 1px solid var(--border); border-radius: 4px; background: var(--bg); }
.download, .theme-toggle {
	padding: 0.3rem 0.6rem; border: 1px solid var(--border); border-radius: 4px; background: var(--bg);
	color: var(--accent); text-decoration: none; white-space: nowrap;
}
.help { position: relative; color: var(--muted); }
.help summary { cursor: pointer; }
.help dl {
	position: absolute; right: 0; z-index: 5; margin: 0.3rem 0 0; padding: 0.5rem 0.8rem; width: 22rem;
	display: grid; grid-template-columns: auto 1fr; gap: 0.2rem 0.8rem;
	background: var(--bg); border: 1px solid var(--border); border-radius: 4px; color: var(--fg);
}
.help dt { font-family: ui-monospace, monospace; }
.help dd { margin: 0; }

.panes {
	display: grid; min-height: 0;
	grid-template-columns: var(--tree-width, minmax(18rem, 30%)) 6px minmax(0, 1fr) minmax(16rem, 24%);
}
.splitter { cursor: col-resize; background: var(--bg2); border-right: 1px solid var(--border); touch-action: none; }
.splitter:hover, .splitter:focus-visible, .splitter.dragging { background: var(--accent-bg); outline: none; }
.splitter:focus-visible { box-shadow: inset 0 0 0 2px var(--accent); }
.sidebar { display: flex; flex-direction: column; min-height: 0; min-width: 0; background: var(--bg2); }
.sidebar-head { padding: 0.4rem 0.6rem; border-bottom: 1px solid var(--border); font-size: 0.85rem; color: var(--muted); }
.sidebar-head select { margin-left: 0.3rem; background: var(--bg); border: 1px solid var(--border); border-radius: 4px; }
.search-results { max-height: 40%; overflow: auto; border-bottom: 1px solid var(--border); }
.search-results[hidden] { display: none; }
.search-status { padding: 0.3rem 0.6rem; font-size: 0.8rem; color: var(--muted); }
.search-list { display: flex; flex-direction: column; }
.result {
	display: block; width: 100%; text-align: left; border: 0; border-top: 1px solid var(--border); background: none;
	padding: 0.3rem 0.6rem; font-size: 0.82rem;
}
.result:hover, .result:focus { background: var(--accent-bg); outline: none; }
.r-role { font-weight: 600; margin-right: 0.4rem; }
.r-id { color: var(--muted); margin-right: 0.4rem; }
.r-snippet { display: block; color: var(--fg); overflow-wrap: anywhere; }
mark { background: var(--mark); color: inherit; }

.tree { flex: 1; overflow: auto; font-size: 12.5px; position: relative; }
/* No row is wider than the pane: the preview (and a long label) give way, ending in "…", so the
   id, the kind and "← leaf" always show; deep indentation is capped by the client (clipPrefix). */
.tree-rows { position: relative; min-width: 0; }
.tree-rows.virtual .row { position: absolute; left: 0; right: 0; }
.row {
	height: var(--row-height); line-height: var(--row-height); white-space: pre; padding: 0 0.6rem 0 0.4rem;
	cursor: pointer; color: var(--fg); display: flex; overflow: hidden;
}
/* What gives way first: the preview, then the label, then (on a very narrow pane) the indentation. */
.row > * { flex: none; }
.row > .rtext, .row > .note-text, .row > .unfold { flex: 0 1000 auto; min-width: 0; overflow: hidden; text-overflow: ellipsis; }
.row > .rlabel { flex: 0 100 auto; min-width: 0; overflow: hidden; text-overflow: ellipsis; }
.row > .prefix { flex: 0 1 auto; min-width: 0; overflow: hidden; }
.row:hover { background: var(--bg3); }
.row[data-on-path="true"] { font-weight: 600; }
.row.current { background: var(--current-bg); }
.row[aria-selected="true"] { background: var(--accent-bg); }
.row .prefix, .row.note { color: var(--muted); }
.row .mark, .row .rleaf { color: var(--accent); font-weight: 700; }
.row .rid { color: var(--muted); }
.row .rlabel { color: var(--custom); font-weight: 700; }
.row .rtext { font-weight: normal; }
.row.note { cursor: default; }
.gutter { display: inline-block; width: 1.1em; text-align: center; }
.fold, .unfold {
	border: 0; background: none; padding: 0; color: var(--accent); height: var(--row-height); line-height: var(--row-height);
}
.unfold { font-family: inherit; font-size: inherit; white-space: pre; }
.tree-empty { padding: 0.6rem; color: var(--muted); }
.k-user .rkind, .k-user .ctx-role { color: var(--user); }
.k-assistant .rkind, .k-assistant .ctx-role { color: var(--assistant); }
.k-toolResult .rkind, .k-bashExecution .rkind, .k-toolResult .ctx-role, .k-bashExecution .ctx-role { color: var(--tool); }
.k-compaction .rkind, .k-branch_summary .rkind, .k-compaction-summary .ctx-role, .k-branch-summary .ctx-role { color: var(--summary); }
.k-custom .rkind, .k-custom_message .rkind, .k-custom .ctx-role { color: var(--custom); }

.conversation { overflow: auto; padding: 0.8rem 1.2rem 3rem; min-width: 0; }
.entries { display: flex; flex-direction: column; gap: 0.6rem; max-width: 60rem; margin: 0 auto; }
.more-entries {
	display: block; margin: 0.4rem auto; padding: 0.3rem 0.8rem; border: 1px solid var(--border); border-radius: 4px;
	background: var(--bg2); color: var(--accent);
}
.more-entries[hidden] { display: none; }
.entry { border: 1px solid var(--border); border-left: 4px solid var(--border); border-radius: 6px; background: var(--bg); }
.entry[aria-current="true"] { box-shadow: 0 0 0 2px var(--accent); }
.entry-head {
	display: flex; gap: 0.6rem; align-items: baseline; padding: 0.3rem 0.7rem; cursor: pointer;
	font-size: 0.82rem; color: var(--muted); border-bottom: 1px solid var(--border); background: var(--bg2); border-radius: 6px 6px 0 0;
}
.entry.marker .entry-head { border-bottom: 0; border-radius: 6px; background: none; }
.entry-kind { font-weight: 600; color: var(--fg); overflow-wrap: anywhere; }
.entry-id { margin-left: auto; }
.label-chip { background: var(--current-bg); color: var(--fg); border-radius: 3px; padding: 0 0.35rem; font-weight: 600; }
.entry-body { padding: 0.2rem 0.9rem 0.6rem; overflow-wrap: anywhere; }
.entry.k-user { border-left-color: var(--user); }
.entry.k-assistant { border-left-color: var(--assistant); }
.entry.k-tool-result, .entry.k-bash { border-left-color: var(--tool); }
.entry.k-tool-result.error { border-left-color: var(--error); }
.entry.k-compaction, .entry.k-branch-summary { border-left-color: var(--summary); background: var(--bg2); }
.entry.k-custom { border-left-color: var(--custom); }
.entry.marker { border-style: dashed; border-left-width: 1px; }
/* Custom entries (bookkeeping) are hidden unless asked for (the filter "all") or selected: conversation.ts. */
.entries:not(.show-bookkeeping) .entry.bookkeeping:not([aria-current="true"]) { display: none; }
.bookkeeping-note { max-width: 60rem; margin: 0 auto 0.6rem; color: var(--muted); font-size: 0.8rem; }
.bookkeeping-note[hidden] { display: none; }
.md p, .md ul, .md ol, .md blockquote, .md pre, .md .table-wrap { margin: 0.5rem 0; }
.md .md-h { font-size: 1rem; margin: 0.7rem 0 0.3rem; }
.md blockquote { border-left: 3px solid var(--border); padding-left: 0.8rem; color: var(--muted); }
.md code { background: var(--code-bg); border-radius: 3px; padding: 0 0.2rem; font-size: 0.9em; }
.md pre code { background: none; padding: 0; }
.md .raw-html { color: var(--muted); }
.md .md-image, .md .link-url { color: var(--muted); }
.md a { color: var(--accent); }
.md table { border-collapse: collapse; }
.md th, .md td { border: 1px solid var(--border); padding: 0.2rem 0.5rem; }
.md .table-wrap { overflow-x: auto; }
.plain { white-space: pre-wrap; }
pre { background: var(--code-bg); padding: 0.5rem 0.7rem; border-radius: 4px; overflow-x: auto; white-space: pre; font-size: 12.5px; }
.output { position: relative; margin: 0.5rem 0; }
.output pre { margin: 0; }
.output.clamped pre { max-height: calc(12 * 1.45em + 1rem); overflow: hidden; }
.output-toggle { margin-top: 0.25rem; border: 1px solid var(--border); border-radius: 4px; background: var(--bg2); color: var(--accent); font-size: 0.8rem; }
.command { color: var(--tool); font-weight: 600; }
.tool-call { margin: 0.5rem 0; }
.tool-call-head, .diff-head { font-size: 0.82rem; font-weight: 600; color: var(--tool); }
details.thinking { margin: 0.5rem 0; color: var(--muted); border-left: 2px solid var(--border); padding-left: 0.6rem; }
details.thinking summary { cursor: pointer; font-size: 0.85rem; }
.thinking-redacted, .stopped, .empty, .block-other, .image-missing { color: var(--muted); font-style: italic; }
.stopped { color: var(--error); }
.usage { margin-top: 0.4rem; font-size: 0.78rem; color: var(--muted); }
.diff span { display: block; }
.diff-add { background: var(--add-bg); color: var(--add); }
.diff-del { background: var(--del-bg); color: var(--del); }
.diff-hunk { color: var(--hunk); }
figure.image { margin: 0.5rem 0; }
figure.image img { max-width: 100%; max-height: 28rem; border: 1px solid var(--border); border-radius: 4px; }

.context { overflow: auto; border-left: 1px solid var(--border); background: var(--bg2); padding: 0.6rem 0.8rem 2rem; font-size: 0.85rem; }
.context h2 { font-size: 0.95rem; margin: 0 0 0.4rem; }
.ctx-facts p { margin: 0.2rem 0; color: var(--muted); overflow-wrap: anywhere; }
.ctx-tokens { font-weight: 700; color: var(--fg); cursor: help; }
.ctx-facts .ctx-explain { font-size: 0.78rem; }
.ctx-list { list-style: none; margin: 0.6rem 0 0; padding: 0; }
.ctx-item { padding: 0.15rem 0; border-bottom: 1px solid var(--border); cursor: pointer; display: flex; gap: 0.4rem; }
.ctx-n { color: var(--muted); min-width: 2.2em; text-align: right; }
.ctx-item:hover { background: var(--bg3); }
.ctx-role { font-weight: 600; white-space: nowrap; }
.ctx-text { flex: 1; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.ctx-est { color: var(--muted); white-space: nowrap; }
/* Session text next to the page's own: a right-to-left name cannot pull the text around it along. */
.rid, .rkind, .rlabel, .rtext, .note-text, .r-role, .r-id, .r-snippet, .entry-kind, .entry-id, .label-chip,
.ctx-role, .ctx-text, .facts span { unicode-bidi: isolate; }
@media (max-width: 900px) {
	#app { height: auto; }
	.panes { grid-template-columns: 1fr; }
	.splitter { display: none; }
	.sidebar { max-height: 45vh; }
	.conversation, .context { overflow: visible; }
}
`;
