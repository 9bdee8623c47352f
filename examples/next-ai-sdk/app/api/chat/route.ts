import { convertToModelMessages, createIdGenerator, streamText, type UIMessage, validateUIMessages } from "ai";
import { chats } from "../../../lib/chats";
import { model } from "../../../lib/model";

// The store reads and writes files or a database: Node.js, not the Edge runtime.
export const runtime = "nodejs";

// The body useChat's DefaultChatTransport sends: the whole chat, what the user did
// ("submit-message" for a new or an edited message, "regenerate-message") and the message concerned.
interface ChatRequest {
	id: string;
	messages: UIMessage[];
	trigger: "submit-message" | "regenerate-message";
	messageId?: string;
}

export async function POST(req: Request): Promise<Response> {
	const { id, messages, trigger, messageId } = (await req.json()) as ChatRequest;
	// Only chats the app created (app/page.tsx). Check here, too, that the user may write to
	// chat `id`: the store trusts its caller.
	if (!(await chats.hasChat(id))) return Response.json({ error: "no such chat" }, { status: 404 });
	const checked = await validateUIMessages<UIMessage>({ messages });
	const result = streamText({ model, messages: await convertToModelMessages(checked) });
	return result.toUIMessageStreamResponse({
		originalMessages: checked,
		generateMessageId: createIdGenerator({ prefix: "msg", size: 16 }), // answers need ids
		// The answer's token usage, which the store writes on pi's assistant message.
		messageMetadata: ({ part }) => (part.type === "finish" ? { usage: part.totalUsage } : undefined),
		onFinish: async ({ messages }) => {
			await chats.saveChat({ chatId: id, messages, trigger, messageId });
		},
	});
}
