/**
 * The guards of `session-tree serve` over real HTTP (a child process, node:http requests with
 * the headers a browser or an attacker would send): the token, the cookie it buys, Bearer for
 * scripts, Host (DNS rebinding) and Origin (cross-site) checks, writes only from the server's
 * own pages, read-only sessions, sessions only by key, and a clean exit on Ctrl-C.
 */

import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { keyOf } from "../../src/serve/catalog.js";
import { SQLITE_SKIP } from "../support/sqlite.js";
import { buildHome, type Home, http, type Served, startServe } from "./support.js";

let home: Home;
let served: Served;
// `serve` opens the catalog index (SQLite): every test below needs it.
before(async () => {
	if (SQLITE_SKIP) return;
	home = await buildHome();
	served = await startServe(home.home);
});
after(async () => {
	await served?.stop();
	if (home) rmSync(home.home, { recursive: true, force: true });
});

const host = () => `127.0.0.1:${served.port}`;
const bearer = () => ({ Host: host(), Authorization: `Bearer ${served.token}` });

describe("serve: token and cookie", { skip: SQLITE_SKIP }, () => {
	test("the printed URL binds 127.0.0.1 and holds a 32-byte base64url token", () => {
		assert.match(served.url, /^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
	});

	test("no token: 401; a wrong token (query, cookie or Bearer): 403", async () => {
		assert.equal((await http(served.port, "/", { headers: { Host: host() } })).status, 401);
		assert.equal((await http(served.port, "/api/sessions", { headers: { Host: host() } })).status, 401);
		const wrong = `${served.token.slice(0, -1)}${served.token.endsWith("A") ? "B" : "A"}`;
		assert.equal((await http(served.port, `/?token=${wrong}`, { headers: { Host: host() } })).status, 403);
		const cookie = `session-tree-${served.port}=${wrong}`;
		assert.equal((await http(served.port, "/", { headers: { Host: host(), Cookie: cookie } })).status, 403);
		assert.equal(
			(await http(served.port, "/api/sessions", { headers: { Host: host(), Authorization: `Bearer ${wrong}` } }))
				.status,
			403,
		);
	});

	test("the token URL sets an HttpOnly SameSite=Strict cookie and redirects to the URL without it; the cookie then works", async () => {
		const first = await http(served.port, `/search?q=x&token=${served.token}`, { headers: { Host: host() } });
		assert.equal(first.status, 303);
		assert.equal(first.headers.location, "/search?q=x");
		const setCookie = String(first.headers["set-cookie"]);
		assert.match(setCookie, new RegExp(`^session-tree-${served.port}=${served.token};`));
		assert.match(setCookie, /HttpOnly/);
		assert.match(setCookie, /SameSite=Strict/);
		assert.match(setCookie, /Path=\//);
		const cookie = setCookie.split(";")[0] as string;
		const page = await http(served.port, "/search?q=x", { headers: { Host: host(), Cookie: cookie } });
		assert.equal(page.status, 200);
		const csp = String(page.headers["content-security-policy"]);
		assert.match(csp, /script-src 'sha256-[^']+'/);
		assert.doesNotMatch(csp, /unsafe-inline/);
		assert.match(csp, /frame-ancestors 'none'/);
		assert.match(csp, /connect-src 'self'/);
		assert.equal(page.headers["x-content-type-options"], "nosniff");
		assert.equal(page.headers["referrer-policy"], "no-referrer");
	});
});

describe("serve: Host and Origin", { skip: SQLITE_SKIP }, () => {
	test("a foreign Host (DNS rebinding) is refused with 403, even with the token", async () => {
		for (const name of [`evil.example:${served.port}`, "127.0.0.1", `127.0.0.1:${served.port + 1}`]) {
			const answer = await http(served.port, "/api/sessions", { headers: { ...bearer(), Host: name } });
			assert.equal(answer.status, 403, name);
			assert.match(answer.body, /FOREIGN_HOST/);
		}
		for (const name of [`localhost:${served.port}`, `[::1]:${served.port}`]) {
			assert.equal(
				(await http(served.port, "/api/sessions", { headers: { ...bearer(), Host: name } })).status,
				200,
				name,
			);
		}
	});

	test("a foreign Origin is refused on reads and writes; a write needs Origin or Sec-Fetch-Site same-origin", async () => {
		const key = keyOf(home.branched);
		const read = await http(served.port, "/api/sessions", { headers: { ...bearer(), Origin: "http://evil.example" } });
		assert.equal(read.status, 403);
		const json = { ...bearer(), "Content-Type": "application/json" };
		const body = JSON.stringify({ name: "renamed" });
		const post = (headers: Record<string, string>) =>
			http(served.port, `/api/sessions/${key}/name`, { method: "POST", headers, body });
		assert.equal((await post({ ...json, Origin: "http://evil.example" })).status, 403);
		assert.equal((await post({ ...json, Origin: `http://127.0.0.1:${served.port + 1}` })).status, 403);
		const bare = await post(json);
		assert.equal(bare.status, 403, "no Origin, no Sec-Fetch-Site");
		assert.match(bare.body, /FOREIGN_ORIGIN/);
		assert.equal((await post({ ...json, "Sec-Fetch-Site": "cross-site" })).status, 403);
		assert.equal((await post({ ...json, Origin: served.origin })).status, 200);
	});
});

describe("serve: sessions by key only", { skip: SQLITE_SKIP }, () => {
	test("another agent's session refuses writes with 403 NOT_WRITABLE; an unknown or path-like key is 404", async () => {
		const headers = { ...bearer(), Origin: served.origin, "Content-Type": "application/json" };
		for (const file of [home.claude, home.codex, home.gemini]) {
			const answer = await http(served.port, `/api/sessions/${keyOf(file)}/label`, {
				method: "POST",
				headers,
				body: JSON.stringify({ entryId: "x", label: "y" }),
			});
			assert.equal(answer.status, 403, file);
			assert.match(answer.body, /NOT_WRITABLE/);
		}
		for (const path of [
			"/s/0000000000000000",
			"/s/..%2f..%2fetc%2fpasswd",
			`/s/${encodeURIComponent(home.branched)}`,
		]) {
			assert.equal((await http(served.port, path, { headers: bearer() })).status, 404, path);
		}
		const page = await http(served.port, `/s/${keyOf(home.branched)}`, { headers: bearer() });
		assert.equal(page.status, 200);
		// The export's policy (script and style by hash) with connections to its own origin, not framable.
		const csp = String(page.headers["content-security-policy"]);
		assert.match(
			csp,
			/^default-src 'none'; connect-src 'self'; script-src 'sha256-[^']+'; style-src 'sha256-[^']+'; img-src data:/,
		);
		assert.match(csp, /frame-ancestors 'none'/);
		assert.match(page.body, /<meta http-equiv="Content-Security-Policy" content="[^"]*connect-src &#39;self&#39;/);
	});

	test("downloads: JSONL, HTML and Markdown of a session", async () => {
		const key = keyOf(home.branched);
		const get = (format: string) =>
			http(served.port, `/api/sessions/${key}/download?format=${format}`, { headers: bearer() });
		const jsonl = await get("jsonl");
		assert.equal(jsonl.status, 200);
		// Header plus 6 messages, a leaf record of branch() is not an entry (the records the page embeds).
		assert.equal(jsonl.body.trim().split("\n").length, 1 + 6 + 1, "header, 6 messages and the name set above");
		assert.match(String(jsonl.headers["content-disposition"]), /attachment; filename=".*\.jsonl"/);
		assert.match((await get("html")).body, /^<!doctype html>/);
		assert.match((await get("md")).body, /How do B-trees split\?/);
	});
});

describe("serve: --host", { skip: SQLITE_SKIP }, () => {
	test("an address other machines reach only when asked, with a warning on stderr; loopback without one", async () => {
		const wide = await startServe(home.home, ["--host", "0.0.0.0"]);
		try {
			assert.match(wide.url, /^http:\/\/0\.0\.0\.0:\d+\/\?token=/);
			assert.match(wide.stderr(), /warning: --host 0\.0\.0\.0 makes the sessions reachable from other machines/);
		} finally {
			await wide.stop();
		}
		assert.equal(served.stderr(), "", "the default (127.0.0.1) warns of nothing");
	});
});

describe("serve: Ctrl-C", { skip: SQLITE_SKIP }, () => {
	test("SIGINT closes the server and exits 0", async () => {
		const other = await startServe(home.home);
		assert.equal(await other.stop(), 0);
	});
});
