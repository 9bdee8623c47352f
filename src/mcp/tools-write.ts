/**
 * The write tools, registered only with `--write`: `label`, `set_leaf` and `fork`, each the
 * facade's own operation run as `serve`'s page runs it (serve/actions.ts: `appendLabelChange`,
 * `navigate` with pi's rule, `fork`). Another agent's file is never written: such a session is
 * refused, naming the `session` argument.
 */

import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { type ActionName, runAction } from "../serve/actions.js";
import { keyOf } from "../serve/catalog.js";
import type { Session } from "../session.js";
import { reply } from "./reply.js";
import { entryArgument, type McpSessions } from "./sessions.js";

const sessionArgument = z
	.string()
	.min(1)
	.describe("the session: a key from list_sessions or search, or a session id (pi files and stores only)");
const entryField = z.string().min(1).describe("the entry (an id or a unique prefix)");

/** Runs an action on the session `ref` names, opened for writing, and closes it. */
async function act(
	sessions: McpSessions,
	ref: string,
	action: ActionName,
	body: (session: Session) => Record<string, unknown>,
): Promise<{ key: string; result: Record<string, unknown> }> {
	const indexed = await sessions.find(ref);
	const session = await sessions.write(indexed);
	try {
		await session.load();
		const result = (await runAction(session, action, body(session))) as Record<string, unknown>;
		return { key: indexed.key, result };
	} finally {
		await session.close();
	}
}

/** Registers `label`, `set_leaf` and `fork`. */
export function registerWriteTools(server: McpServer, sessions: McpSessions): void {
	const annotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
	server.registerTool(
		"label",
		{
			title: "Label an entry",
			description:
				"Sets the label of an entry (a bookmark pi's /tree shows), or clears it with an empty or absent label. " +
				"Appends a label entry; nothing is rewritten.",
			inputSchema: {
				session: sessionArgument,
				entry: entryField,
				label: z.string().max(200).optional().describe("the label; empty or absent clears it"),
			},
			annotations,
		},
		async (args) => {
			const { key, result } = await act(sessions, args.session, "label", (session) => ({
				entryId: entryArgument(session, args.entry, "entry"),
				label: args.label ?? "",
			}));
			return reply({ session: key, ...result }, undefined, sessions.redact);
		},
	);

	server.registerTool(
		"set_leaf",
		{
			title: "Continue from an entry",
			description:
				"Moves the session's leaf, so that the conversation continues from an entry (pi's navigate rule: for a user " +
				"message the leaf goes to its parent and the message's text is returned to be sent again). Appends to the " +
				"session; every branch is kept.",
			inputSchema: { session: sessionArgument, entry: entryField },
			annotations,
		},
		async (args) => {
			const { key, result } = await act(sessions, args.session, "leaf", (session) => ({
				entryId: entryArgument(session, args.entry, "entry"),
			}));
			return reply({ session: key, ...result }, undefined, sessions.redact);
		},
	);

	server.registerTool(
		"fork",
		{
			title: "Fork a session at an entry",
			description:
				"Makes a new session beside this one holding the path from the root to an entry (pi's fork). Answers the " +
				"new session's key.",
			inputSchema: { session: sessionArgument, entry: entryField },
			annotations,
		},
		async (args) => {
			const { key, result } = await act(sessions, args.session, "fork", (session) => ({
				entryId: entryArgument(session, args.entry, "entry"),
			}));
			const location = result.location as string;
			await sessions.refresh(true);
			const forked = sessions.catalog.session(keyOf(location));
			return reply(
				{ session: key, forked: forked ? forkSummary(forked) : { session: keyOf(location) } },
				undefined,
				sessions.redact,
			);
		},
	);
}

function forkSummary(session: { key: string; id: string; title: string; entries: number }): Record<string, unknown> {
	return { session: session.key, id: session.id, title: session.title, entries: session.entries };
}
