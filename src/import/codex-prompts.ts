/**
 * Which `event_msg` `user_message` lines of a Codex rollout are the only record of a prompt.
 *
 * Codex records a prompt twice: as a `response_item` user message (what the model is sent, and
 * all that Codex's own resume replays) and as an `event_msg` `user_message` (what its UI lists).
 * The recorder writes the item first and the event right after it. Codex Desktop and older CLIs
 * also wrote prompts as the event alone; a file can mix both. So the decision is made per
 * event: an event that has its response item next to it is a copy (kept as a custom entry), one
 * that has none is the prompt (a user message). "Next to it" means: looking back from the event,
 * an unpaired user item of the same kind (a typed prompt, or injected context) before anything
 * the model answered (output items, tool outputs, a compaction) or another prompt event; else,
 * looking forward, one before the model answers or the next turn starts. The text is not
 * compared: files with redacted text give the item and the event different placeholders.
 */

import type { ImageContent, TextContent } from "../core/types.js";
import { OUTPUT_ITEMS, OUTPUT_RESULT_ITEMS } from "./codex-items.js";
import { imageFromDataUrl, isJson, type Json, type UnmappedBlock } from "./common.js";
import { isCodexInjectedText } from "./injected.js";
import type { JsonLine } from "./jsonl.js";

/** What one line is, for pairing prompt events with their response items. */
type Role =
	| { kind: "item"; injected: boolean }
	| { kind: "event"; injected: boolean }
	| { kind: "answer" }
	| { kind: "turn" }
	| { kind: "other" };

/** True for an event's prompt that Codex injected (older events say so in `kind`). */
function eventInjected(p: Json): boolean {
	if (typeof p.kind === "string" && p.kind !== "plain") return true;
	return typeof p.message === "string" && isCodexInjectedText(p.message);
}

function roleOf(line: JsonLine): Role {
	const r = line.record;
	const p = r.payload;
	if (!isJson(p)) return { kind: "other" };
	if (r.type === "compacted") return { kind: "answer" };
	if (r.type === "turn_context") return { kind: "turn" };
	if (r.type === "event_msg") {
		if (p.type === "user_message") return { kind: "event", injected: eventInjected(p) };
		return p.type === "task_started" || p.type === "turn_started" ? { kind: "turn" } : { kind: "other" };
	}
	if (r.type !== "response_item" || typeof p.type !== "string") return { kind: "other" };
	if (p.type === "message") {
		if (p.role === "assistant") return { kind: "answer" };
		if (p.role !== "user" || !Array.isArray(p.content)) return { kind: "other" };
		const injected = p.content.some(
			(part) => isJson(part) && typeof part.text === "string" && isCodexInjectedText(part.text),
		);
		return { kind: "item", injected };
	}
	return OUTPUT_ITEMS.has(p.type) || OUTPUT_RESULT_ITEMS.has(p.type) ? { kind: "answer" } : { kind: "other" };
}

/**
 * The line numbers of the `user_message` events that are the only record of their prompt (see
 * the module comment); every other such event is a copy of a response item.
 */
export function promptOnlyEvents(lines: readonly JsonLine[]): Set<number> {
	const roles = lines.map(roleOf);
	const paired = new Set<number>();
	const only = new Set<number>();
	const matches = (index: number, injected: boolean): boolean => {
		const role = roles[index];
		return role?.kind === "item" && role.injected === injected && !paired.has(index);
	};
	roles.forEach((role, at) => {
		if (role.kind !== "event") return;
		let found: number | undefined;
		for (let i = at - 1; i >= 0 && found === undefined; i--) {
			const kind = roles[i]?.kind;
			if (matches(i, role.injected)) found = i;
			else if (kind === "answer" || kind === "event") break;
		}
		for (let i = at + 1; i < roles.length && found === undefined; i++) {
			const kind = roles[i]?.kind;
			if (matches(i, role.injected)) found = i;
			else if (kind === "answer" || kind === "event" || kind === "turn") break;
		}
		if (found === undefined) only.add((lines[at] as JsonLine).n);
		else paired.add(found);
	});
	return only;
}

/**
 * A `user_message` event as user-message content: its `message` text, then its `images` (data
 * URLs as image blocks; other URLs named in a text block) and its `local_images` (paths on the
 * user's machine, whose bytes the rollout does not hold: named in a text block).
 */
export function eventPromptContent(p: Json): { content: Array<TextContent | ImageContent>; unmapped: UnmappedBlock[] } {
	const content: Array<TextContent | ImageContent> = [];
	const unmapped: UnmappedBlock[] = [];
	if (typeof p.message === "string" && p.message !== "") content.push({ type: "text", text: p.message });
	const images = Array.isArray(p.images) ? p.images : [];
	images.forEach((url, index) => {
		const image = imageFromDataUrl(url);
		if (image) content.push(image);
		else if (typeof url === "string") content.push({ type: "text", text: `[image: ${url}]` });
		else unmapped.push({ index, block: url });
	});
	const local = Array.isArray(p.local_images) ? p.local_images : [];
	for (const path of local) {
		if (typeof path === "string") content.push({ type: "text", text: `[image: ${path}]` });
	}
	return { content, unmapped };
}
