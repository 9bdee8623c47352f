/**
 * Search over every entry of every branch: the texts the core's `searchableTexts` gives (the
 * ones `session-tree search` looks at), matched as a case-insensitive substring. The scan runs
 * in slices so that the page stays responsive on a large session; results are listed with a
 * preview, and activating one makes its entry the leaf.
 */

import { searchableTexts } from "../../../core/search-text.js";
import type { SessionEntry } from "../../../core/types.js";
import { sanitize } from "../../preview.js";
import { el } from "./dom.js";
import { groupDigits } from "./format.js";

/** Results listed at most (the count goes on). */
export const MAX_RESULTS = 500;
/** Entries scanned before the scan yields to the page. */
const SLICE = 2000;
/** Characters of context shown before and after a match. */
const BEFORE = 40;
const AFTER = 80;

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** White space runs as one space. */
function squash(text: string): string {
	return sanitize(text).replace(/\s+/g, " ");
}

/** The search box and its results. */
export class Search {
	/** `input[data-role="search"]`. */
	readonly input: HTMLInputElement;
	/** `[data-role="search-results"]`. */
	readonly results: HTMLElement;
	private readonly status: HTMLElement;
	private readonly list: HTMLElement;
	/** Every entry in file order, as the tree's nodes: a body not parsed yet is parsed when searched. */
	private readonly entries: readonly { readonly entry: SessionEntry }[];
	private readonly onPick: (id: string) => void;
	private generation = 0;
	private timer: ReturnType<typeof setTimeout> | undefined;

	constructor(entries: readonly { readonly entry: SessionEntry }[], onPick: (id: string) => void) {
		this.entries = entries;
		this.onPick = onPick;
		this.input = el("input", {
			class: "search",
			attrs: {
				type: "search",
				"data-role": "search",
				placeholder: "Search all branches  ( / )",
				"aria-label": "Search every entry of every branch",
				autocomplete: "off",
				spellcheck: "false",
			},
		});
		this.status = el("div", { class: "search-status", attrs: { "aria-live": "polite" } });
		this.list = el("div", { class: "search-list" });
		this.results = el(
			"section",
			{ class: "search-results", attrs: { "data-role": "search-results", "aria-label": "Search results" } },
			this.status,
			this.list,
		);
		this.results.hidden = true;
		this.input.addEventListener("input", () => {
			clearTimeout(this.timer);
			this.timer = setTimeout(() => this.run(), 120);
		});
		this.input.addEventListener("keydown", (event) => {
			if (event.key === "Escape") {
				event.preventDefault();
				this.clear();
				this.input.blur();
			} else if (event.key === "Enter") {
				event.preventDefault();
				clearTimeout(this.timer);
				if (this.input.value.trim() !== this.shownQuery) this.run(true);
				else this.firstResult()?.click();
			} else if (event.key === "ArrowDown") {
				event.preventDefault();
				this.firstResult()?.focus();
			}
		});
		this.list.addEventListener("keydown", (event) => {
			const current = event.target instanceof HTMLElement ? event.target : null;
			if (!current) return;
			if (event.key === "ArrowDown" || event.key === "ArrowUp") {
				event.preventDefault();
				const next = event.key === "ArrowDown" ? current.nextElementSibling : current.previousElementSibling;
				if (next instanceof HTMLElement) next.focus();
				else if (event.key === "ArrowUp") this.input.focus();
			}
		});
	}

	/** The query whose results are shown. */
	private shownQuery = "";

	/** Focuses the search box. */
	focus(): void {
		this.input.focus();
		this.input.select();
	}

	/** Empties the box and the results. */
	clear(): void {
		clearTimeout(this.timer);
		this.generation++;
		this.input.value = "";
		this.shownQuery = "";
		this.list.replaceChildren();
		this.status.textContent = "";
		this.results.hidden = true;
	}

	/** True while results are shown. */
	get open(): boolean {
		return !this.results.hidden;
	}

	private firstResult(): HTMLButtonElement | null {
		return this.list.querySelector("button");
	}

	/** Scans every entry for the query, a slice at a time; `pickFirst` activates the first result. */
	private run(pickFirst = false): void {
		const generation = ++this.generation;
		const query = this.input.value.trim();
		this.shownQuery = query;
		this.list.replaceChildren();
		if (query === "") {
			this.status.textContent = "";
			this.results.hidden = true;
			return;
		}
		this.results.hidden = false;
		const pattern = new RegExp(escapeRegExp(query), "i");
		let matches = 0;
		let at = 0;
		const step = () => {
			if (generation !== this.generation) return;
			const stop = Math.min(this.entries.length, at + SLICE);
			const fragment = document.createDocumentFragment();
			for (; at < stop; at++) {
				const { entry } = this.entries[at] as { readonly entry: SessionEntry };
				const searched = searchableTexts(entry);
				if (!searched) continue;
				for (const text of searched.texts) {
					const found = pattern.exec(text);
					if (!found) continue;
					matches++;
					if (matches <= MAX_RESULTS)
						fragment.append(this.result(entry.id, searched.role, text, found.index, found[0].length));
					break;
				}
			}
			this.list.append(fragment);
			const done = at >= this.entries.length;
			const shown = matches > MAX_RESULTS ? ` (the first ${groupDigits(MAX_RESULTS)} listed)` : "";
			this.status.textContent = `${groupDigits(matches)} entr${matches === 1 ? "y" : "ies"} match${shown}${done ? "" : " …"}`;
			if (pickFirst && matches > 0) {
				pickFirst = false;
				this.firstResult()?.click();
			}
			if (!done) setTimeout(step, 0);
		};
		step();
	}

	private result(id: string, role: string, text: string, index: number, length: number): HTMLButtonElement {
		const from = Math.max(0, index - BEFORE);
		const before = `${from > 0 ? "…" : ""}${squash(text.slice(from, index)).trimStart()}`;
		const to = Math.min(text.length, index + length + AFTER);
		const after = `${squash(text.slice(index + length, to)).trimEnd()}${to < text.length ? "…" : ""}`;
		const button = el(
			"button",
			{ class: "result", attrs: { type: "button", "data-entry-id": id } },
			el("span", { class: "r-role", text: role }),
			el("span", { class: "r-id", text: id }),
			el(
				"span",
				{ class: "r-snippet" },
				before,
				el("mark", { text: squash(text.slice(index, index + length)) }),
				after,
			),
		);
		button.addEventListener("click", () => this.onPick(id));
		return button;
	}
}
