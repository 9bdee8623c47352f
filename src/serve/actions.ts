/**
 * The writes a session page may ask for, each through the Session facade (src/session.ts),
 * which holds every rule of them: label an entry (`appendLabelChange`, as `session-tree label`),
 * name the session (`appendSessionInfo`), choose the leaf (`navigate`: pi's rule, a user
 * message's text comes back to be copied and the leaf goes to its parent), fork at an entry
 * (`fork`: a new session beside this one). Another agent's file is never written: NOT_WRITABLE.
 */

import { SessionTreeError } from "../core/errors.js";
import type { Session } from "../session.js";

/** The actions, by the last part of their URL (`POST /api/sessions/KEY/ACTION`). */
export const ACTIONS = ["label", "name", "leaf", "fork"] as const;
export type ActionName = (typeof ACTIONS)[number];

/** What an action answers. */
export type ActionResult =
	| { entryId: string; label: string | null }
	| { name: string }
	| { leafId: string | null; editorText?: string }
	| { location: string };

function field(body: Record<string, unknown>, name: string): string {
	const value = body[name];
	if (typeof value !== "string" || value === "")
		throw new SessionTreeError("INVALID_ARGUMENT", `the request needs "${name}", a string that is not empty`);
	return value;
}

/**
 * Runs an action on a session opened for writing. `body` is the request's JSON object.
 * @throws SessionTreeError INVALID_ARGUMENT for a missing field, ENTRY_NOT_FOUND / AMBIGUOUS_ID for an id
 */
export async function runAction(
	session: Session,
	action: ActionName,
	body: Record<string, unknown>,
): Promise<ActionResult> {
	switch (action) {
		case "label": {
			const entryId = session.resolveId(field(body, "entryId"));
			const text = typeof body.label === "string" && body.label.trim() !== "" ? body.label : undefined;
			await session.appendLabelChange(entryId, text);
			return { entryId, label: text ?? null };
		}
		case "name": {
			const name = field(body, "name");
			await session.appendSessionInfo(name);
			return { name: session.getSessionName() ?? name };
		}
		case "leaf": {
			const result = await session.navigate(session.resolveId(field(body, "entryId")));
			return { leafId: result.leafId, ...(result.editorText !== undefined ? { editorText: result.editorText } : {}) };
		}
		case "fork": {
			const forked = await session.fork(session.resolveId(field(body, "entryId")));
			try {
				return { location: forked.location };
			} finally {
				await forked.close();
			}
		}
	}
}
