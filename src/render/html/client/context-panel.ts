/**
 * The context panel: exactly what the model receives with the selected entry as the leaf
 * (the core's `buildContextEntries` of the path, as `session-tree ctx --leaf`), one item per
 * context message in context order, each with the id of the entry it comes from and its token
 * estimate; the estimate of the whole context, the model and thinking level, and the tokens
 * and cost recorded on the path and in the whole session.
 */

import { buildContextEntries, type ContextEntry, pathState, stepsOf } from "../../../core/context.js";
import { estimateContextTokens, estimateTokens, sumUsage, type UsageTotals } from "../../../core/tokens.js";
import type { SessionEntry } from "../../../core/types.js";
import { describeMessage, modelLabel, oneLine, sanitize } from "../../preview.js";
import { append, el } from "./dom.js";
import { formatCost, groupDigits } from "./format.js";

/** Items rendered at first (the last ones), and added at a time. */
export const CONTEXT_WINDOW = 300;

/** The messages of a path's entries, for adding up usage. */
export function messagesOf(entries: readonly SessionEntry[]): unknown[] {
	const messages: unknown[] = [];
	for (const entry of entries) if (entry.type === "message") messages.push(entry.message);
	return messages;
}

function totalsText(totals: UsageTotals): string {
	if (totals.messages === 0) return "no usage recorded";
	const parts = [
		`${groupDigits(totals.input)} in`,
		`${groupDigits(totals.output)} out`,
		`${groupDigits(totals.cacheRead)} cache read`,
		`${groupDigits(totals.cacheWrite)} cache write`,
	];
	const replies = `${groupDigits(totals.messages)} repl${totals.messages === 1 ? "y" : "ies"}`;
	return `${parts.join(" · ")} · ${formatCost(totals.cost)} (${replies})`;
}

/** The context panel. */
export class ContextPanel {
	/** `aside[data-role="context"]`. */
	readonly element: HTMLElement;
	private readonly facts: HTMLElement;
	private readonly list: HTMLElement;
	private readonly earlier: HTMLButtonElement;
	private readonly sessionTotals: UsageTotals;
	private readonly onSelect: (id: string) => void;
	private items: ContextEntry[] = [];
	private start = 0;

	constructor(sessionTotals: UsageTotals, onSelect: (id: string) => void) {
		this.sessionTotals = sessionTotals;
		this.onSelect = onSelect;
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

	/** Shows the context of a root-to-entry path (empty: before the first entry). */
	show(path: readonly SessionEntry[]): void {
		this.items = buildContextEntries(path);
		const messages = this.items.map((item) => item.message);
		let estimate = 0;
		for (const message of messages) estimate += estimateTokens(message);
		const state = pathState(stepsOf(path));
		const pi = estimateContextTokens(messages);
		const at = path.at(-1)?.id;
		const model = modelLabel(state.model) ?? "(none)";
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
					attrs: { "data-role": "context-tokens", "data-tokens": String(estimate) },
					text: `≈ ${estimate} tokens (estimate)`,
				}),
				` in ${groupDigits(messages.length)} message${messages.length === 1 ? "" : "s"}`,
			),
			pi.lastUsageIndex !== null
				? el("p", {
						class: "ctx-pi",
						text: `pi's estimate: ${groupDigits(pi.tokens)} (last reported usage ${groupDigits(pi.usageTokens)} + ${groupDigits(pi.trailingTokens)} after it)`,
					})
				: null,
			el("p", { text: `Model: ${model} · thinking: ${state.thinkingLevel}` }),
			el("p", { class: "ctx-usage", text: `Path: ${totalsText(sumUsage(messagesOf(path)))}` }),
			el("p", { class: "ctx-usage", text: `Session: ${totalsText(this.sessionTotals)}` }),
		);
		this.start = Math.max(0, this.items.length - CONTEXT_WINDOW);
		const fragment = document.createDocumentFragment();
		for (let i = this.start; i < this.items.length; i++) fragment.append(this.item(i));
		this.list.replaceChildren(fragment);
		this.updateButton();
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
