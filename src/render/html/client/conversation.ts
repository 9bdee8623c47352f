/**
 * The conversation pane: the path from the root to the leaf, one `article[data-entry-id]` per
 * entry in path order. It renders lazily: a window of {@link FIRST_WINDOW} entries (the last
 * ones, or those around the selected entry), about what a screen shows, so that a new path is
 * drawn without rendering entries no one sees (nor parsing their bodies: the path is the tree's
 * nodes); then {@link WINDOW} more at a time when scrolled
 * to either end or asked for. The path itself is only an array: the index of each of its
 * entries (for {@link Conversation.indexOf}) is built the first time one other than the last is
 * looked up.
 *
 * Custom entries (`custom`: an extension's state, or the bookkeeping records an import keeps,
 * such as `codex:turn_context` or `claude-code:progress`) never reach the model; as the tree's
 * filters hide them but `all`, the conversation hides them unless {@link setShowBookkeeping} is
 * on (the page turns it on with the `all` filter). They stay in the DOM, marked `bookkeeping`,
 * and the selected one is shown whatever the setting.
 */

import type { PathStep } from "../../../core/types.js";
import { el } from "./dom.js";
import { type EntryViewOptions, renderEntry, syncOutputToggle } from "./entry-view.js";
import { groupDigits } from "./format.js";

/** Entries added at a time when scrolled to either end. */
export const WINDOW = 100;
/** Entries rendered when a path is shown or the selection jumps far. */
export const FIRST_WINDOW = 24;

/** The conversation pane. */
export class Conversation {
	/** `main[data-role="conversation"]`. */
	readonly element: HTMLElement;
	private readonly list: HTMLElement;
	private readonly earlier: HTMLButtonElement;
	private readonly later: HTMLButtonElement;
	private readonly options: EntryViewOptions;
	private readonly onSelect: (id: string) => void;
	private path: readonly PathStep[] = [];
	/** Path index by id; undefined until needed (see {@link position}). */
	private positions: Map<string, number> | undefined;
	/** The rendered entries: path[start, end). */
	private start = 0;
	private end = 0;
	private selected = -1;
	private showBookkeeping = false;
	private readonly note: HTMLElement;

	constructor(options: EntryViewOptions, onSelect: (id: string) => void) {
		this.options = options;
		this.onSelect = onSelect;
		this.earlier = el("button", { class: "more-entries earlier", attrs: { type: "button" } });
		this.later = el("button", { class: "more-entries later", attrs: { type: "button" } });
		this.earlier.addEventListener("click", () => this.showEarlier());
		this.later.addEventListener("click", () => this.showLater());
		this.list = el("div", { class: "entries" });
		this.note = el("p", { class: "bookkeeping-note", attrs: { "data-role": "bookkeeping-note" } });
		this.element = el(
			"main",
			{ class: "conversation", attrs: { "data-role": "conversation", "aria-label": "Conversation", tabindex: "-1" } },
			this.note,
			this.earlier,
			this.list,
			this.later,
		);
		this.list.addEventListener("click", (event) => this.clicked(event));
		// Scrolled to the top or the bottom: the next entries come in.
		const observer = new IntersectionObserver(
			(records) => {
				for (const record of records) {
					if (!record.isIntersecting) continue;
					if (record.target === this.earlier && this.start > 0) this.showEarlier();
					if (record.target === this.later && this.end < this.path.length) this.showLater();
				}
			},
			{ root: this.element, rootMargin: "200px" },
		);
		observer.observe(this.earlier);
		observer.observe(this.later);
	}

	/** The index in the path of an entry, if it is on it. */
	indexOf(id: string): number | undefined {
		return this.position(id);
	}

	/** The index of an entry on the path: the last one at once, any other by the index, built once per path. */
	private position(id: string): number | undefined {
		const last = this.path.length - 1;
		if (last >= 0 && this.path[last]?.id === id) return last;
		if (this.positions === undefined) {
			this.positions = new Map();
			for (let i = 0; i < this.path.length; i++) this.positions.set((this.path[i] as PathStep).id, i);
		}
		return this.positions.get(id);
	}

	/** The path shown, as steps: an entry's body is read only where it is rendered. */
	get entries(): readonly PathStep[] {
		return this.path;
	}

	/**
	 * Shows a new path with `selectedId` as the selected entry (the last one when null), not
	 * scrolled to yet: see {@link mark} and {@link scrollToSelected}.
	 */
	setPath(path: readonly PathStep[], selectedId: string | null): void {
		this.path = path;
		this.positions = undefined;
		const n = path.length;
		const selected = selectedId === null ? n - 1 : (this.position(selectedId) ?? n - 1);
		if (selected >= n - FIRST_WINDOW) {
			this.start = Math.max(0, n - FIRST_WINDOW);
			this.end = n;
		} else {
			this.start = Math.max(0, selected - FIRST_WINDOW / 2);
			this.end = Math.min(n, this.start + FIRST_WINDOW);
		}
		this.selected = -1;
		const fragment = document.createDocumentFragment();
		for (let i = this.start; i < this.end; i++) fragment.append(this.render(i));
		this.list.replaceChildren(fragment);
		if (n === 0) this.list.append(el("p", { class: "empty", text: "(no entries on this path)" }));
		this.updateButtons();
		this.updateNote();
		this.mark(selectedId ?? path[n - 1]?.id ?? null);
	}

	/** Shows or hides the custom entries (see the module's documentation). */
	setShowBookkeeping(show: boolean): void {
		this.showBookkeeping = show;
		this.list.classList.toggle("show-bookkeeping", show);
		this.updateNote();
	}

	/** Whether the entry at a path index is hidden (a custom entry while they are hidden). */
	isHidden(index: number): boolean {
		return !this.showBookkeeping && this.path[index]?.type === "custom";
	}

	private updateNote(): void {
		let hidden = 0;
		if (!this.showBookkeeping) for (const step of this.path) if (step.type === "custom") hidden++;
		this.note.hidden = hidden === 0;
		this.note.textContent = `${groupDigits(hidden)} bookkeeping record${hidden === 1 ? "" : "s"} of the agent (custom entries, which the model never receives) hidden: the tree's filter “all” shows them.`;
	}

	/**
	 * Marks the selected entry (`aria-current`), rendering it if needed, without scrolling to it:
	 * the page lays out when it is scrolled to, so a change that writes other parts of the page
	 * too writes them all before {@link scrollToSelected}.
	 */
	mark(id: string | null): void {
		const index = id === null ? undefined : this.position(id);
		this.list.querySelector('[aria-current="true"]')?.removeAttribute("aria-current");
		this.selected = index ?? -1;
		if (index === undefined) return;
		this.ensureRendered(index);
		this.nodeAt(index)?.setAttribute("aria-current", "true");
	}

	/** Scrolls to the selected entry: `end` puts the path's last entry at the bottom, any other in the middle. */
	scrollToSelected(where: "center" | "nearest" | "end"): void {
		const index = this.selected;
		const node = index < 0 ? undefined : this.nodeAt(index);
		if (!node) return;
		if (where === "end") node.scrollIntoView({ block: index === this.path.length - 1 ? "end" : "center" });
		else node.scrollIntoView({ block: where });
	}

	/** The id of the selected entry. */
	get selectedId(): string | null {
		return this.path[this.selected]?.id ?? null;
	}

	/** Opens or closes every thinking block (and those rendered later). */
	setThinkingOpen(open: boolean): void {
		this.options.thinkingOpen = open;
		for (const details of this.list.querySelectorAll<HTMLDetailsElement>("details.thinking")) details.open = open;
	}

	/** Expands or collapses every long tool output (and those rendered later). */
	setOutputOpen(open: boolean): void {
		this.options.outputOpen = open;
		for (const wrap of this.list.querySelectorAll(".output.clampable")) {
			wrap.classList.toggle("clamped", !open);
			syncOutputToggle(wrap);
		}
	}

	private render(index: number): HTMLElement {
		const entry = (this.path[index] as PathStep).entry;
		const node = renderEntry(entry, this.options);
		if (entry.type === "custom") node.classList.add("bookkeeping");
		return node;
	}

	private nodeAt(index: number): HTMLElement | undefined {
		const node = this.list.children[index - this.start];
		return node instanceof HTMLElement ? node : undefined;
	}

	/** Renders entries until `index` is in the window (the window stays contiguous). */
	private ensureRendered(index: number): void {
		if (index >= this.start && index < this.end) return;
		if (Math.min(Math.abs(index - this.start), Math.abs(index - this.end)) > WINDOW * 5) {
			// Far away: a new window around it.
			this.start = Math.max(0, index - FIRST_WINDOW / 2);
			this.end = Math.min(this.path.length, this.start + FIRST_WINDOW);
			const fragment = document.createDocumentFragment();
			for (let i = this.start; i < this.end; i++) fragment.append(this.render(i));
			this.list.replaceChildren(fragment);
		} else if (index < this.start) this.prepend(Math.max(0, index - 10));
		else this.appendUpTo(Math.min(this.path.length, index + 11));
		this.updateButtons();
	}

	private showEarlier(): void {
		if (this.start === 0) return;
		this.prepend(Math.max(0, this.start - WINDOW));
		this.updateButtons();
	}

	private showLater(): void {
		if (this.end >= this.path.length) return;
		this.appendUpTo(Math.min(this.path.length, this.end + WINDOW));
		this.updateButtons();
	}

	/** Renders path[from, start) before the window, keeping what is in view where it is. */
	private prepend(from: number): void {
		const before = this.element.scrollHeight;
		const top = this.element.scrollTop;
		const fragment = document.createDocumentFragment();
		for (let i = from; i < this.start; i++) fragment.append(this.render(i));
		this.list.prepend(fragment);
		this.start = from;
		this.element.scrollTop = top + (this.element.scrollHeight - before);
	}

	/** Renders path[end, to) after the window. */
	private appendUpTo(to: number): void {
		const fragment = document.createDocumentFragment();
		for (let i = this.end; i < to; i++) fragment.append(this.render(i));
		this.list.append(fragment);
		this.end = to;
	}

	private updateButtons(): void {
		this.earlier.hidden = this.start === 0;
		this.earlier.textContent = `Show earlier entries (${groupDigits(this.start)} more)`;
		const after = this.path.length - this.end;
		this.later.hidden = after === 0;
		this.later.textContent = `Show later entries (${groupDigits(after)} more)`;
	}

	private clicked(event: MouseEvent): void {
		const target = event.target;
		if (!(target instanceof Element)) return;
		const toggle = target.closest(".output-toggle");
		if (toggle?.parentElement) {
			toggle.parentElement.classList.toggle("clamped");
			syncOutputToggle(toggle.parentElement);
			return;
		}
		const head = target.closest(".entry-head");
		const id = head?.parentElement?.getAttribute("data-entry-id");
		if (id) this.onSelect(id);
	}
}
