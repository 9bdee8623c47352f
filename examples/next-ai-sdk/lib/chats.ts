// One store for the whole app: a session-tree session per chat, every branch kept.
import { createChatStore } from "session-tree/ai-sdk";
import { modelId, provider } from "./model";

// "./chats" (one CHAT_ID.jsonl file each) suits `next dev` and a server with a disk. On
// serverless hosting (Vercel, Netlify, Lambda) the app's directory is read-only and each
// instance's disk is its own and short-lived: use a database there, "postgres://…" (or
// "sqlite:/path/on/a/volume.db" on a host with a persistent volume).
export const chats = createChatStore({
	location: process.env.CHATS_LOCATION ?? "./chats",
	provider,
	model: modelId,
});
