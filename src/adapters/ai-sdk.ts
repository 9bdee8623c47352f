/**
 * `session-tree/ai-sdk`: chat persistence for the Vercel AI SDK (v5 to v7 message shape, tested
 * with `ai` 6) in the shape its "Chatbot Message Persistence" guide recommends (`createChat`,
 * `loadChat`, `saveChat`), where every branch of a chat is kept: an edited question and a
 * regenerated answer become siblings of what they replace, and the chat the framework sees is
 * the active path of a session tree.
 *
 * ```ts
 * import { createChatStore } from "session-tree/ai-sdk";
 * const chats = createChatStore({ location: "./chats" }); // or sqlite:./chats.db, postgres://…
 *
 * // app/api/chat/route.ts
 * const { id, messages, trigger, messageId } = await req.json();
 * const result = streamText({ model, messages: await convertToModelMessages(messages) });
 * return result.toUIMessageStreamResponse({
 *   originalMessages: messages,
 *   generateMessageId: createIdGenerator({ prefix: "msg", size: 16 }),
 *   // the answer's usage, stored on pi's assistant message
 *   messageMetadata: ({ part }) => (part.type === "finish" ? { usage: part.totalUsage } : undefined),
 *   onFinish: ({ messages }) => chats.saveChat({ chatId: id, messages, trigger, messageId }),
 * });
 * ```
 *
 * One session per chat (`DIR/CHAT_ID.jsonl`, `sqlite:PATH#CHAT_ID`, `postgres://…#CHAT_ID`),
 * written in pi's format so that `session-tree tree`, `ctx`, `html` and `browse` open it. See
 * docs/adapters.md for the mapping and the branching rules, and examples/next-ai-sdk for a Next.js app.
 *
 * Only types are imported from `ai`: loading this module does not load the SDK.
 *
 * @packageDocumentation
 */

import type { UIMessage } from "ai";
import { isSessionTreeError, SessionTreeError } from "../core/errors.js";
import { cryptoRandomBytes, type RandomBytes } from "../core/ids.js";
import { Session } from "../session.js";
import { storeAt } from "../storage/locations.js";
import type { Durability } from "../storage/store.js";
import { KeyedWriteQueue } from "../storage/write-queue.js";
import { type ModelNames, plainMessages } from "./ai-sdk-messages.js";
import { type SaveChatResult, save } from "./ai-sdk-save.js";
import { ActivePath, findRun, newestEndUnder, runsUnder } from "./ai-sdk-tree.js";
import { checkSessionKey, type SessionPlace, sessionPlace } from "./common.js";

export type { SaveChatResult } from "./ai-sdk-save.js";

/** Options of {@link createChatStore}. */
export interface ChatStoreOptions {
	/**
	 * Where the chats live, one session each: a directory (a path or a `file:` URL; created on
	 * the first write) holding `CHAT_ID.jsonl` files, `sqlite:PATH`, `postgres://…` (sessions
	 * named by the chat id), `memory:` or `memory:NAME` (this process), or any location of a
	 * registered store scheme that takes `#SESSION_ID`.
	 */
	location: string;
	/** The working directory stored in each new session's header. Default `process.cwd()`. */
	cwd?: string;
	/** pi's `provider` of the assistant messages written (pi messages name their model). Default `"ai-sdk"`. */
	provider?: string;
	/** pi's `model` of the assistant messages written. Default `"unknown"`. */
	model?: string;
	/** How durable a save is once it resolves (see docs/durability.md). Default: the store's own. */
	durability?: Durability;
	/** Current time, for the entries' and pi messages' timestamps. Default `() => new Date()`. */
	now?: () => Date;
	/** Random bytes, for entry, session and chat ids. Default: Web Crypto. */
	random?: RandomBytes;
}

/** What {@link ChatStore.saveChat} takes: the body `DefaultChatTransport` sends, with the answer added. */
export interface SaveChatOptions<M extends UIMessage = UIMessage> {
	/** The chat (its session's key: letters, digits, `_`, `-`). */
	chatId: string;
	/** The whole chat as the client has it now (with the new answer, from `onFinish`). */
	messages: M[];
	/**
	 * What the client did: `"submit-message"` (a new or an edited message) or
	 * `"regenerate-message"` (a new answer: it never continues the old one).
	 */
	trigger?: "submit-message" | "regenerate-message" | (string & {});
	/** The message edited, regenerated or continued (after a tool approval), as the client sent it (informational). */
	messageId?: string;
	/** pi's `provider` for the assistant messages of this save. Default: the store's. */
	provider?: string;
	/** pi's `model` for the assistant messages of this save. Default: the store's. */
	model?: string;
}

/** One alternative at a message (see {@link ChatStore.listBranches}). */
export interface ChatBranch<M extends UIMessage = UIMessage> {
	/** The id of its first entry in the session: names this alternative for {@link ChatStore.switchBranch}. */
	entryId: string;
	/** The message (an edited question keeps the id of the one it replaces). */
	message: M;
	/** True for the alternative on the active path. */
	active: boolean;
}

/** The alternatives at a message, oldest first: for "< 2/3 >" controls. */
export interface ChatBranches<M extends UIMessage = UIMessage> {
	/** The message asked about. */
	messageId: string;
	/** The position of that message among `branches` (0-based): show `index + 1` of `count`. */
	index: number;
	/** How many alternatives there are (1 when the message was never edited or regenerated). */
	count: number;
	/** The messages with the same role under the same parent. */
	branches: ChatBranch<M>[];
}

/** Chat persistence for the AI SDK, backed by session-tree sessions (see {@link createChatStore}). */
export interface ChatStore<M extends UIMessage = UIMessage> {
	/** The location the store was made with. */
	readonly location: string;
	/** The session location of a chat: open it with `Session.open`, or `session-tree tree`. */
	locationOf(chatId: string): string;
	/**
	 * Creates an empty chat and returns its id: `chatId`, or 16 random letters and digits.
	 * @throws SessionTreeError FILE_EXISTS when the chat exists
	 */
	createChat(chatId?: string): Promise<string>;
	/** True when the chat has been created (or saved to). */
	hasChat(chatId: string): Promise<boolean>;
	/** The chat's messages: the active path of its session; `[]` for a chat that does not exist. */
	loadChat(chatId: string): Promise<M[]>;
	/**
	 * Stores the chat as the client has it, keeping every branch (the rules are in
	 * docs/adapters.md): messages matching the active path by id and content are kept; new ones
	 * are appended; a message that differs from the stored one (an edit, a regeneration) starts
	 * a new branch beside it, reusing an existing alternative equal to it; an answer that grew
	 * (a continuation: same id, its old steps kept) is continued; messages the client dropped
	 * from the end stay, and the leaf moves back. Saving the same messages twice writes nothing.
	 * Creates the chat if needed. Saves of one chat in one store run one after another.
	 */
	saveChat(options: SaveChatOptions<M>): Promise<SaveChatResult>;
	/**
	 * The alternatives at a message of the chat (on the active path, or anywhere by id): the
	 * messages with the same role under the same parent, oldest first.
	 * @throws SessionTreeError ENTRY_NOT_FOUND when the chat holds no such message
	 */
	listBranches(chatId: string, messageId: string): Promise<ChatBranches<M>>;
	/**
	 * Makes an alternative active and returns the chat's new messages, for `setMessages`.
	 * `target` is a {@link ChatBranch.entryId}, or a message id (its newest version). The leaf
	 * moves to the end of the most recent path through the alternative (where that branch was
	 * last written); a target already on the active path changes nothing.
	 * @throws SessionTreeError ENTRY_NOT_FOUND when the chat holds no such message
	 */
	switchBranch(chatId: string, target: string): Promise<M[]>;
	/** The ids of the chats in the store, sorted. */
	listChats(): Promise<string[]>;
	/** Deletes a chat and every branch of it; false when there was none. */
	deleteChat(chatId: string): Promise<boolean>;
}

/** The chat id alphabet of {@link ChatStore.createChat}: the AI SDK's `generateId` alphabet. */
const ID_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * A chat store at `options.location` (or at the location given as a string).
 * @throws SessionTreeError INVALID_ARGUMENT for a location that names one session (`…#ID`)
 */
export function createChatStore<M extends UIMessage = UIMessage>(options: ChatStoreOptions | string): ChatStore<M> {
	return new TreeChatStore<M>(typeof options === "string" ? { location: options } : options);
}

class TreeChatStore<M extends UIMessage> implements ChatStore<M> {
	readonly location: string;
	private readonly options: ChatStoreOptions;
	private readonly place: SessionPlace;
	/** The calls on each chat, one after another. */
	private readonly queues = new KeyedWriteQueue();

	constructor(options: ChatStoreOptions) {
		this.options = options;
		this.location = options.location;
		this.place = sessionPlace(options.location, "chat id");
	}

	locationOf(chatId: string): string {
		return this.place.sessionLocation(chatId);
	}

	async createChat(chatId?: string): Promise<string> {
		const id = chatId === undefined ? this.newChatId() : checkSessionKey(chatId, "chat id");
		return this.serialize(id, async () => {
			const store = storeAt(this.locationOf(id), { durability: this.options.durability });
			const session = await Session.createIn(store, this.createOptions(id));
			await session.close();
			return id;
		});
	}

	async hasChat(chatId: string): Promise<boolean> {
		const store = storeAt(this.locationOf(chatId));
		try {
			return await store.exists();
		} finally {
			await store.close();
		}
	}

	async loadChat(chatId: string): Promise<M[]> {
		return this.withSession(chatId, false, async (session) =>
			session ? (new ActivePath(session.getTreeIndex()).runs.map((run) => run.message) as M[]) : [],
		);
	}

	async saveChat(options: SaveChatOptions<M>): Promise<SaveChatResult> {
		const incoming = plainMessages(options.messages);
		const now = this.options.now ?? (() => new Date());
		const names: ModelNames = {
			provider: options.provider ?? this.options.provider ?? "ai-sdk",
			model: options.model ?? this.options.model ?? "unknown",
		};
		return this.withSession(options.chatId, true, async (session) =>
			save(session as Session, incoming, options.trigger, () => now().getTime(), names),
		);
	}

	async listBranches(chatId: string, messageId: string): Promise<ChatBranches<M>> {
		return this.withSession(chatId, false, async (session) => {
			if (!session) throw notFound(chatId, messageId);
			const tree = session.getTreeIndex();
			const path = new ActivePath(tree);
			const run = findRun(tree, path, messageId);
			if (!run) throw notFound(chatId, messageId);
			const anchor = tree.getParentId(run.start.id) ?? null;
			const alternatives = runsUnder(tree, anchor).filter((other) => other.message.role === run.message.role);
			const branches = alternatives.map((other) => ({
				entryId: other.start.id,
				message: other.message as M,
				active: path.has(other.start.id),
			}));
			const index = alternatives.findIndex((other) => other.start.id === run.start.id);
			return { messageId, index, count: branches.length, branches };
		});
	}

	async switchBranch(chatId: string, target: string): Promise<M[]> {
		return this.withSession(chatId, false, async (session) => {
			if (!session) throw notFound(chatId, target);
			const tree = session.getTreeIndex();
			const path = new ActivePath(tree);
			const run = findRun(tree, path, target);
			if (!run) throw notFound(chatId, target);
			if (path.has(run.start.id)) return path.runs.map((each) => each.message) as M[];
			const end = newestEndUnder(tree, run.start) ?? run.end;
			await session.branch(end.id);
			return new ActivePath(session.getTreeIndex()).runs.map((each) => each.message) as M[];
		});
	}

	async listChats(): Promise<string[]> {
		return this.place.keys();
	}

	async deleteChat(chatId: string): Promise<boolean> {
		const key = checkSessionKey(chatId, "chat id");
		return this.serialize(key, () => this.place.remove(key));
	}

	// ---- internals ------------------------------------------------------------------------

	/** The options of a new chat's session: its id is the chat's. */
	private createOptions(chatId: string) {
		const { cwd, now, random, durability } = this.options;
		return { id: chatId, cwd, now, random, durability };
	}

	/** Opens the chat's session (creating it when `create`), runs `use`, closes it; one call per chat at a time. */
	private withSession<T>(
		chatId: string,
		create: boolean,
		use: (session: Session | undefined) => Promise<T>,
	): Promise<T> {
		const location = this.locationOf(chatId);
		return this.serialize(chatId, async () => {
			const { now, random, durability } = this.options;
			const store = storeAt(location, { durability });
			let session: Session | undefined;
			if (await store.exists()) {
				session = await Session.openStore(store, { now, random, durability });
			} else if (create) {
				try {
					session = await Session.createIn(store, this.createOptions(chatId));
				} catch (error) {
					// Another process created it meanwhile.
					if (!isSessionTreeError(error, "FILE_EXISTS")) throw error;
					session = await Session.openStore(storeAt(location, { durability }), { now, random, durability });
				}
			}
			try {
				return await use(session);
			} finally {
				await (session ? session.close() : store.close());
			}
		});
	}

	private serialize<T>(chatId: string, task: () => Promise<T>): Promise<T> {
		return this.queues.run(chatId, task);
	}

	private newChatId(): string {
		const random = this.options.random ?? cryptoRandomBytes;
		// 62 * 4 = 248: bytes at or above it are drawn again, so that every character is equally likely.
		let id = "";
		while (id.length < 16) {
			for (const byte of random(32)) {
				if (byte < 248 && id.length < 16) id += ID_ALPHABET[byte % 62];
			}
		}
		return id;
	}
}

function notFound(chatId: string, id: string): SessionTreeError {
	return new SessionTreeError("ENTRY_NOT_FOUND", `chat ${chatId} has no message or branch ${JSON.stringify(id)}`);
}
