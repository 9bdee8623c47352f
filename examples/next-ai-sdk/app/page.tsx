import { redirect } from "next/navigation";
import { chats } from "../lib/chats";

export const runtime = "nodejs";
// Rendered on each visit: a page built once would send every visitor to the same chat.
export const dynamic = "force-dynamic";

// A new chat for every visit to "/".
export default async function Home() {
	redirect(`/chat/${await chats.createChat()}`);
}
