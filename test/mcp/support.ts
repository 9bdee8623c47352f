/**
 * What the `mcp` tests share: a temporary HOME (the one of the `serve` tests: a branched pi
 * session whose side branch alone holds SIDE_TEXT, the hostile fixture, real Claude Code, Codex
 * and Gemini CLI files) made older, plus a newer pi session, a deep one (a fork at each of 150
 * levels) and one holding planted secrets; `session-tree mcp` started as a child process and
 * driven by the SDK's own `Client`; and the answers' envelope taken apart.
 */

import { utimesSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Session } from "../../src/session.js";
import { BIN } from "../cli/helpers.js";
import { buildHome, type Home, homeEnv, PROJECT } from "../serve/support.js";
import { deepSession } from "../support/deep-session.js";
import { assistantMessage, userMessage } from "../support/messages.js";

export { homeEnv, PROJECT, SIDE_TEXT } from "../serve/support.js";

/** Secrets planted in a pi session; none may come out of the server. */
export const SECRETS = {
	anthropic: "sk-ant-api03-Zq8xVb3Nw5Lk2Pj7Rt9Yc4Hd6Fg1Ms0Qa8Wx2Ev5Bn7Ui3Oy_kQ1",
	aws: "AKIA4HXQ7RZ2MBN5TQWE",
} as const;

/** The HOME of the tests (see the module comment). */
export interface McpHome extends Home {
	/** A pi session newer than `branched`. */
	newer: string;
	/** A pi session that forks at each of {@link DEEP_LEVELS} levels. */
	deep: string;
	/** A pi session holding {@link SECRETS} in a prompt, an answer and a tool call. */
	secrets: string;
}

/** Levels of forks of the deep session. */
export const DEEP_LEVELS = 150;

/** Builds the HOME. */
export async function buildMcpHome(): Promise<McpHome> {
	const home = await buildHome();
	const dir = join(home.branched, "..");
	const old = new Date("2025-06-01T10:00:00.000Z");
	// The branched session is an older one: a newer session comes after it.
	utimesSync(home.branched, old, old);
	const newer = await Session.create({ dir, cwd: PROJECT });
	await newer.appendMessage(user("What is a heap?"));
	await newer.appendMessage(assistant("A tree where each parent orders before its children."));
	const deep = await deepSession(join(dir, "2025-05-01T10-00-00-000Z_0195a000-0000-7000-8000-00000000dee9.jsonl"), {
		depth: DEEP_LEVELS,
		label: "deepest",
	});
	const secrets = await Session.create({ dir, cwd: PROJECT });
	await secrets.appendMessage(user(`Deploy with ANTHROPIC_API_KEY=${SECRETS.anthropic} please`));
	await secrets.appendMessage(assistant(`I will export AWS_ACCESS_KEY_ID=${SECRETS.aws} and deploy the sitemap.`));
	const files = { newer: newer.file as string, deep: deep.file as string, secrets: secrets.file as string };
	for (const s of [newer, deep, secrets]) await s.close();
	utimesSync(files.deep, old, old);
	return { ...home, ...files };
}

const user = (text: string) => userMessage(text, Date.now());
const assistant = (text: string) => assistantMessage(text, Date.now());

/** A client connected to `session-tree mcp ARGS` over stdio, and what the server wrote to stderr. */
export interface Connected {
	client: Client;
	stderr(): string;
	close(): Promise<void>;
}

/** Starts `node dist/bin/session-tree.js mcp ARGS` over `home` and connects the SDK's client to it. */
export async function connectStdio(home: string, args: readonly string[] = []): Promise<Connected> {
	const transport = new StdioClientTransport({
		command: process.execPath,
		args: [BIN, "mcp", ...args],
		env: homeEnv(home) as Record<string, string>,
		stderr: "pipe",
	});
	let stderr = "";
	transport.stderr?.on("data", (chunk: Buffer) => {
		stderr += chunk.toString("utf8");
	});
	const client = new Client({ name: "session-tree-tests", version: "1.0.0" });
	await client.connect(transport);
	return { client, stderr: () => stderr, close: () => client.close() };
}

/** The envelope of a tool's answer. */
export interface Envelope<T> {
	notice: string;
	result: T;
	nextCursor?: string;
	tokens: number;
}

/** What a tool call answers: its text and, for a success, the envelope parsed from the text. */
export interface Called<T> {
	isError: boolean;
	text: string;
	body: Envelope<T>;
}

/** Calls a tool; a tool error is returned (isError), not thrown. */
export async function call<T = Record<string, unknown>>(
	client: Client,
	name: string,
	args: Record<string, unknown>,
): Promise<Called<T>> {
	const answer = (await client.callTool({ name, arguments: args })) as {
		isError?: boolean;
		content: Array<{ type: string; text?: string }>;
	};
	const text = answer.content.map((part) => part.text ?? "").join("");
	const isError = answer.isError === true;
	return { isError, text, body: isError ? (undefined as never) : (JSON.parse(text) as Envelope<T>) };
}

/** Calls a tool and fails on an error. */
export async function ok<T = Record<string, unknown>>(
	client: Client,
	name: string,
	args: Record<string, unknown>,
): Promise<Envelope<T>> {
	const answer = await call<T>(client, name, args);
	if (answer.isError) throw new Error(`${name} failed: ${answer.text}`);
	return answer.body;
}

/**
 * Every item of a paged listing, page after page by nextCursor; `pages` counts the calls and
 * `largest` is the longest page.
 */
export async function allPages<T>(
	client: Client,
	name: string,
	args: Record<string, unknown>,
	itemsOf: (result: Record<string, unknown>) => T[],
): Promise<{ items: T[]; pages: number; largest: number }> {
	const items: T[] = [];
	let cursor: string | undefined;
	let pages = 0;
	let largest = 0;
	do {
		const body = await ok(client, name, { ...args, ...(cursor !== undefined ? { cursor } : {}) });
		const page = itemsOf(body.result);
		items.push(...page);
		largest = Math.max(largest, page.length);
		pages++;
		cursor = body.nextCursor;
		if (pages > 10_000) throw new Error("the cursor never ends");
	} while (cursor !== undefined);
	return { items, pages, largest };
}
