/**
 * The context panel: exactly what the model receives with the selected entry as the leaf
 * (the core's `buildContextEntries` of the path, as `session-tree ctx --leaf`), one item per
 * context message in context order, each with the id of the entry it comes from and its token
 * estimate; the estimate of the whole context, the model and thinking level, and the tokens
 * and cost recorded on the path and in the whole session (once the page has read every body:
 * app.ts reads a large session's in the background after its first render).
 */

import { type ContextEntry, contextEntriesOf, pathState } from "../../../core/context.js";
import { estimateTokens } from "../../../core/tokens.js";
import type { PathStep, SessionEntry } from "../../../core/types.js";
import { describeMessage, modelLabel, oneLine, sanitize } from "../../preview.js";
import { contextSize, contextSizeText, PathTotals, type ReportedTotals, reportedTotalsText } from "../../usage.js";
import { append, el } from "./dom.js";
import { groupDigits } from "./format.js";

/** Items rendered at first (the last ones), and added at a time. */
export const CONTEXT_WINDOW = 80;

/** The messages of a path's entries, for adding up usage. */
export function messagesOf(entries: readonly SessionEntry[]): unknown[] {
	const messages: unknown[] = [];
	for (const entry of entries) if (entry.type === "message") messages.push(entry.message);
	return messages;
}

/** The context panel. */
export class ContextPanel {
	/** `aside[data-role="context"]`. */
	readonly element: HTMLElement;
	private readonly facts: HTMLElement;
	private readonly list: HTMLElement;
	private readonly earlier: HTMLButtonElement;
	private readonly onSelect: (id: string) => void;
	/** The session's totals, once every body is read (see {@link bodiesRead}). */
	private sessionTotals: ReportedTotals | undefined;
	private path: readonly PathStep[] = [];
	/** The totals of the paths shown, kept: a leaf change adds up only what its path does not share. */
	private readonly pathTotals = new PathTotals();
	private readonly pathUsage: HTMLElement;
	private readonly sessionUsage: HTMLElement;
	private items: ContextEntry[] = [];
	private start = 0;

	/**
	 * A panel whose usage totals wait for {@link bodiesRead}: they add up every message of the
	 * path and of the session, which in a large session are mostly bodies not parsed yet.
	 */
	constructor(onSelect: (id: string) => void) {
		this.onSelect = onSelect;
		const totalsTitle =
			"Usage as the replies recorded it: a count or cost a reply did not report is left out, not counted as 0.";
		this.pathUsage = el("p", { class: "ctx-usage", attrs: { "data-role": "path-usage", title: totalsTitle } });
		this.sessionUsage = el("p", { class: "ctx-usage", attrs: { "data-role": "session-usage", title: totalsTitle } });
		this.facts = el("div", { class: "ctx-facts" });
		this.earlier = el("button", { class: "more-entries earlier", attrs: { type: "button" } });
		this.earlier.addEventListener("click", () => this.showEarlier());
		this.list = el("ol", { class: "ctx-list" });
		this.list.addEventListener("click", (event) => {
			const item = event.target instanceof Element ? event.target.closest("[data-entry-id]") : null;
			const id = item?.getAttribute("data-entry-id");
			if (id) this.onSelect(id);
		});
		this.element = el(
			"aside",
			{ class: "context", attrs: { "data-role": "context", "aria-label": "Model context" } },
			el("h2", { text: "Context" }),
			this.facts,
			this.earlier,
			this.list,
		);
	}

	/**
	 * Shows the context of a root-to-entry path (empty: before the first entry), given as steps
	 * (the tree's nodes): their types and roles are read without a copy of the path per change
	 * (`stepsOf` of a 73,000-entry path, twice, was a tenth of a leaf change at s100k).
	 */
	show(path: readonly PathStep[]): void {
		this.items = contextEntriesOf(path);
		const messages = this.items.map((item) => item.message);
		// One figure: the last reported usage plus estimates after it, else estimates (render/usage.ts).
		const size = contextSize(messages);
		const text = contextSizeText(size);
		const state = pathState(path);
		const at = path.at(-1)?.id;
		const model = modelLabel(state.model) ?? "(none)";
		this.path = path;
		this.showUsage();
		this.facts.replaceChildren();
		append(
			this.facts,
			el("p", {
				class: "ctx-at",
				text: at ? `What the model receives with ${at} as the leaf.` : "Before the first entry.",
			}),
			el(
				"p",
				{},
				el("span", {
					class: "ctx-tokens",
					attrs: {
						"data-role": "context-tokens",
						"data-tokens": String(size.tokens),
						"data-source": size.source,
						title: text.explanation,
					},
					text: text.figure,
				}),
				` in ${groupDigits(messages.length)} message${messages.length === 1 ? "" : "s"}`,
			),
			el("p", { class: "ctx-explain", attrs: { "data-role": "context-explanation" }, text: text.explanation }),
			el("p", { text: `Model: ${model} · thinking: ${state.thinkingLevel}` }),
			this.pathUsage,
			this.sessionUsage,
		);
		this.start = Math.max(0, this.items.length - CONTEXT_WINDOW);
		const fragment = document.createDocumentFragment();
		for (let i = this.start; i < this.items.length; i++) fragment.append(this.item(i));
		this.list.replaceChildren(fragment);
		this.updateButton();
	}

	/** Every body is read: the usage totals are shown, the session's as given. */
	bodiesRead(sessionTotals: ReportedTotals): void {
		this.sessionTotals = sessionTotals;
		this.showUsage();
	}

	/** The usage lines: the totals, or that they are being counted (`data-pending`) until every body is read. */
	private showUsage(): void {
		const totals = this.sessionTotals;
		for (const line of [this.pathUsage, this.sessionUsage]) line.toggleAttribute("data-pending", totals === undefined);
		if (totals === undefined) {
			this.pathUsage.textContent = "Path: counting…";
			this.sessionUsage.textContent = "Session: counting…";
			return;
		}
		const onPath = this.pathTotals.of(this.path);
		this.pathUsage.textContent = `Path: ${reportedTotalsText(onPath)}`;
		this.sessionUsage.textContent = `Session: ${reportedTotalsText(totals)}`;
	}

	private showEarlier(): void {
		const from = Math.max(0, this.start - CONTEXT_WINDOW);
		const fragment = document.createDocumentFragment();
		for (let i = from; i < this.start; i++) fragment.append(this.item(i));
		this.list.prepend(fragment);
		this.start = from;
		this.updateButton();
	}

	private updateButton(): void {
		this.earlier.hidden = this.start === 0;
		this.earlier.textContent = `Show earlier messages (${groupDigits(this.start)} more)`;
	}

	private item(index: number): HTMLElement {
		const { entry, message } = this.items[index] as ContextEntry;
		const description = describeMessage(message);
		const kind = sanitize(description.kind);
		const li = el("li", {
			class: `ctx-item k-${kind.replace(/[^A-Za-z0-9_-]/g, "-")}`,
			attrs: { "data-entry-id": entry.id, value: String(index + 1), title: `from entry ${entry.id}` },
		});
		li.append(
			el("span", { class: "ctx-n", text: String(index + 1) }),
			el("span", { class: "ctx-role", text: kind }),
			el("span", { class: "ctx-text", text: oneLine(description.text, 120) }),
			el("span", { class: "ctx-est", text: `≈ ${groupDigits(estimateTokens(message))}` }),
		);
		return li;
	}
}
