import { chats } from "../../../lib/chats";
import { Chat } from "./chat";

export const runtime = "nodejs";

export default async function ChatPage({ params }: { params: Promise<{ id: string }> }) {
	const { id } = await params;
	return <Chat id={id} initialMessages={await chats.loadChat(id)} />;
}
