/**
 * A session that forks at each of `depth` levels (a dead end, then the path going on), for the
 * tests of deep trees in the HTML page and in `browse`: every reply's usage is all zeros, as
 * importers write usage they do not know, and the last reply carries a long label and is the
 * leaf.
 */

import { Session } from "../../src/session.js";

/** What {@link deepSession} builds. */
export interface DeepSessionOptions {
	/** Levels of forks. */
	depth: number;
	/** The label of the last reply. */
	label: string;
	/** Text after each message's own (to fill a row). Default none. */
	filler?: string;
}

/** Creates the session in `file` (see the module comment); the caller closes it. */
export async function deepSession(file: string, options: DeepSessionOptions): Promise<Session> {
	const s = await Session.create({ file, cwd: "/w" });
	const filler = options.filler ?? "";
	const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 };
	const usage = { ...zero, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
	const say = (role: "user" | "assistant", text: string) =>
		s.appendMessage(
			role === "user"
				? { role, content: text, timestamp: 1 }
				: {
						role,
						content: [{ type: "text", text }],
						provider: "p",
						model: "m",
						usage,
						stopReason: "stop",
						timestamp: 1,
					},
		);
	let reply = await say("assistant", "hello");
	for (let i = 0; i < options.depth; i++) {
		await say("user", `dead end ${i}${filler}`);
		await s.branch(reply);
		await say("user", `go on ${i}${filler}`);
		reply = await say("assistant", `reply ${i}${filler}${filler === "" ? "" : " too"}`);
	}
	await s.appendLabelChange(reply, options.label);
	await s.branch(reply);
	return s;
}
