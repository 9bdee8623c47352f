/**
 * The sessions page: newest first, a page of {@link PAGE_SIZE} at a time from
 * `/api/sessions` (the index pages them, so 10,000 sessions cost one page), filtered by agent
 * and project. Each row links to the session's page by its key.
 */

import { agentName, formatBytes, formatDate, getJson, h, pageHeader } from "./dom.js";
import { filters } from "./filters.js";

const PAGE_SIZE = 100;

interface Row {
	key: string;
	agent: string | null;
	title: string;
	cwd: string;
	entries: number;
	branches: number;
	bytes: number;
	modified: string;
}

/** Starts the sessions page. */
export async function listPage(app: HTMLElement): Promise<void> {
	const query = new URLSearchParams(window.location.search);
	let offset = Number.parseInt(query.get("offset") ?? "0", 10) || 0;
	const body = h("tbody", { "data-role": "sessions" });
	const status = h("span", { class: "status", "data-role": "status" });
	const prev = h("button", { type: "button", "data-role": "prev" }, "← newer") as HTMLButtonElement;
	const next = h("button", { type: "button", "data-role": "next" }, "older →") as HTMLButtonElement;
	const show = async () => {
		const params = chosen.params();
		params.set("offset", String(offset));
		params.set("limit", String(PAGE_SIZE));
		const page = await getJson<{ total: number; sessions: Row[] }>(`/api/sessions?${params}`);
		body.replaceChildren(
			...page.sessions.map((s) =>
				h(
					"tr",
					{ "data-key": s.key, "data-agent": s.agent ?? "none" },
					h("td", {}, h("span", { class: "agent" }, agentName(s.agent))),
					h("td", { class: "project", title: s.cwd }, s.cwd),
					h("td", { class: "title", title: s.title }, h("a", { href: `/s/${s.key}` }, s.title)),
					h("td", { class: "num" }, String(s.entries)),
					h("td", { class: "num" }, String(s.branches)),
					h("td", { class: "num" }, formatBytes(s.bytes)),
					h("td", { class: "num" }, formatDate(s.modified)),
				),
			),
		);
		const last = Math.min(offset + PAGE_SIZE, page.total);
		status.textContent = page.total === 0 ? "no sessions" : `${offset + 1}–${last} of ${page.total}`;
		prev.disabled = offset === 0;
		next.disabled = last >= page.total;
		const url = new URLSearchParams(chosen.params());
		if (offset > 0) url.set("offset", String(offset));
		history.replaceState(null, "", url.size > 0 ? `?${url}` : window.location.pathname);
		document.documentElement.setAttribute("data-ready", "true");
	};
	const chosen = await filters(query, () => {
		offset = 0;
		void show();
	});
	prev.addEventListener("click", () => {
		offset = Math.max(0, offset - PAGE_SIZE);
		void show();
	});
	next.addEventListener("click", () => {
		offset += PAGE_SIZE;
		void show();
	});
	const head = h(
		"thead",
		{},
		h("tr", {}, ...["Agent", "Project", "Title", "Entries", "Branches", "Size", "Modified"].map((t) => h("th", {}, t))),
	);
	app.replaceChildren(
		pageHeader("list"),
		h("main", {}, chosen.element, h("table", {}, head, body), h("div", { class: "pager" }, prev, status, next)),
	);
	await show();
}
