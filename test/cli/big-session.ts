/**
 * A large pi session written line by line in pi's own layout (not through session-tree's
 * writer): rounds of a question, a tool call alone (hidden by pi's filters), its result and
 * mostly an answer, with a branch now and then from an earlier question's parent (a question
 * asked again). Big enough for the views' large-session paths (browse draws the rows around the
 * leaf first from 5,000 entries).
 */

import { writeFileSync } from "node:fs";
import { mulberry32 } from "../support/random.js";

/** Writes the session to `file` (mode 0600) and returns its entry count and leaf id. */
export function writeBigSession(file: string, rounds: number, seed = 1): { entries: number; leafId: string } {
	const pick = mulberry32(seed);
	const start = Date.parse("2026-01-01T00:00:00.000Z");
	let n = 0;
	let clock = 0;
	const lines = [
		JSON.stringify({
			type: "session",
			version: 3,
			id: "big-session",
			timestamp: new Date(start).toISOString(),
			cwd: "/x",
		}),
	];
	const add = (parentId: string | null, message: Record<string, unknown>): string => {
		n++;
		clock += 1000;
		const id = `e${String(n).padStart(7, "0")}`;
		const timestamp = new Date(start + clock).toISOString();
		// Keys in pi's order: the envelope first, the message's role and content first, its timestamp last.
		lines.push(
			JSON.stringify({ type: "message", id, parentId, timestamp, message: { ...message, timestamp: start + clock } }),
		);
		return id;
	};
	const questions: Array<string | null> = [];
	let leaf: string | null = null;
	for (let round = 0; round < rounds; round++) {
		// Now and then the question of an earlier round asked again: a branch from its parent.
		if (round > 10 && pick() < 0.1) leaf = questions[Math.floor(pick() * questions.length)] ?? null;
		questions.push(leaf);
		const question = add(leaf, { role: "user", content: `question ${round}: what does ${round}.ts do?` });
		const call = add(question, {
			role: "assistant",
			content: [{ type: "toolCall", id: `call${round}`, name: "read", arguments: { path: `${round}.ts` } }],
			provider: "anthropic",
			model: "m",
			stopReason: "toolUse",
		});
		leaf = add(call, {
			role: "toolResult",
			toolCallId: `call${round}`,
			toolName: "read",
			content: [{ type: "text", text: `export const x${round} = ${round};` }],
			isError: false,
		});
		if (pick() < 0.8) {
			leaf = add(leaf, {
				role: "assistant",
				content: [{ type: "text", text: `It exports x${round}.` }],
				provider: "anthropic",
				model: "m",
				stopReason: "stop",
			});
		}
	}
	writeFileSync(file, `${lines.join("\n")}\n`, { mode: 0o600 });
	return { entries: n, leafId: leaf as string };
}
