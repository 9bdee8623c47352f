/**
 * A real browser for the tests of the HTML export: Debian's Chromium (`/usr/bin/chromium`, or
 * `SESSION_TREE_CHROMIUM`) driven by playwright-core, headless.
 *
 * - One browser per test file: {@link launchBrowser} in `before`, {@link TestBrowser.close} in
 *   `after`. Each {@link TestBrowser.open} gets its own browser context (fresh storage: a theme
 *   chosen in one test does not leak into the next), closed with the browser.
 * - The browser runs on a fresh temporary profile directory (`--user-data-dir`): Playwright's
 *   `launch` creates one (`playwright_chromiumdev_profile-*` in the temp dir) and removes it when
 *   the browser closes; `launchPersistentContext` would share one context, and storage, between
 *   all pages of a file.
 * - No Chromium: outside CI the browser tests skip with {@link BROWSER_SKIP} (a message naming
 *   the package to install); under `CI=true` {@link launchBrowser} throws, so they fail.
 *
 * Every page records what the tests assert on ({@link PageLog}): console messages of type
 * `error`, uncaught page errors, dialogs (dismissed at once), every request of its context
 * (popups included) and pages opened besides it. A request is a network request when its URL is
 * neither `data:` nor `blob:`: those are resolved inside the renderer and reach neither the disk
 * nor the network (Chromium does not even report `data:` URLs to Playwright), so
 * {@link foreignRequests} leaves them out; every other URL (http, https, ws, and any `file:` URL
 * but the page's own file) counts.
 */

import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { UNDER_CI } from "./ci.js";

/** Where Debian's `chromium` package puts the browser (SESSION_TREE_CHROMIUM overrides it). */
export const CHROMIUM = process.env.SESSION_TREE_CHROMIUM ?? "/usr/bin/chromium";

/** Switches: no sandbox (containers), no GPU, and nothing the browser would fetch on its own. */
export const CHROMIUM_ARGS = [
	"--no-sandbox",
	"--disable-gpu",
	"--disable-quic",
	"--no-first-run",
	"--disable-background-networking",
	"--disable-component-update",
	"--disable-sync",
] as const;

/** Why the browser tests cannot run here, when they should skip (never under CI, where they fail). */
export const BROWSER_SKIP: string | undefined =
	existsSync(CHROMIUM) || UNDER_CI
		? undefined
		: `no Chromium at ${CHROMIUM}: install Debian's package (apt-get install chromium) or set SESSION_TREE_CHROMIUM`;

/** What happened on a page since it was opened. */
export interface PageLog {
	/** Text of each console message of type `error`. */
	consoleErrors: string[];
	/** Message of each uncaught exception. */
	pageErrors: string[];
	/** `type: message` of each dialog (alert, confirm, prompt, beforeunload); each was dismissed. */
	dialogs: string[];
	/** URL of every request of the page's context, in order (the page's own file included). */
	requests: string[];
	/** URL of every page opened in the context besides the tested one (popups, `target=_blank`). */
	popups: string[];
}

/** An opened page, what it logged, and its file's URL. */
export interface OpenedPage {
	page: Page;
	context: BrowserContext;
	log: PageLog;
	/** The `file:` URL of the page without a fragment. */
	url: string;
}

/** Options of {@link TestBrowser.open}. */
export interface OpenOptions {
	/** The fragment, with or without `#`. */
	hash?: string;
	colorScheme?: "light" | "dark";
	viewport?: { width: number; height: number };
	/** How long to wait for `<html data-ready="true">`. Default 15 s. */
	readyTimeout?: number;
}

/** The file URL without its fragment. */
function withoutHash(url: string): string {
	const hash = url.indexOf("#");
	return hash === -1 ? url : url.slice(0, hash);
}

/** True for URLs that never leave the renderer: `data:` and `blob:`. */
export function isInlineUrl(url: string): boolean {
	return /^(?:data|blob):/i.test(url);
}

/**
 * The requests of `opened` that are neither its own file nor inline (`data:`, `blob:`): what
 * must stay empty for a page that works offline and leaks nothing.
 */
export function foreignRequests(opened: OpenedPage): string[] {
	return opened.log.requests.filter((url) => !isInlineUrl(url) && withoutHash(url) !== opened.url);
}

/** Everything that went wrong on the page, as lines (empty when nothing did). */
export function problems(opened: OpenedPage): string[] {
	const { log } = opened;
	return [
		...log.consoleErrors.map((text) => `console error: ${text}`),
		...log.pageErrors.map((text) => `page error: ${text}`),
		...log.dialogs.map((text) => `dialog: ${text}`),
		...foreignRequests(opened).map((url) => `request: ${url}`),
		...log.popups.map((url) => `popup: ${url}`),
	];
}

/** One Chromium for one test file. */
export class TestBrowser {
	private readonly contexts: BrowserContext[] = [];

	private constructor(readonly browser: Browser) {}

	/** Starts Chromium (see the module's documentation for what happens without it). */
	static async launch(): Promise<TestBrowser> {
		if (!existsSync(CHROMIUM)) {
			throw new Error(
				`no Chromium at ${CHROMIUM} (CI is set, so the browser tests fail instead of skipping): ` +
					"install Debian's package with apt-get install chromium",
			);
		}
		const browser = await chromium.launch({
			executablePath: CHROMIUM,
			headless: true,
			args: [...CHROMIUM_ARGS],
			timeout: 60_000,
		});
		return new TestBrowser(browser);
	}

	/**
	 * Opens `file` as a `file:` URL in a new context and waits for `<html data-ready="true">`
	 * (unless `readyTimeout` is 0).
	 */
	async open(file: string, options: OpenOptions = {}): Promise<OpenedPage> {
		const context = await this.browser.newContext({
			colorScheme: options.colorScheme ?? "light",
			viewport: options.viewport ?? { width: 1280, height: 800 },
			// No service workers (they could answer requests unseen).
			serviceWorkers: "block",
		});
		this.contexts.push(context);
		const log: PageLog = { consoleErrors: [], pageErrors: [], dialogs: [], requests: [], popups: [] };
		context.on("request", (request) => log.requests.push(request.url()));
		const page = await context.newPage();
		context.on("page", (other) => {
			if (other !== page) log.popups.push(other.url());
		});
		page.on("console", (message) => {
			if (message.type() === "error") log.consoleErrors.push(message.text());
		});
		page.on("pageerror", (error) => log.pageErrors.push(error.message));
		page.on("dialog", (dialog) => {
			log.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
			dialog.dismiss().catch(() => {});
		});
		const url = pathToFileURL(file).href;
		const hash = options.hash === undefined || options.hash === "" ? "" : `#${options.hash.replace(/^#/, "")}`;
		await page.goto(url + hash, { waitUntil: "load" });
		const opened: OpenedPage = { page, context, log, url };
		if (options.readyTimeout !== 0) await waitReady(opened, options.readyTimeout ?? 15_000);
		return opened;
	}

	/** Closes every context and the browser (Playwright then removes the profile directory). */
	async close(): Promise<void> {
		for (const context of this.contexts.splice(0)) await context.close().catch(() => {});
		await this.browser.close();
	}
}

/** Waits for `<html data-ready="true">`; on a timeout, the error says what the page logged. */
export async function waitReady(opened: OpenedPage, timeout = 15_000): Promise<void> {
	try {
		const ready = () =>
			(globalThis as unknown as { document: { documentElement: { dataset: { ready?: string } } } }).document
				.documentElement.dataset.ready === "true";
		await opened.page.waitForFunction(ready, undefined, {
			timeout,
			polling: 50,
		});
	} catch (error) {
		const logged = problems(opened);
		throw new Error(
			`the page did not set data-ready="true" within ${timeout} ms${logged.length > 0 ? `; ${logged.join("; ")}` : ""}`,
			{ cause: error },
		);
	}
}

/** Starts the browser of a test file (call in `before`); see {@link TestBrowser.launch}. */
export function launchBrowser(): Promise<TestBrowser> {
	return TestBrowser.launch();
}
