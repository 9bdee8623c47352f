/**
 * An Open WebUI assistant message as steps (assistant turns and tool results): from its
 * Responses-style `output` items, or from `content` with `<details type="reasoning">` and
 * `<details type="tool_calls">` blocks (docs/import.md, "Open WebUI mapping"). Used by
 * `openwebui.ts`; pure functions of one message.
 */

import type { AssistantMessage } from "../core/types.js";
import { isJson, stringField, textBlock, toolArguments } from "./common.js";

/** One step of an assistant message: pi content of an assistant turn, or a tool result. */
export type Step =
	| { kind: "assistant"; blocks: AssistantMessage["content"] }
	| { kind: "toolResult"; callId: string; name: string; text: string; isError: boolean };

/** Text of Responses-API content parts (`[{type: "output_text", text}]`), or a string as it is. */
function partsText(value: unknown): string {
	if (typeof value === "string") return value;
	if (!Array.isArray(value)) return "";
	return value
		.map((part) => (isJson(part) && typeof part.text === "string" ? part.text : ""))
		.filter((text) => text !== "")
		.join("\n");
}

const ENTITIES: Record<string, string> = { "&gt;": ">", "&lt;": "<", "&amp;": "&", "&quot;": '"', "&#39;": "'" };

function unescapeHtml(text: string): string {
	return text.replace(/&(gt|lt|amp|quot|#39);/g, (entity) => ENTITIES[entity] ?? entity);
}

/** The attributes of a `<details …>` tag. */
function attributesOf(tag: string): Record<string, string> {
	const attributes: Record<string, string> = {};
	for (const match of tag.matchAll(/([a-z_]+)="([^"]*)"/g))
		attributes[match[1] as string] = unescapeHtml(match[2] as string);
	return attributes;
}

/** The steps an assistant message's `output` list stands for (reasoning, calls, outputs, text). */
export function stepsFromOutput(output: readonly unknown[], key: string): Step[] {
	const steps: Step[] = [];
	let blocks: AssistantMessage["content"] = [];
	const names = new Map<string, string>();
	const flush = () => {
		if (blocks.length > 0) steps.push({ kind: "assistant", blocks });
		blocks = [];
	};
	output.forEach((item, index) => {
		if (!isJson(item)) return;
		switch (item.type) {
			case "reasoning": {
				const text = partsText(item.content) || partsText(item.summary);
				if (text !== "") blocks.push({ type: "thinking", thinking: text });
				break;
			}
			case "function_call": {
				const id = stringField(item, "call_id") ?? stringField(item, "id") ?? `call_${key}_${index}`;
				const name = stringField(item, "name") ?? "tool";
				names.set(id, name);
				blocks.push({ type: "toolCall", id, name, arguments: toolArguments(item.arguments) });
				break;
			}
			case "function_call_output": {
				flush();
				const callId = stringField(item, "call_id") ?? "";
				steps.push({
					kind: "toolResult",
					callId,
					name: names.get(callId) ?? "tool",
					text: partsText(item.output),
					isError: item.status === "failed" || item.status === "incomplete",
				});
				break;
			}
			case "message": {
				const text = partsText(item.content);
				if (text !== "") blocks.push(textBlock(text));
				break;
			}
			default:
			// Kept in the message's `source`; pi has no step for it.
		}
	});
	flush();
	return steps;
}

/**
 * The steps of an assistant message without `output`: `<details type="reasoning">` blocks
 * become thinking, `<details type="tool_calls" name=… arguments=… result=…>` a call and its
 * result; the rest is the answer's text.
 */
export function stepsFromContent(content: string, key: string): Step[] {
	const steps: Step[] = [];
	let blocks: AssistantMessage["content"] = [];
	let rest = "";
	let last = 0;
	let index = 0;
	for (const match of content.matchAll(/<details\b([^>]*)>([\s\S]*?)<\/details>\n?/g)) {
		const attributes = attributesOf(match[1] as string);
		const inner = (match[2] as string).replace(/^\s*<summary>[\s\S]*?<\/summary>\n?/, "");
		if (attributes.type === "reasoning") {
			rest += content.slice(last, match.index);
			const text = unescapeHtml(inner)
				.split("\n")
				.map((line) => line.replace(/^> ?/, ""))
				.join("\n")
				.trim();
			if (text !== "") blocks.push({ type: "thinking", thinking: text });
		} else if (attributes.type === "tool_calls" && attributes.name) {
			rest += content.slice(last, match.index);
			if (rest.trim() !== "") blocks.push(textBlock(rest.trim()));
			rest = "";
			const id = attributes.id || `call_${key}_${index}`;
			blocks.push({ type: "toolCall", id, name: attributes.name, arguments: toolArguments(attributes.arguments) });
			steps.push({ kind: "assistant", blocks });
			blocks = [];
			steps.push({
				kind: "toolResult",
				callId: id,
				name: attributes.name,
				text: attributes.result ?? "",
				isError: false,
			});
		} else {
			rest += content.slice(last, (match.index ?? 0) + match[0].length);
		}
		last = (match.index ?? 0) + match[0].length;
		index++;
	}
	rest += content.slice(last);
	if (rest !== "" || blocks.length === 0) blocks.push(textBlock(index > 0 ? rest.trim() : rest));
	steps.push({ kind: "assistant", blocks });
	return steps;
}
