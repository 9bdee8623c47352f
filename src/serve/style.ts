/** The stylesheet of the sessions and search pages (light and dark by the system's preference). */

export const SERVE_CSS = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--accent:#0969da;--mark:#fff8c5;--row:#f6f8fa}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--accent:#4493f8;--mark:#5a4a00;--row:#151b23}}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;background:var(--bg);color:var(--fg)}
header{display:flex;gap:16px;align-items:center;padding:10px 16px;border-bottom:1px solid var(--line)}
header h1{font-size:16px;margin:0}
nav a{margin-right:12px}
a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}
main{padding:12px 16px}
.filters{display:flex;gap:8px;flex-wrap:wrap;align-items:center;margin-bottom:10px}
select,input,button{font:inherit;color:inherit;background:var(--bg);border:1px solid var(--line);border-radius:6px;padding:4px 8px}
input[type=search]{min-width:320px}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:5px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{font-weight:600;color:var(--muted)}
tr:nth-child(even) td{background:var(--row)}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.title{max-width:48ch;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
td.project{max-width:32ch;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;color:var(--muted)}
.agent{display:inline-block;padding:0 6px;border-radius:10px;border:1px solid var(--line);font-size:12px}
.pager{display:flex;gap:8px;align-items:center;margin-top:10px;color:var(--muted)}
.hits{list-style:none;margin:0;padding:0}
.hit{padding:8px 0;border-bottom:1px solid var(--line)}
.hit .meta{color:var(--muted);font-size:12px;display:flex;gap:10px}
.hit .snippet{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:13px;white-space:pre-wrap;word-break:break-word}
.hit mark{background:var(--mark);color:inherit}
.side{color:#bc4c00}.active{color:#1a7f37}
.status{color:var(--muted)}
.error{color:#cf222e}
`;
