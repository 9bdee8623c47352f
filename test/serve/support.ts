/**
 * What the `serve` tests share: a temporary HOME holding sessions of pi (written by the
 * library, branched, plus the hostile fixture of the HTML tests), Claude Code, Codex and Gemini
 * CLI (real files of test/fixtures/real/, each in its agent's layout); `session-tree serve`
 * started as a child process over it; plain HTTP requests with any headers; and Chromium pages
 * of the server that record what they did.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before } from "node:test";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { Session } from "../../src/session.js";
import { defaultSessionDir } from "../../src/storage/paths.js";
import { assistant as assistantAt, user as userAt } from "../catalog/layout.js";
import { BIN, REPO } from "../cli/helpers.js";
import { BROWSER_SKIP, CHROMIUM, CHROMIUM_ARGS } from "../support/browser.js";
import { SQLITE_SKIP } from "../support/sqlite.js";

const REAL = join(REPO, "test", "fixtures", "real");

/** The pi project of the generated sessions. */
export const PROJECT = "/home/me/proj";
/** Text only on a side branch of the branched pi session (its second answer). */
export const SIDE_TEXT = "zebraquantum";

/** What the HOME holds. */
export interface Home {
	home: string;
	/** pi's branched session: q1 → a1 → {q2 → a2 (SIDE_TEXT), q3 → a3 (leaf)}. */
	branched: string;
	ids: { q1: string; a1: string; q2: string; a2: string; q3: string; a3: string };
	/** The HTML tests' hostile session, as a pi file. */
	hostile: string;
	claude: string;
	codex: string;
	gemini: string;
}

/** A message of the generated session, stamped now (test/catalog/layout.ts makes it). */
const user = (text: string) => userAt(text, new Date().toISOString());
const assistant = (text: string) => assistantAt(text, new Date().toISOString());

/** Builds a HOME (see the module comment). */
export async function buildHome(): Promise<Home> {
	const home = mkdtempSync(join(tmpdir(), "st-serve-"));
	const piDir = defaultSessionDir(PROJECT, join(home, ".pi", "agent"));
	mkdirSync(piDir, { recursive: true });
	const session = await Session.create({ dir: piDir, cwd: PROJECT });
	const q1 = await session.appendMessage(user("What is a B-tree?"));
	const a1 = await session.appendMessage(assistant("A balanced search tree."));
	const q2 = await session.appendMessage(user("And a trie?"));
	const a2 = await session.appendMessage(assistant(`A prefix tree; remember ${SIDE_TEXT}.`));
	await session.branch(a1);
	const q3 = await session.appendMessage(user("How do B-trees split?"));
	const a3 = await session.appendMessage(assistant("A full node splits around its median."));
	const branched = session.file as string;
	await session.close();
	const hostile = join(piDir, "2026-02-01T10-00-00-000Z_0195a000-0000-7000-8000-000000000057.jsonl");
	copyFileSync(join(REPO, "test", "fixtures", "html", "hostile.jsonl"), hostile);
	const claudeDir = join(home, ".claude", "projects", "-src-experiments-claude-p");
	mkdirSync(claudeDir, { recursive: true });
	const claude = join(claudeDir, "256ba646-2c15-437a-98e9-4171aafd030e.jsonl");
	copyFileSync(join(REAL, "claude-code", "ccl-2.1.17-256ba646.jsonl"), claude);
	const codexDir = join(home, ".codex", "sessions", "2025", "11", "20");
	mkdirSync(codexDir, { recursive: true });
	const codex = join(codexDir, "rollout-2025-11-20T10-00-00-golden-codex-001.jsonl");
	copyFileSync(join(REAL, "codex", "agent-history-0.77-golden.jsonl"), codex);
	const geminiDir = join(home, ".gemini", "tmp", "my-project", "chats");
	mkdirSync(geminiDir, { recursive: true });
	const gemini = join(geminiDir, "session-2025-12-28T04-02-3d0463e2.json");
	copyFileSync(join(REAL, "gemini", "mgemini-session-2025-12-28T04-02-3d0463e2.json"), gemini);
	return { home, branched, ids: { q1, a1, q2, a2, q3, a3 }, hostile, claude, codex, gemini };
}

/** The environment of a child over `home`: none of the agents' own overrides of their places. */
export function homeEnv(home: string): NodeJS.ProcessEnv {
	const {
		PI_CODING_AGENT_DIR: _pi,
		CLAUDE_CONFIG_DIR: _claude,
		CODEX_HOME: _codex,
		GEMINI_CLI_HOME: _gemini,
		XDG_CACHE_HOME: _cache,
		FORCE_COLOR: _color,
		...rest
	} = process.env;
	return { ...rest, HOME: home, XDG_CACHE_HOME: join(home, ".cache") };
}

/** A running `session-tree serve`. */
export interface Served {
	child: ChildProcess;
	/** The printed URL, with the token. */
	url: string;
	token: string;
	port: number;
	/** `http://127.0.0.1:PORT`. */
	origin: string;
	stderr(): string;
	/** Sends SIGINT and resolves to the exit code. */
	stop(): Promise<number | null>;
}

/** Starts `node dist/bin/session-tree.js serve ARGS` over `home`; resolves once it printed its URL. */
export function startServe(home: string, args: readonly string[] = []): Promise<Served> {
	const child = spawn(process.execPath, [BIN, "serve", ...args], {
		env: homeEnv(home),
		stdio: ["ignore", "pipe", "pipe"],
	});
	let out = "";
	let err = "";
	child.stderr?.on("data", (chunk: Buffer) => {
		err += chunk.toString("utf8");
	});
	const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error(`serve printed no URL in 20 s; stderr: ${err}`)), 20_000);
		child.on("exit", (code) => reject(new Error(`serve exited (${code}) before printing its URL; stderr: ${err}`)));
		child.stdout?.on("data", (chunk: Buffer) => {
			out += chunk.toString("utf8");
			const line = /^(http:\/\/\S+)\n/m.exec(out)?.[1];
			if (line === undefined) return;
			clearTimeout(timer);
			const url = new URL(line);
			resolve({
				child,
				url: line,
				token: url.searchParams.get("token") ?? "",
				port: Number(url.port),
				origin: url.origin,
				stderr: () => err,
				stop: () => {
					child.kill("SIGINT");
					return exited;
				},
			});
		});
	});
}

/** An HTTP answer. */
export interface Answer {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	body: string;
	/** The body's bytes as they came (not inflated). */
	bytes: Buffer;
}

/** One HTTP request with exactly these headers (node:http lets a test set Host, unlike fetch). */
export function http(
	port: number,
	path: string,
	options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
	return new Promise((resolve, reject) => {
		const req = request(
			{ host: "127.0.0.1", port, path, method: options.method ?? "GET", headers: options.headers ?? {} },
			(res) => {
				const chunks: Buffer[] = [];
				res.on("data", (chunk: Buffer) => chunks.push(chunk));
				res.on("end", () => {
					const bytes = Buffer.concat(chunks);
					resolve({ status: res.statusCode ?? 0, headers: res.headers, body: bytes.toString("utf8"), bytes });
				});
			},
		);
		req.on("error", reject);
		req.end(options.body);
	});
}

/** A page of the server and what it did. */
export interface ServedPage {
	page: Page;
	context: BrowserContext;
	/** Requests to anywhere but the server. */
	foreign: string[];
	dialogs: string[];
	errors: string[];
}

/** A new context that has been through the token URL (so it holds the cookie), at `path`. */
export async function openServed(
	browser: Browser,
	served: Served,
	path: string,
	options: { colorScheme?: "light" | "dark"; ready?: boolean } = {},
): Promise<ServedPage> {
	const context = await browser.newContext({
		colorScheme: options.colorScheme ?? "light",
		viewport: { width: 1280, height: 800 },
		serviceWorkers: "block",
	});
	const page = await context.newPage();
	const opened: ServedPage = { page, context, foreign: [], dialogs: [], errors: [] };
	context.on("request", (req) => {
		const url = req.url();
		if (!url.startsWith(`${served.origin}/`) && !/^(data|blob):/.test(url)) opened.foreign.push(url);
	});
	page.on("dialog", (dialog) => {
		opened.dialogs.push(dialog.message());
		dialog.dismiss().catch(() => undefined);
	});
	page.on("pageerror", (error) => opened.errors.push(error.message));
	page.on("console", (message) => {
		if (message.type() === "error") opened.errors.push(message.text());
	});
	// The token URL sets the cookie and redirects to `/`; then the page asked for.
	await page.goto(served.url);
	await page.goto(`${served.origin}${path}`);
	if (options.ready !== false) await waitReady(page);
	return opened;
}

/** Where the tests save screenshots: $SESSION_TREE_SCREENSHOTS, else test-output/screenshots/ (gitignored). */
export const SCREENSHOTS = process.env.SESSION_TREE_SCREENSHOTS ?? join(REPO, "test-output", "screenshots");

/** What the pages' globals look like to a predicate run in the page (the tests have no DOM types). */
export type PageGlobals = {
	document: {
		documentElement: { dataset: Record<string, string | undefined> };
		querySelector(selector: string): { getAttribute(name: string): string | null } | null;
		querySelectorAll(selector: string): ArrayLike<{ getAttribute(name: string): string | null }>;
	};
	__pwned?: unknown;
};

/** Waits for `<html data-ready="true">` (a function, not a string: the pages' policy forbids eval). */
export async function waitReady(page: Page): Promise<void> {
	await page.waitForFunction(
		() => (globalThis as unknown as PageGlobals).document.documentElement.dataset.ready === "true",
		undefined,
		{ timeout: 15_000 },
	);
}

/** Waits until the conversation's selected entry is `id`. */
export async function waitCurrent(page: Page, id: string, timeout = 5_000): Promise<void> {
	await page.waitForFunction(
		(entry) =>
			(globalThis as unknown as PageGlobals).document.querySelector(
				`[data-role="conversation"] [data-entry-id="${entry}"][aria-current="true"]`,
			) !== null,
		id,
		{ timeout },
	);
}

/** What {@link servedHome} hands a test file: a HOME of {@link buildHome}, `serve` over it, a browser. */
export interface ServedHome {
	home: Home;
	served: Served;
	browser: Browser;
}

/**
 * Registers the `before` and `after` of a test file that drives one `serve` over a fresh
 * {@link buildHome} in Chromium, and hands what it started to `take` (nothing is started when
 * the browser tests skip, or the SQLite ones: `serve` opens the catalog index).
 */
export function servedHome(take: (started: ServedHome) => void): void {
	let started: ServedHome | undefined;
	before(async () => {
		if (BROWSER_SKIP || SQLITE_SKIP) return;
		const home = await buildHome();
		const served = await startServe(home.home);
		const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_ARGS] });
		started = { home, served, browser };
		take(started);
	});
	after(async () => {
		await started?.browser.close();
		await started?.served.stop();
		if (started) rmSync(started.home.home, { recursive: true, force: true });
	});
}
