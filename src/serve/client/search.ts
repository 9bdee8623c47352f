/**
 * The search page: every session and every branch (`/api/search`), each hit with its session,
 * role, whether it is on the active branch or a side one, and its snippet with the match
 * marked. A hit opens the session selected at that entry (`/s/KEY#leaf=…&entry=ID`; a side
 * branch's hit names only the entry, and the page takes the path through it).
 */

import { agentName, getJson, h, pageHeader } from "./dom.js";
import { filters } from "./filters.js";

interface Hit {
	key: string;
	agent: string | null;
	title: string;
	entryId: string;
	leafId: string | null;
	role: string;
	onActiveBranch: boolean;
	snippet: string;
	matchStart: number;
	matchEnd: number;
}

/** The link that opens a hit. */
function hitHref(hit: Hit): string {
	const entry = `entry=${encodeURIComponent(hit.entryId)}`;
	return `/s/${hit.key}#${hit.leafId !== null ? `leaf=${encodeURIComponent(hit.leafId)}&${entry}` : entry}`;
}

/** Starts the search page. */
export async function searchPage(app: HTMLElement): Promise<void> {
	const query = new URLSearchParams(window.location.search);
	const input = h("input", {
		type: "search",
		"data-role": "query",
		placeholder: "text in any session, any branch",
		"aria-label": "Search",
	}) as HTMLInputElement;
	input.value = query.get("q") ?? "";
	const regex = h("input", { type: "checkbox", "data-role": "regex" }) as HTMLInputElement;
	regex.checked = query.get("regex") === "1";
	const ignoreCase = h("input", { type: "checkbox", "data-role": "ignore-case" }) as HTMLInputElement;
	ignoreCase.checked = query.get("i") !== "0";
	const list = h("ol", { class: "hits", "data-role": "hits" });
	const status = h("p", { class: "status", "data-role": "status" });
	let seq = 0;
	const run = async () => {
		const mine = ++seq;
		const params = chosen.params();
		const q = input.value;
		if (q !== "") params.set("q", q);
		if (regex.checked) params.set("regex", "1");
		params.set("i", ignoreCase.checked ? "1" : "0");
		history.replaceState(null, "", params.size > 0 ? `?${params}` : window.location.pathname);
		if (q === "") {
			list.replaceChildren();
			status.textContent = "";
			document.documentElement.setAttribute("data-ready", "true");
			return;
		}
		status.textContent = "searching…";
		try {
			const result = await getJson<{ hits: Hit[]; sessions: number; limited: boolean }>(`/api/search?${params}`);
			if (mine !== seq) return;
			list.replaceChildren(...result.hits.map(hitItem));
			const n = result.hits.length;
			status.textContent = `${n}${result.limited ? "+" : ""} ${n === 1 ? "hit" : "hits"} in ${result.sessions} ${result.sessions === 1 ? "session" : "sessions"}`;
		} catch (error) {
			list.replaceChildren();
			status.textContent = error instanceof Error ? error.message : String(error);
			status.className = "status error";
		}
		document.documentElement.setAttribute("data-ready", "true");
	};
	const chosen = await filters(query, () => void run());
	const form = h(
		"form",
		{ class: "filters", role: "search" },
		input,
		h("label", {}, regex, " regex"),
		h("label", {}, ignoreCase, " ignore case"),
		chosen.element,
	);
	form.addEventListener("submit", (event) => {
		event.preventDefault();
		void run();
	});
	regex.addEventListener("change", () => void run());
	ignoreCase.addEventListener("change", () => void run());
	app.replaceChildren(pageHeader("search"), h("main", {}, form, status, list));
	input.focus();
	await run();
}

function hitItem(hit: Hit): HTMLElement {
	const s = hit.snippet;
	return h(
		"li",
		{ class: "hit", "data-key": hit.key, "data-entry": hit.entryId },
		h("a", { href: hitHref(hit) }, hit.title),
		h(
			"div",
			{ class: "meta" },
			h("span", { class: "agent" }, agentName(hit.agent)),
			h("span", {}, hit.role),
			h(
				"span",
				{ class: hit.onActiveBranch ? "active" : "side", "data-branch": hit.onActiveBranch ? "active" : "side" },
				hit.onActiveBranch ? "active branch" : "side branch",
			),
		),
		h(
			"div",
			{ class: "snippet" },
			s.slice(0, hit.matchStart),
			h("mark", {}, s.slice(hit.matchStart, hit.matchEnd)),
			s.slice(hit.matchEnd),
		),
	);
}
