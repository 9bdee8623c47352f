/**
 * What a ChatGPT message's `content` stands for in pi's blocks, by its `content_type` (text,
 * multimodal parts, tool output kinds, custom instructions, thoughts; docs/import.md, "ChatGPT
 * mapping"). Used by `chatgpt.ts`; pure functions of one content object.
 */

import type { ImageContent, TextContent } from "../core/types.js";
import { imageFromDataUrl, isJson, type Json, numberField, stringField, textBlock } from "./common.js";

/** The text and images a message's content stands for, in order, and its thinking. */
export interface Rendered {
	blocks: Array<TextContent | ImageContent>;
	thinking: string[];
}

/** A placeholder that names what could not be shown (an image known only by its asset pointer). */
function placeholderOf(part: Json): TextContent {
	const type = stringField(part, "content_type") ?? "object";
	const pointer = stringField(part, "asset_pointer");
	const width = numberField(part, "width");
	const height = numberField(part, "height");
	const bytes = numberField(part, "size_bytes");
	const facts: string[] = [];
	if (width !== undefined && height !== undefined) facts.push(`${width}×${height}`);
	if (bytes !== undefined) facts.push(`${bytes} bytes`);
	const kind = type === "image_asset_pointer" ? "image" : type;
	return textBlock(`[${kind}${pointer ? `: ${pointer}` : ""}${facts.length > 0 ? ` (${facts.join(", ")})` : ""}]`);
}

/** One part of `parts`: a string, an inline image, a transcription, or a placeholder. */
function partBlock(part: unknown): TextContent | ImageContent {
	if (typeof part === "string") return textBlock(part);
	if (!isJson(part)) return textBlock(JSON.stringify(part));
	for (const key of ["data", "url", "image_url"]) {
		const value = part[key];
		const image = typeof value === "string" ? imageFromDataUrl(value) : undefined;
		if (image) return image;
	}
	const text = stringField(part, "text");
	if (text !== undefined && part.content_type !== "image_asset_pointer") return textBlock(text);
	return placeholderOf(part);
}

/** What a message's `content` says, by its `content_type` (see docs/import.md). */
export function render(content: Json | undefined): Rendered {
	const blocks: Array<TextContent | ImageContent> = [];
	const thinking: string[] = [];
	if (!content) return { blocks, thinking };
	const parts = Array.isArray(content.parts) ? content.parts : undefined;
	const add = (text: string | undefined) => {
		if (text !== undefined && text !== "") blocks.push(textBlock(text));
	};
	switch (content.content_type) {
		case "text":
		case "multimodal_text":
			for (const part of parts ?? []) {
				const block = partBlock(part);
				if (block.type !== "text" || block.text !== "") blocks.push(block);
			}
			break;
		case "code":
		case "execution_output":
			add(stringField(content, "text"));
			break;
		case "tether_browsing_display":
			add(stringField(content, "result") || stringField(content, "summary"));
			break;
		case "tether_quote":
			add(
				["title", "url", "text"]
					.map((key) => stringField(content, key))
					.filter((text) => text !== undefined && text !== "")
					.join("\n"),
			);
			break;
		case "system_error":
			add([stringField(content, "name"), stringField(content, "text")].filter(Boolean).join(": "));
			break;
		case "user_editable_context":
		case "model_editable_context": {
			const sections: string[] = [];
			const profile = stringField(content, "user_profile");
			const instructions = stringField(content, "user_instructions");
			const memory = stringField(content, "model_set_context");
			if (profile) sections.push(`User profile:\n${profile}`);
			if (instructions) sections.push(`User instructions:\n${instructions}`);
			if (memory) sections.push(memory);
			add(sections.join("\n\n"));
			break;
		}
		case "thoughts": {
			const thoughts = Array.isArray(content.thoughts) ? content.thoughts : [];
			for (const thought of thoughts) {
				if (!isJson(thought)) continue;
				const text = [stringField(thought, "summary"), stringField(thought, "content")].filter(Boolean).join("\n\n");
				if (text !== "") thinking.push(text);
			}
			for (const part of parts ?? []) if (typeof part === "string" && part !== "") thinking.push(part);
			break;
		}
		case "reasoning_recap":
			add(stringField(content, "content"));
			for (const part of parts ?? []) if (typeof part === "string") add(part);
			break;
		default:
			if (parts) {
				for (const part of parts) {
					const block = partBlock(part);
					if (block.type !== "text" || block.text !== "") blocks.push(block);
				}
			} else add(stringField(content, "text") ?? `[${String(content.content_type)}]`);
	}
	return { blocks, thinking };
}

/** The text of rendered content, images as placeholders (for messages that take text only). */
export function plainText(blocks: ReadonlyArray<TextContent | ImageContent>): string {
	return blocks.map((block) => (block.type === "text" ? block.text : `[image: ${block.mimeType}]`)).join("\n");
}
