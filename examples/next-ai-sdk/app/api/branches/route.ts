import { isSessionTreeError } from "session-tree/core";
import { chats } from "../../../lib/chats";

// The store reads and writes files or a database: Node.js, not the Edge runtime.
export const runtime = "nodejs";

// GET /api/branches?chatId=…&messageId=…: the alternatives at a message, for "< 2/3 >".
export async function GET(req: Request): Promise<Response> {
	const url = new URL(req.url);
	const chatId = url.searchParams.get("chatId") ?? "";
	const messageId = url.searchParams.get("messageId") ?? "";
	return answer(async () => {
		const { index, count, branches } = await chats.listBranches(chatId, messageId);
		// What "< 2/3 >" needs: the position, and each alternative's entry id to POST back.
		return { index, count, branches: branches.map(({ entryId, active }) => ({ entryId, active })) };
	});
}

// POST /api/branches { chatId, target }: makes an alternative active; returns the chat for setMessages.
export async function POST(req: Request): Promise<Response> {
	const { chatId, target } = (await req.json()) as { chatId: string; target: string };
	return answer(() => chats.switchBranch(chatId, target));
}

// Check here, too, that the user may read chat `chatId`: the store trusts its caller.
async function answer(run: () => Promise<unknown>): Promise<Response> {
	try {
		return Response.json(await run());
	} catch (error) {
		if (isSessionTreeError(error, "ENTRY_NOT_FOUND")) return Response.json({ error: error.message }, { status: 404 });
		if (isSessionTreeError(error, "INVALID_ARGUMENT")) return Response.json({ error: error.message }, { status: 400 });
		throw error;
	}
}
