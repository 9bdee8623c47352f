import { chats } from "../../../lib/chats";
import { Chat } from "./chat";

export const runtime = "nodejs";
// Read from the store on each request, never from a cache.
export const dynamic = "force-dynamic";

export default async function ChatPage({ params }: { params: Promise<{ id: string }> }) {
	const { id } = await params;
	return <Chat id={id} initialMessages={await chats.loadChat(id)} />;
}
