/**
 * Messages and records the store cases write: a user and an assistant message, a session
 * large enough that a store with `tailReads` is asked for its tail, records that test a
 * store's encoding.
 */

import type { AgentMessage, EntryBase, MessageEntry } from "../../core/types.js";
import { chain, entryId, messageRecord } from "../helpers.js";

/** How many writes each writer starts in the concurrency cases. */
export const WRITES_PER_WRITER = 8;
/** Records of about this size make the session a store with `tailReads` is asked for its tail. */
const TAIL_RECORD_BYTES = 64 * 1024;
/** So many of them: a session of about 9.4 MiB, more than a file store reads whole. */
const TAIL_RECORDS = 150;

/** A user message. */
export function user(text: string): AgentMessage {
	return { role: "user", content: text, timestamp: Date.now() };
}

/** An assistant message with one text block. */
export function assistant(text: string): AgentMessage {
	return {
		role: "assistant",
		content: [{ type: "text", text }],
		api: "anthropic-messages",
		provider: "anthropic",
		model: "claude-sonnet-4-5",
		usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { total: 0 } },
		stopReason: "stop",
		timestamp: Date.now(),
	};
}

/** About 9.4 MiB of user messages in one chain under `parentId`. */
export function bigChain(parentId: string | null): MessageEntry[] {
	const filler = "x".repeat(TAIL_RECORD_BYTES);
	return chain(TAIL_RECORDS, parentId, "large").map((record, i) => ({
		...record,
		message: { role: "user", content: `${i} ${filler}`, timestamp: 1 },
	}));
}

/**
 * Records that test a store's encoding: keys in no alphabetical order, non-ASCII keys, an
 * empty key, every kind of character JSON strings may hold (line and paragraph separators,
 * NUL, a lone surrogate, a byte-order mark), large and small numbers, a 200 KB string.
 */
export function oddRecords(parentId: string): EntryBase[] {
	const text =
		"line\nbreak \u2028 \u2029 \u0085 \r\n tab\t nul\u0000 bom\ufeff emoji \u{1f469}\u200d\u{1f469}\u200d\u{1f467} " +
		'rtl \u202e lone \ud800 end \\ "quoted" \u{10ffff} \uffff';
	const message = messageRecord(entryId(), parentId, text);
	const custom = {
		zeta: 1,
		type: "custom",
		alpha: 2,
		customType: "encoding",
		id: entryId(),
		parentId: message.id,
		timestamp: new Date().toISOString(),
		data: {
			b: [3, { y: null, x: "\u00e9" }],
			a: true,
			"\u043a\u043b\u044e\u0447": "\u0437\u043d\u0430\u0447\u0435\u043d\u0438\u0435",
			"": "an empty key",
			big: 1e21,
			small: 5e-324,
			negative: -0.5,
			nested: { deeper: { deepest: [[], {}, ""] } },
		},
	};
	const large = messageRecord(entryId(), custom.id, "y".repeat(200_000));
	return [message, custom, large];
}
