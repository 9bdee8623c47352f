/**
 * The records of a served session page (src/serve/page-data.ts), fetched apart from the page:
 * over real HTTP from a `session-tree serve` child (what a browser and a script get), and the
 * builds' cache in process over real files. The records are checked against the export's
 * embedded records (`exportSessionHtml`: the same bytes) and, independently of both, against
 * the file itself read line by line with `JSON.parse` here (every entry, in file order, the
 * secret replaced and nothing else changed).
 */

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { gunzipSync } from "node:zlib";
import { chromium } from "playwright-core";
import { directorySource, storeSource } from "../../src/catalog/catalog-index/index.js";
import { exportSessionHtml, Session } from "../../src/index.js";
import type { IndexedSession } from "../../src/serve/catalog.js";
import { keyOf } from "../../src/serve/catalog.js";
import { PageDataCache } from "../../src/serve/page-data.js";
import { SessionOpener } from "../../src/serve/sources.js";
import { assistant as assistantAt, user as userAt } from "../catalog/layout.js";
import { BROWSER_SKIP, CHROMIUM, CHROMIUM_ARGS } from "../support/browser.js";
import { embeddedRecordBytes } from "../support/page-data.js";
import { SQLITE_SKIP } from "../support/sqlite.js";
import {
	buildHome,
	type Home,
	http,
	openServed,
	type PageGlobals,
	PROJECT,
	type Served,
	startServe,
	waitReady,
} from "./support.js";

/** A secret built at run time, so that this file holds none. */
const SECRET = ["sk", "ant", "api03", "Pg5Tn8Wq2Lz7Kd4Vc1Mx9Rb6"].join("-");

/** The view options of a page. */
function viewOf(html: string): { leafId: string | null; shown?: string; server?: Record<string, unknown> } {
	const match = /<script type="application\/base64\+json" id="session-view">([^<]*)<\/script>/.exec(html);
	assert.ok(match?.[1] !== undefined, "the view block");
	return JSON.parse(Buffer.from(match[1], "base64").toString("utf8"));
}

describe("serve: a page's records, fetched", { skip: SQLITE_SKIP }, () => {
	let home: Home;
	let served: Served;
	let file: string;
	before(async () => {
		home = await buildHome();
		// A session of the pi project with a secret in one message.
		const session = await Session.open(home.branched);
		await session.appendMessage(userAt(`my key is ${SECRET}, keep it`, new Date().toISOString()));
		await session.appendMessage(assistantAt("I will not repeat it.", new Date().toISOString()));
		await session.close();
		file = home.branched;
		served = await startServe(home.home);
	});
	after(async () => {
		await served?.stop();
		if (home) rmSync(home.home, { recursive: true, force: true });
	});
	const headers = () => ({ Host: `127.0.0.1:${served.port}`, Authorization: `Bearer ${served.token}` });

	test("the page holds no record; its records come gzip to a browser, plain to a client that does not ask for gzip, both the export's bytes", async () => {
		const key = keyOf(file);
		const page = await http(served.port, `/s/${key}`, { headers: headers() });
		assert.equal(page.status, 200);
		assert.ok(!page.body.includes(SECRET), "the secret is not in the page");
		assert.doesNotMatch(page.body, /class="session-data"/, "no embedded records");
		const server = viewOf(page.body).server ?? {};
		assert.equal(server.records, `/api/sessions/${key}/records`);
		assert.match(String(server.build), /^[A-Za-z0-9_-]{12}$/);

		const path = `${server.records}?build=${server.build}`;
		const zipped = await http(served.port, path, { headers: { ...headers(), "Accept-Encoding": "gzip, deflate, br" } });
		assert.equal(zipped.status, 200);
		assert.equal(zipped.headers["content-encoding"], "gzip");
		assert.equal(zipped.headers["x-session-build"], server.build, "the build the page names");
		assert.match(String(zipped.headers["content-type"]), /^application\/x-ndjson/);
		assert.equal(zipped.headers["cache-control"], "no-store");
		const records = gunzipSync(zipped.bytes);
		const plain = await http(served.port, path, { headers: headers() });
		assert.equal(plain.headers["content-encoding"], undefined);
		assert.deepEqual(plain.bytes, records, "inflated by the server for a client without gzip");

		// The export's embedded records, byte for byte.
		const session = await Session.open(file);
		const exported = await exportSessionHtml(session);
		await session.close();
		assert.deepEqual(records, embeddedRecordBytes(exported.html));

		// Independently: the file's records read here, in order, the secret replaced and nothing else.
		const stored = readFileSync(file, "utf8")
			.split("\n")
			.filter((line) => line !== "")
			.map((line) => JSON.parse(line) as { type: string; id?: string });
		const sent = records
			.toString("utf8")
			.split("\n")
			.filter((line) => line !== "")
			.map((line) => JSON.parse(line) as { type: string; id?: string });
		assert.equal(sent[0]?.type, "session");
		assert.deepEqual(
			sent.map((record) => record.id),
			stored.filter((record) => record.type !== "leaf").map((record) => record.id),
			"the header and every entry, in file order",
		);
		assert.ok(!records.includes(SECRET), "the secret is not sent");
		assert.match(records.toString("utf8"), /my key is \[REDACTED:[a-z-]+\], keep it/);

		// The view options gathered with them: the leaf and the filters' hints of the export.
		const meta = await http(served.port, `${server.records}/meta?build=${server.build}`, { headers: headers() });
		assert.equal(meta.status, 200);
		const view = JSON.parse(meta.body) as { leafId: string; shown: string; fileVersion: number };
		assert.equal(view.leafId, exported.leafId);
		assert.equal(view.shown, viewOf(exported.html).shown);
		assert.equal(view.fileVersion, 3);
	});

	test("a build is kept while the file is unchanged, made again after an append; an unknown build is made anew, its options 404", async () => {
		const key = keyOf(file);
		const buildOf = async () =>
			String(viewOf((await http(served.port, `/s/${key}`, { headers: headers() })).body).server?.build);
		const first = await buildOf();
		assert.equal(await buildOf(), first, "the same build for the same file");

		const session = await Session.open(file);
		await session.appendMessage(userAt("one more question", new Date().toISOString()));
		await session.close();
		const second = await buildOf();
		assert.notEqual(second, first, "a new build after the append");
		const records = await http(served.port, `/api/sessions/${key}/records?build=${second}`, { headers: headers() });
		assert.match(records.body, /one more question/);

		const unknown = await http(served.port, `/api/sessions/${key}/records?build=nosuchbuild0`, { headers: headers() });
		assert.equal(unknown.status, 200);
		assert.equal(unknown.headers["x-session-build"], second, "the file's current build");
		const meta = await http(served.port, `/api/sessions/${key}/records/meta?build=nosuchbuild0`, {
			headers: headers(),
		});
		assert.equal(meta.status, 404);
		assert.match(meta.body, /UNKNOWN_BUILD/);
		// Another session's build is not this one's.
		const other = await http(served.port, `/api/sessions/${keyOf(home.claude)}/records/meta?build=${second}`, {
			headers: headers(),
		});
		assert.equal(other.status, 404);
	});

	test("in Chromium: the page asks once for its records (the head's preload is what its script reads) and once for their options", {
		skip: BROWSER_SKIP,
	}, async () => {
		const browser = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS] });
		try {
			const key = keyOf(file);
			const opened = await openServed(browser, served, `/s/${key}`, { ready: false });
			// The first load done before the listener counts: a request of it still under way (its
			// options, fetched after the records) was once counted with the reload's.
			await waitReady(opened.page);
			const asked: string[] = [];
			opened.context.on("request", (request) => {
				if (request.url().includes("/records")) asked.push(new URL(request.url()).pathname);
			});
			// Again in the same context, now that the listener counts.
			await opened.page.reload();
			await waitReady(opened.page);
			assert.deepEqual(asked.sort(), [`/api/sessions/${key}/records`, `/api/sessions/${key}/records/meta`]);
			// One resource of the records, started by the head's link: the script's fetch took the preload's answer.
			const initiators = await opened.page.evaluate(() =>
				(
					globalThis as unknown as {
						performance: { getEntriesByType(type: string): { name: string; initiatorType: string }[] };
					}
				).performance
					.getEntriesByType("resource")
					.filter((entry) => /\/records\?build=/.test(entry.name))
					.map((entry) => entry.initiatorType),
			);
			assert.deepEqual(initiators, ["link"]);
			const text = (await opened.page.locator("main, #app").first().textContent()) ?? "";
			assert.match(text, /\[REDACTED:[a-z-]+\]/, "the redacted secret is shown");
			assert.ok(!text.includes(SECRET));
			const held = await opened.page.evaluate(
				() => (globalThis as unknown as PageGlobals).document.documentElement.dataset.records,
			);
			const entries = readFileSync(file, "utf8")
				.split("\n")
				.filter((line) => line !== "")
				.map((line) => (JSON.parse(line) as { type: string }).type)
				.filter((type) => type !== "leaf" && type !== "session");
			assert.equal(held, String(entries.length), "every entry of the file is held");
			assert.deepEqual(opened.errors, []);
			await opened.context.close();
		} finally {
			await browser.close();
		}
	});

	test("the records are behind the guards: no token 401, a foreign Origin 403", async () => {
		const path = `/api/sessions/${keyOf(file)}/records`;
		assert.equal((await http(served.port, path, { headers: { Host: `127.0.0.1:${served.port}` } })).status, 401);
		const foreign = await http(served.port, path, { headers: { ...headers(), Origin: "https://evil.example" } });
		assert.equal(foreign.status, 403);
	});
});

describe("PageDataCache: builds kept and dropped", () => {
	let dir: string;
	let cache: PageDataCache;
	const rows: IndexedSession[] = [];
	before(async () => {
		dir = mkdtempSync(join(tmpdir(), "st-page-data-"));
		const source = directorySource(dir);
		for (let n = 0; n < 3; n++) {
			const session = await Session.create({ dir, cwd: PROJECT });
			for (let i = 0; i < 200; i++)
				await session.appendMessage(userAt(`question ${n}.${i} ${"x".repeat(i % 97)}`, new Date().toISOString()));
			const location = session.file as string;
			await session.close();
			// The columns the cache and the opener read (the index makes the rest).
			rows.push({ key: keyOf(location), location, source: source.name, writable: true } as IndexedSession);
		}
		cache = new PageDataCache(new SessionOpener([source]), 1);
	});
	after(() => rmSync(dir, { recursive: true, force: true }));

	const finished = async (row: IndexedSession) => {
		const build = await cache.start(row);
		while (!build.ended) await build.whenChanged();
		assert.equal(build.error, undefined);
		return build;
	};

	test("a build shared while it runs, kept while its file is unchanged; past the limit the least recently used go first", async () => {
		const [a, b, c] = rows as [IndexedSession, IndexedSession, IndexedSession];
		const running = await cache.start(a);
		assert.equal(running.ended, false, "started, not awaited");
		assert.equal(await cache.start(a), running, "one build for two pages at once");
		const built = await finished(a);
		assert.equal(built, running);
		assert.ok(built.bytes > 0 && built.chunks.length > 0);
		// The limit is one byte: each build that ends drops every other ended one, oldest first, not itself.
		const bBuild = await finished(b);
		assert.equal(cache.byId(built.id), undefined, "a dropped once b ended");
		assert.equal(cache.byId(bBuild.id), bBuild, "the build just made is kept, whatever its size");
		const cBuild = await finished(c);
		assert.equal(cache.byId(bBuild.id), undefined, "b dropped once c ended");
		assert.equal(cache.byId(cBuild.id), cBuild);
	});

	test("an append makes a new build and drops the old one of that session", async () => {
		const roomy = new PageDataCache(new SessionOpener([directorySource(dir)]));
		const row = rows[0] as IndexedSession;
		const old = await roomy.start(row);
		while (!old.ended) await old.whenChanged();
		assert.equal(await roomy.start(row), old);
		const session = await Session.open(row.location);
		await session.appendMessage(userAt("appended", new Date().toISOString()));
		await session.close();
		const fresh = await roomy.start(row);
		assert.notEqual(fresh, old);
		assert.equal(roomy.byId(old.id), undefined, "the old version is dropped");
		while (!fresh.ended) await fresh.whenChanged();
		const text = gunzipSync(Buffer.concat(fresh.chunks)).toString("utf8");
		assert.equal(text.trim().split("\n").length, 1 + 201, "the header and every entry");
		assert.match(text, /"appended"/);
	});

	test("a session not in a file (SQLite) is built for each page, the earlier build dropped once the next ends", {
		skip: SQLITE_SKIP,
	}, async () => {
		const db = join(dir, "sessions.sqlite");
		const session = await Session.create({ location: `sqlite:${db}`, cwd: PROJECT });
		await session.appendMessage(userAt("stored in SQLite", new Date().toISOString()));
		const location = session.location;
		await session.close();
		const source = storeSource(`sqlite:${db}`);
		const cache = new PageDataCache(new SessionOpener([source]));
		const row = { key: keyOf(location), location, source: source.name, writable: true } as IndexedSession;
		const finished = async () => {
			const build = await cache.start(row);
			while (!build.ended) await build.whenChanged();
			assert.equal(build.error, undefined);
			return build;
		};
		const first = await finished();
		assert.equal(first.fingerprint, undefined);
		assert.match(gunzipSync(Buffer.concat(first.chunks)).toString("utf8"), /stored in SQLite/);
		const second = await finished();
		assert.notEqual(second, first, "no version to compare: built again");
		assert.equal(cache.byId(first.id), undefined, "the earlier build dropped");
		assert.equal(cache.byId(second.id), second);
	});
});
