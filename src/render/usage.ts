/**
 * Token figures as the views show them (the HTML export's context panel and conversation,
 * `browse`'s preview): one size of the context, said where it comes from, and usage that a
 * reply did not report shown as absent, never as zeros or `$0`. Pure, without Node modules
 * (the HTML export's browser code uses it).
 *
 * Importers write pi's usage shape with every count they do not know as 0 (Claude Code, Codex
 * and Gemini CLI record no cost; Codex writes no usage on replies between its token counts),
 * and pi writes a cost of 0 for a model it has no price for. So a usage whose token counts are
 * all 0 is no report, and a cost of 0 is no cost reported.
 */

import { estimateTokens, type Usage, usageOf } from "../core/tokens.js";
import type { ContextMessage } from "../core/types.js";
import { isObject } from "../core/validate.js";
import { groupDigits } from "./preview.js";

/** The usage a message reports: {@link usageOf}, unless every token count is 0 (no report). */
export function reportedUsage(message: unknown): Usage | undefined {
	const usage = usageOf(message);
	if (!usage) return undefined;
	return usage.input + usage.output + usage.cacheRead + usage.cacheWrite + usage.totalTokens > 0 ? usage : undefined;
}

/** The size of a context, as one figure and where it comes from. */
export interface ContextSize {
	/** The figure: `reported + estimated`. */
	readonly tokens: number;
	/** `usage`: the last reply that reported usage, plus estimates after it; `estimate`: estimates only. */
	readonly source: "usage" | "estimate";
	/** Messages in the context. */
	readonly messages: number;
	/** The context size that reply reported (its total tokens); 0 for `estimate`. */
	readonly reported: number;
	/** The estimate (characters / 4, pi's heuristic) of the messages after that reply, or of all. */
	readonly estimated: number;
	/** How many messages {@link estimated} covers. */
	readonly estimatedMessages: number;
}

/**
 * The size of a context as pi's `estimateContextTokens` finds it (the size the last reply
 * reported, not aborted or failed, plus the estimates of the messages after it; else the sum of
 * the estimates), with replies that reported no usage ({@link reportedUsage}) passed over
 * rather than counted as 0 tokens.
 */
export function contextSize(messages: readonly ContextMessage[]): ContextSize {
	let estimated = 0;
	for (let i = messages.length - 1; i >= 0; i--) {
		const message = messages[i];
		const usage = reportedUsage(message);
		if (usage && isObject(message) && message.stopReason !== "aborted" && message.stopReason !== "error") {
			const after = messages.length - 1 - i;
			return {
				tokens: usage.totalTokens + estimated,
				source: "usage",
				messages: messages.length,
				reported: usage.totalTokens,
				estimated,
				estimatedMessages: after,
			};
		}
		estimated += estimateTokens(message);
	}
	const n = messages.length;
	return { tokens: estimated, source: "estimate", messages: n, reported: 0, estimated, estimatedMessages: n };
}

/** `N messages` with the right plural. */
function messagesText(n: number): string {
	return `${groupDigits(n)} message${n === 1 ? "" : "s"}`;
}

/**
 * A context size as text: `figure` (`12,345 tokens`, or `≈ 2,279 tokens (estimated)`), `short`
 * (the figure with its parts, for one terminal line) and `explanation` (a sentence: where the
 * figure comes from).
 */
export function contextSizeText(size: ContextSize): { figure: string; short: string; explanation: string } {
	const estimate = `≈ ${groupDigits(size.estimated)}`;
	if (size.source === "estimate") {
		return {
			figure: `${estimate} tokens (estimated)`,
			short: `${estimate} tokens (estimated)`,
			explanation:
				size.messages === 0
					? "An empty context."
					: "No reply on this path reported its usage: estimated from the characters of each message (about 4 a token, pi's heuristic).",
		};
	}
	const figure = `${groupDigits(size.tokens)} tokens`;
	const reported = `${groupDigits(size.reported)} tokens`;
	if (size.estimatedMessages === 0) {
		return {
			figure,
			short: `${figure} (last reported usage)`,
			explanation: `As the last reply on this path reported it: the ${reported} of its input and output.`,
		};
	}
	return {
		figure,
		short: `${figure} (last reported ${groupDigits(size.reported)} + ${estimate} estimated)`,
		explanation:
			`The usage the last reply on this path reported (${reported}, its input and output) ` +
			`plus ${estimate} tokens estimated for the ${messagesText(size.estimatedMessages)} after it ` +
			"(about 4 characters a token, pi's heuristic).",
	};
}

/** Usage added up over replies, counting only what they reported. */
export interface ReportedTotals {
	/** Replies (assistant messages) seen. */
	readonly replies: number;
	/** Replies that reported usage. */
	readonly reported: number;
	readonly input: number;
	readonly output: number;
	readonly cacheRead: number;
	readonly cacheWrite: number;
	/** Dollars, over the replies that reported a cost. */
	readonly cost: number;
	/** Replies that reported a cost above 0. */
	readonly costReported: number;
}

/** Totals of no reply. */
export const NO_TOTALS: ReportedTotals = {
	replies: 0,
	reported: 0,
	input: 0,
	output: 0,
	cacheRead: 0,
	cacheWrite: 0,
	cost: 0,
	costReported: 0,
};

/** `totals` with one more message: changed only by an assistant message (`totals` itself otherwise). */
export function addReported(totals: ReportedTotals, message: unknown): ReportedTotals {
	if (!isObject(message) || message.role !== "assistant") return totals;
	const usage = reportedUsage(message);
	if (!usage) return { ...totals, replies: totals.replies + 1 };
	const costed = usage.cost > 0;
	return {
		replies: totals.replies + 1,
		reported: totals.reported + 1,
		input: totals.input + usage.input,
		output: totals.output + usage.output,
		cacheRead: totals.cacheRead + usage.cacheRead,
		cacheWrite: totals.cacheWrite + usage.cacheWrite,
		cost: costed ? totals.cost + usage.cost : totals.cost,
		costReported: costed ? totals.costReported + 1 : totals.costReported,
	};
}

/** The usage the assistant messages among `messages` reported, added up. */
export function reportedTotals(messages: Iterable<unknown>): ReportedTotals {
	let totals = NO_TOTALS;
	for (const message of messages) totals = addReported(totals, message);
	return totals;
}

/**
 * The totals of root-to-entry paths of one tree, each kept by the id of the entry it ends at:
 * a path's are its parent path's plus its last message, so a path that shares all but its end
 * with one asked before costs the entries after the shared part (a leaf change at s100k added
 * up 73,000 entries again, 15–48 ms). The sums are made in path order, as
 * {@link reportedTotals} of the path's messages makes them, so they are the same numbers.
 */
export class PathTotals {
	private readonly kept = new Map<string, ReportedTotals>();

	/** The totals of `path` (root first), whose entries are parsed (`entry` is read). */
	of(
		path: readonly { readonly id: string; readonly type: string; readonly entry: { readonly type: string } }[],
	): ReportedTotals {
		let at = path.length;
		let totals: ReportedTotals | undefined;
		while (at > 0 && totals === undefined) totals = this.kept.get((path[--at] as { id: string }).id);
		if (totals === undefined) totals = NO_TOTALS;
		else at++;
		for (; at < path.length; at++) {
			const step = path[at] as (typeof path)[number];
			if (step.type === "message") totals = addReported(totals, (step.entry as { message?: unknown }).message);
			this.kept.set(step.id, totals);
		}
		return totals;
	}
}

/** A dollar amount: four decimals below a dollar, two above. */
export function formatCost(dollars: number): string {
	return dollars < 1 ? `$${dollars.toFixed(4)}` : `$${dollars.toFixed(2)}`;
}

/**
 * Totals as one line: `— (not reported by its 3 replies)` without a report; else the counts
 * (cache counts only when above 0), the cost or `cost not reported`, and how many replies
 * reported.
 */
export function reportedTotalsText(totals: ReportedTotals): string {
	if (totals.replies === 0) return "— (no replies)";
	const replies = `${groupDigits(totals.replies)} repl${totals.replies === 1 ? "y" : "ies"}`;
	if (totals.reported === 0) return `— (not reported by ${totals.replies === 1 ? "its reply" : `its ${replies}`})`;
	const parts = [`${groupDigits(totals.input)} in`, `${groupDigits(totals.output)} out`];
	if (totals.cacheRead > 0) parts.push(`${groupDigits(totals.cacheRead)} cache read`);
	if (totals.cacheWrite > 0) parts.push(`${groupDigits(totals.cacheWrite)} cache write`);
	parts.push(totals.costReported > 0 ? formatCost(totals.cost) : "cost not reported");
	const of = totals.reported === totals.replies ? replies : `${groupDigits(totals.reported)} of ${replies}`;
	return `${parts.join(" · ")} (reported by ${of})`;
}
