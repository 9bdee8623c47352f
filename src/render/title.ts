/**
 * What a session is called where one line must name it (the HTML export's `<title>` and
 * heading, `browse`'s header, the Markdown title): its name, else the first prompt a person
 * typed (what the agent injected skipped: src/import/injected.ts), else `Session ID`. Pure and
 * free of Node modules: the HTML export's browser code uses it too, so the page's heading and
 * its `<title>` agree.
 */

import type { SessionRecord } from "../core/types.js";
import { isObject } from "../core/validate.js";
import { promptOf } from "../import/injected.js";
import { oneLine } from "./preview.js";

/** Characters of a title. */
export const TITLE_LENGTH = 80;

/**
 * The text of the first user message a person typed, in the order given; undefined when there
 * is none. Entries are read only up to it (a large session costs its first prompt).
 */
export function firstPrompt(entries: Iterable<SessionRecord>): string | undefined {
	for (const entry of entries) {
		if (entry.type !== "message" || !isObject(entry.message) || entry.message.role !== "user") continue;
		const text = promptOf(entry);
		if (text !== undefined && text.trim() !== "") return text;
	}
	return undefined;
}

/** A session's title, one line of at most {@link TITLE_LENGTH} characters (see the module's documentation). */
export function sessionTitle(input: {
	name?: string | undefined;
	prompt?: string | undefined;
	sessionId: string;
}): string {
	for (const text of [input.name, input.prompt]) {
		const line = text === undefined ? "" : oneLine(text, TITLE_LENGTH);
		if (line !== "") return line;
	}
	return `Session ${oneLine(input.sessionId, TITLE_LENGTH)}`;
}
