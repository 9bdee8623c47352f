import { redirect } from "next/navigation";
import { chats } from "../lib/chats";

export const runtime = "nodejs";

// A new chat for every visit to "/".
export default async function Home() {
	redirect(`/chat/${await chats.createChat()}`);
}
