/**
 * examples/next-ai-sdk, the AI SDK guide of docs/adapters.md, run as Next.js would run it,
 * without Next (not installed here; a `next build` is too heavy for this machine's CI):
 *
 * - the example's route files and lib/ are bundled by esbuild into a temporary directory (one
 *   build with code splitting, so both routes share lib/chats.ts as Next's server bundle does);
 *   every package import resolves to this repository's node_modules, and `@ai-sdk/openai` to
 *   the AI SDK's own test model (ai-sdk-next/openai-stand-in.ts): the only stand-in, since no
 *   real LLM is reachable. The AI SDK, its streaming, the adapter and the store are real;
 * - the client is the AI SDK's `AbstractChat` (what `useChat` wraps) with a plain-list state and
 *   the real `DefaultChatTransport`, whose `fetch` hands real `Request` objects to the route's
 *   exported `POST`/`GET`, as Next does, and reads their streamed `Response`;
 * - the server code type-checks with tsc against the real `ai` and session-tree types
 *   (ai-sdk-next/tsconfig.json), and so do the pages (tsconfig.pages.json), with
 *   ai-sdk-next/next-react.d.ts declaring the little they use of react, next and
 *   `@ai-sdk/react` (whose `useChat` methods are `ai`'s own `AbstractChat` types);
 * - the guide's code blocks are the example's files.
 *
 * Expected values come from the flow itself: answer N is `(N) An answer to "…"`, and its usage
 * is what the stand-in reports for call N (usageOfCall), mapped by hand to pi's fields below.
 */

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { AbstractChat, type ChatState, type ChatStatus, DefaultChatTransport, type UIMessage } from "ai";
import { build } from "esbuild";
import type { ChatBranches, ChatStore } from "session-tree/ai-sdk";
import { createChatStore } from "session-tree/ai-sdk";
import { cli, REPO } from "../cli/helpers.js";
import { calls } from "./ai-sdk-next/openai-stand-in.js";

const EXAMPLE = join(REPO, "examples", "next-ai-sdk");
const STAND_IN = fileURLToPath(new URL("./ai-sdk-next/openai-stand-in.js", import.meta.url));
const CHECK_CONFIG = join(REPO, "test", "adapters", "ai-sdk-next", "tsconfig.json");
const PAGES_CONFIG = join(REPO, "test", "adapters", "ai-sdk-next", "tsconfig.pages.json");

type Handler = (request: Request) => Promise<Response>;
interface Routes {
	chat: { POST: Handler; runtime: string };
	branches: { GET: Handler; POST: Handler; runtime: string };
	chats: { chats: ChatStore };
}

let work: string;
let chatsDir: string;
let routes: Routes;

/** Bundles the example's server files into `outdir`; package imports stay imports of this repository's modules. */
async function buildExample(outdir: string): Promise<void> {
	await build({
		entryPoints: {
			chat: join(EXAMPLE, "app/api/chat/route.ts"),
			branches: join(EXAMPLE, "app/api/branches/route.ts"),
			chats: join(EXAMPLE, "lib/chats.ts"),
		},
		outdir,
		bundle: true,
		splitting: true,
		format: "esm",
		platform: "node",
		logLevel: "silent",
		plugins: [
			{
				name: "repository-packages",
				setup(builder) {
					builder.onResolve({ filter: /^[^./]/ }, ({ path }) => {
						if (path.startsWith("node:")) return { path, external: true };
						if (path === "@ai-sdk/openai") return { path: pathToFileURL(STAND_IN).href, external: true };
						// Resolved from here, inside the repository, so that `session-tree/…` is this package.
						return { path: import.meta.resolve(path), external: true };
					});
				},
			},
		],
	});
}

before(async () => {
	work = mkdtempSync(join(tmpdir(), "session-tree-next-"));
	chatsDir = join(work, "chats");
	await buildExample(join(work, "build"));
	// lib/chats.ts reads it when the routes load, as it would from the app's environment.
	process.env.CHATS_LOCATION = chatsDir;
	const load = async (name: string) => import(pathToFileURL(join(work, "build", `${name}.js`)).href);
	routes = { chat: await load("chat"), branches: await load("branches"), chats: await load("chats") };
});

after(() => {
	delete process.env.CHATS_LOCATION;
	rmSync(work, { recursive: true, force: true });
});

/** Next's part: a request to a path goes to the route file's exported method. */
const fetchRoute = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
	const request = new Request(new URL(String(input), "http://localhost:3000"), init);
	const { pathname } = new URL(request.url);
	const route = pathname === "/api/chat" ? routes.chat : pathname === "/api/branches" ? routes.branches : undefined;
	const handler = route?.[request.method as "POST"];
	if (!handler) return new Response("not found", { status: 404 });
	return handler(request);
};

/** The state `useChat` keeps in React, as a plain list. */
class ListState implements ChatState<UIMessage> {
	status: ChatStatus = "ready";
	error: Error | undefined = undefined;
	constructor(public messages: UIMessage[]) {}
	pushMessage = (message: UIMessage) => {
		this.messages = [...this.messages, message];
	};
	popMessage = () => {
		this.messages = this.messages.slice(0, -1);
	};
	replaceMessage = (index: number, message: UIMessage) => {
		this.messages = this.messages.map((each, at) => (at === index ? message : each));
	};
	snapshot = <T>(thing: T): T => structuredClone(thing);
}

class Chat extends AbstractChat<UIMessage> {
	constructor(id: string, messages: UIMessage[]) {
		super({
			id,
			state: new ListState(messages),
			transport: new DefaultChatTransport({ api: "/api/chat", fetch: fetchRoute }),
		});
	}
}

const textOf = (message: UIMessage | undefined) =>
	(message?.parts ?? []).map((part) => (part.type === "text" ? part.text : "")).join("");
/** As the messages read back from JSON (the client's hold `metadata: undefined` keys the store drops). */
const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));
const texts = (messages: UIMessage[]) => messages.map((message) => `${message.role}: ${textOf(message)}`);

async function branchesOf(chatId: string, messageId: string): Promise<ChatBranches> {
	const response = await fetchRoute(`/api/branches?${new URLSearchParams({ chatId, messageId })}`);
	assert.equal(response.status, 200, await response.clone().text());
	return (await response.json()) as ChatBranches;
}

test("the example type-checks: the server code, then the pages against ai's own chat types", () => {
	const tsc = join(REPO, "node_modules", "typescript", "bin", "tsc");
	for (const config of [CHECK_CONFIG, PAGES_CONFIG]) {
		const run = spawnSync(process.execPath, [tsc, "-p", config, "--noEmit"], { encoding: "utf8" });
		assert.equal(run.status, 0, `${config}:\n${run.stdout}${run.stderr}`);
	}
});

test("the routes run on Node.js, and Next leaves better-sqlite3 and pg unbundled", async () => {
	assert.equal(routes.chat.runtime, "nodejs");
	assert.equal(routes.branches.runtime, "nodejs");
	const config = (await import(pathToFileURL(join(EXAMPLE, "next.config.mjs")).href)).default;
	assert.deepEqual(config.serverExternalPackages, ["better-sqlite3", "pg"]);
});

test("send, regenerate, edit, list and switch branches through the routes; the store, tree and usage agree", async () => {
	const { chats } = routes.chats;
	calls.count = 0;
	// app/page.tsx creates the chat; app/chat/[id]/page.tsx loads it for useChat.
	const chatId = await chats.createChat();
	const chat = new Chat(chatId, await chats.loadChat(chatId));

	await chat.sendMessage({ text: "What is a B-tree?" });
	await chat.sendMessage({ text: "How does it split?" });
	await chat.regenerate();
	assert.deepEqual(texts(chat.messages), [
		"user: What is a B-tree?",
		'assistant: (1) An answer to "What is a B-tree?"',
		"user: How does it split?",
		'assistant: (3) An answer to "How does it split?"',
	]);
	const [firstQuestion, , , regenerated] = chat.messages;
	assert.ok(firstQuestion && regenerated);

	// The edit of the first question: useChat keeps its id and drops what followed.
	await chat.sendMessage({ text: "What is a trie?", messageId: firstQuestion.id });
	assert.deepEqual(texts(chat.messages), ["user: What is a trie?", 'assistant: (4) An answer to "What is a trie?"']);
	assert.deepEqual(await chats.loadChat(chatId), asJson(chat.messages));

	// "< 2/2 >" on the first question, then "<": back to the first version and its last answer.
	const questions = await branchesOf(chatId, firstQuestion.id);
	assert.equal(questions.count, 2);
	assert.equal(questions.index, 1);
	assert.deepEqual(
		questions.branches.map((branch) => branch.active),
		[false, true],
	);
	const switched = await fetchRoute("/api/branches", {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify({ chatId, target: questions.branches[0]?.entryId }),
	});
	assert.equal(switched.status, 200);
	chat.messages = (await switched.json()) as UIMessage[]; // setMessages
	assert.deepEqual(texts(chat.messages), [
		"user: What is a B-tree?",
		'assistant: (1) An answer to "What is a B-tree?"',
		"user: How does it split?",
		'assistant: (3) An answer to "How does it split?"',
	]);
	const answers = await branchesOf(chatId, regenerated.id);
	assert.deepEqual([answers.index, answers.count], [1, 2]);

	// The next question goes on from the branch shown.
	await chat.sendMessage({ text: "And a B+ tree?" });
	assert.equal(textOf(chat.messages.at(-1)), '(5) An answer to "And a B+ tree?"');

	// Bad requests get a status, not a crash.
	assert.equal((await fetchRoute(`/api/branches?chatId=${chatId}&messageId=nope`)).status, 404);
	assert.equal((await fetchRoute("/api/branches?chatId=..%2Fx&messageId=m")).status, 400);
	const unknownChat = await fetchRoute("/api/chat", {
		method: "POST",
		body: JSON.stringify({ id: "nochat", messages: [], trigger: "submit-message" }),
	});
	assert.equal(unknownChat.status, 404);

	// A fresh store on the same directory (a restart) reads the same chat.
	const reloaded = createChatStore(chatsDir);
	assert.deepEqual(await reloaded.loadChat(chatId), asJson(chat.messages));
	assert.deepEqual(await reloaded.listChats(), [chatId]);

	// Each answer's usage is stored on its pi assistant message. The stand-in reports for call N
	// input 120+N tokens of which 20 read from the cache (so pi's `input`, the uncached ones, is
	// 100+N), output 7+N, and the SDK's total is 127+2N.
	const file = join(chatsDir, `${chatId}.jsonl`);
	const assistants = readFileSync(file, "utf8")
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line))
		.filter((entry) => entry.type === "message" && entry.message.role === "assistant");
	assert.equal(assistants.length, 5);
	for (const { message } of assistants) {
		const n = Number(/^\((\d+)\)/.exec(message.content[0].text)?.[1]);
		assert.deepEqual(
			{ ...message.usage, cost: undefined },
			{ input: 100 + n, output: 7 + n, cacheRead: 20, cacheWrite: 0, totalTokens: 127 + 2 * n, cost: undefined },
			`answer ${n}`,
		);
		assert.equal(message.provider, "openai");
		assert.equal(message.model, "gpt-5-mini");
	}

	// `session-tree tree` shows every branch: both versions of the first question, all five answers.
	const tree = await cli(["tree", file]);
	assert.equal(tree.code, 0, tree.stderr);
	for (const text of ["What is a B-tree?", "What is a trie?", "How does it split?", "And a B+ tree?"]) {
		assert.ok(tree.stdout.includes(text), `${text} in:\n${tree.stdout}`);
	}
	const lineOf = (text: string) => tree.stdout.split("\n").find((line) => line.includes(text)) ?? "";
	for (let n = 1; n <= 5; n++) assert.ok(lineOf(`(${n}) An answer`), `answer ${n} in:\n${tree.stdout}`);
	// The branch points: the two versions of the first question, the two answers to the second.
	for (const text of ["What is a B-tree?", "What is a trie?", "(2) An answer", "(3) An answer"]) {
		assert.match(lineOf(text), /[├└]── /, `${text} starts a branch in:\n${tree.stdout}`);
	}
	assert.match(lineOf("(5) An answer"), /← leaf/);
});

test("docs/adapters.md shows the example's files as they are", () => {
	const guide = readFileSync(join(REPO, "docs", "adapters.md"), "utf8");
	const blocks = [...guide.matchAll(/^```\w+ (examples\/next-ai-sdk\/\S+)\n([\s\S]*?)^```$/gm)];
	const shown = blocks.map((block) => block[1]);
	assert.deepEqual(shown, [
		"examples/next-ai-sdk/lib/model.ts",
		"examples/next-ai-sdk/lib/chats.ts",
		"examples/next-ai-sdk/app/api/chat/route.ts",
		"examples/next-ai-sdk/app/api/branches/route.ts",
		"examples/next-ai-sdk/next.config.mjs",
	]);
	for (const [, path, code] of blocks) {
		assert.equal(code, readFileSync(join(REPO, path as string), "utf8"), `${path} differs from the guide`);
	}
});
