/**
 * Token estimates and recorded usage, with pi's heuristic (pi-coding-agent 0.73.1,
 * `core/compaction/compaction.js`: `estimateTokens`, `estimateContextTokens`,
 * `calculateContextTokens`). An estimate is characters / 4, rounded up, per message:
 *
 * - user: its text (a string, or its text blocks); images are not counted;
 * - assistant: text, thinking, and each tool call's name plus its arguments as JSON;
 * - tool result and custom message: text blocks, plus 4,800 characters (1,200 tokens) per image;
 * - bash execution: the command and its output;
 * - compaction and branch summary: the summary;
 * - any other role: 0.
 *
 * Unlike pi's, these functions take any value: a damaged message (a missing field, a wrong
 * type) counts what it has instead of throwing. Pure.
 */

import type { ContextMessage } from "./types.js";
import { isObject } from "./validate.js";

/** Characters an image counts for in a tool result or custom message (pi: 1,200 tokens). */
export const IMAGE_ESTIMATE_CHARS = 4800;

/** Characters of text blocks (and, with `images`, IMAGE_ESTIMATE_CHARS per image block) of content. */
function contentChars(content: unknown, images: boolean): number {
	if (typeof content === "string") return content.length;
	if (!Array.isArray(content)) return 0;
	let chars = 0;
	for (const block of content) {
		if (!isObject(block)) continue;
		if (block.type === "text" && typeof block.text === "string") chars += block.text.length;
		else if (images && block.type === "image") chars += IMAGE_ESTIMATE_CHARS;
	}
	return chars;
}

function stringLength(value: unknown): number {
	return typeof value === "string" ? value.length : 0;
}

function jsonLength(value: unknown): number {
	try {
		return JSON.stringify(value)?.length ?? 0;
	} catch {
		return 0;
	}
}

/** The estimated tokens of one message (agent or context message), as pi estimates them. */
export function estimateTokens(message: unknown): number {
	if (!isObject(message)) return 0;
	let chars = 0;
	switch (message.role) {
		case "user":
			chars = contentChars(message.content, false);
			break;
		case "assistant": {
			const content = message.content;
			if (!Array.isArray(content)) break;
			for (const block of content) {
				if (!isObject(block)) continue;
				if (block.type === "text") chars += stringLength(block.text);
				else if (block.type === "thinking") chars += stringLength(block.thinking);
				else if (block.type === "toolCall") chars += stringLength(block.name) + jsonLength(block.arguments);
			}
			break;
		}
		case "custom":
		case "toolResult":
			chars = contentChars(message.content, true);
			break;
		case "bashExecution":
			chars = stringLength(message.command) + stringLength(message.output);
			break;
		case "branchSummary":
		case "compactionSummary":
			chars = stringLength(message.summary);
			break;
		default:
			return 0;
	}
	return Math.ceil(chars / 4);
}

/** The sum of {@link estimateTokens} over messages (a whole context, as estimated alone). */
export function sumTokenEstimates(messages: Iterable<unknown>): number {
	let total = 0;
	for (const message of messages) total += estimateTokens(message);
	return total;
}

/** Tokens and cost an assistant message reports (pi's `usage`); absent parts are 0. */
export interface Usage {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	/** `totalTokens` as recorded, else the sum of the four above. */
	totalTokens: number;
	/** `cost.total` in dollars, as recorded (0 when absent). */
	cost: number;
}

function count(value: unknown): number {
	return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/**
 * The usage a message records: an assistant message's `usage` with at least one token count,
 * else undefined.
 */
export function usageOf(message: unknown): Usage | undefined {
	if (!isObject(message) || message.role !== "assistant" || !isObject(message.usage)) return undefined;
	const usage = message.usage;
	const numbers = ["input", "output", "cacheRead", "cacheWrite", "totalTokens"];
	if (!numbers.some((key) => typeof usage[key] === "number")) return undefined;
	const input = count(usage.input);
	const output = count(usage.output);
	const cacheRead = count(usage.cacheRead);
	const cacheWrite = count(usage.cacheWrite);
	const cost = isObject(usage.cost) ? count(usage.cost.total) : 0;
	return { input, output, cacheRead, cacheWrite, totalTokens: contextTokensOf(usage), cost };
}

/** pi's `calculateContextTokens`: `totalTokens`, or when it is 0 or absent the sum of the parts. */
function contextTokensOf(usage: Record<string, unknown>): number {
	return (
		count(usage.totalTokens) ||
		count(usage.input) + count(usage.output) + count(usage.cacheRead) + count(usage.cacheWrite)
	);
}

/** The usage of many messages added up, and how many of them recorded one. */
export interface UsageTotals extends Usage {
	/** Messages that recorded usage. */
	messages: number;
}

/** Adds up the usage every message records (see {@link usageOf}). */
export function sumUsage(messages: Iterable<unknown>): UsageTotals {
	const totals: UsageTotals = {
		input: 0,
		output: 0,
		cacheRead: 0,
		cacheWrite: 0,
		totalTokens: 0,
		cost: 0,
		messages: 0,
	};
	for (const message of messages) {
		const usage = usageOf(message);
		if (!usage) continue;
		totals.input += usage.input;
		totals.output += usage.output;
		totals.cacheRead += usage.cacheRead;
		totals.cacheWrite += usage.cacheWrite;
		totals.totalTokens += usage.totalTokens;
		totals.cost += usage.cost;
		totals.messages++;
	}
	return totals;
}

/** What {@link estimateContextTokens} returns (pi's shape). */
export interface ContextTokenEstimate {
	/** `usageTokens + trailingTokens`. */
	tokens: number;
	/** The context size the last usable assistant usage reports (0 without one). */
	usageTokens: number;
	/** The estimates of the messages after it (of every message without one). */
	trailingTokens: number;
	/** Index of that assistant message, or null. */
	lastUsageIndex: number | null;
}

/**
 * pi's `estimateContextTokens`: the context size the last assistant message reported (not
 * aborted, not failed), plus the estimates of the messages after it; without such a message,
 * the sum of the estimates.
 */
export function estimateContextTokens(messages: readonly ContextMessage[]): ContextTokenEstimate {
	for (let i = messages.length - 1; i >= 0; i--) {
		const message = messages[i];
		if (!isObject(message) || message.role !== "assistant" || !isObject(message.usage)) continue;
		if (message.stopReason === "aborted" || message.stopReason === "error") continue;
		const usageTokens = contextTokensOf(message.usage);
		const trailingTokens = sumTokenEstimates(messages.slice(i + 1));
		return { tokens: usageTokens + trailingTokens, usageTokens, trailingTokens, lastUsageIndex: i };
	}
	const trailingTokens = sumTokenEstimates(messages);
	return { tokens: trailingTokens, usageTokens: 0, trailingTokens, lastUsageIndex: null };
}
