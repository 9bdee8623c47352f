/** `session-tree html`: the command line (files, stdout, overwriting, --leaf, redaction). */

import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { Session } from "../../src/index.js";
import { embeddedRecordText } from "../support/page-data.js";
import { cli, fixture, removeTempDirs, tempDir } from "./helpers.js";

after(removeTempDirs);

/** The embedded records of a page, as JSONL text. */
function dataOf(html: string): string {
	return embeddedRecordText(html);
}

/** The view options of a page. */
function viewOf(html: string): { leafId: string | null; fileVersion: number } {
	const match = /<script type="application\/base64\+json" id="session-view">([^<]*)<\/script>/.exec(html);
	assert.ok(match?.[1] !== undefined, "the view block");
	return JSON.parse(Buffer.from(match[1], "base64").toString("utf8"));
}

/** Secrets built at run time, so that this file holds none. */
const SK = ["sk", "ant", "api03", "Hq7Wm2Pz9Lx4Kc8Vb1Nt6Rs3"].join("-");
const AKIA = ["AKIA", "CLIHTMLTESTKEY99"].join("");
const PEM_BODY =
	"MIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8QuKUpRKfFLfRYC9AIKjbJTWit+CqvjWYzvQwECAwEAAQ";
const PEM = `-----BEGIN RSA ${"PRIVATE"} KEY-----\n${PEM_BODY}\n-----END RSA ${"PRIVATE"} KEY-----`;

async function sessionWithSecrets(dir: string): Promise<string> {
	const session = await Session.create({ dir, cwd: "/p" });
	await session.appendMessage({ role: "user", content: `keys: ${SK} ${AKIA}`, timestamp: 1 });
	await session.appendMessage({
		role: "toolResult",
		toolCallId: "c1",
		toolName: "read",
		content: [{ type: "text", text: PEM }],
		isError: false,
		timestamp: 2,
	});
	await session.close();
	return session.file as string;
}

describe("html", () => {
	test("writes FILE's name with .html in the current directory, mode 0600, and prints its path", async () => {
		const dir = tempDir();
		const result = await cli(["html", fixture("tool-calls")], { cwd: dir });
		assert.equal(result.code, 0, result.stderr);
		const out = join(dir, "tool-calls.html");
		assert.equal(result.stdout, `${out}\n`);
		assert.equal(result.stderr, "");
		assert.equal(statSync(out).mode & 0o777, 0o600);
		const html = readFileSync(out, "utf8");
		assert.ok(html.startsWith("<!doctype html>\n"));
		assert.ok(html.endsWith("</html>\n"));
		assert.equal(viewOf(html).leafId, "c2eb0903");
		// Nothing else was left in the directory (no temporary file).
		assert.deepEqual(readdirSync(dir), ["tool-calls.html"]);
	});

	test("-o OUT writes there; -o - writes to stdout", async () => {
		const dir = tempDir();
		const out = join(dir, "page.html");
		const written = await cli(["html", fixture("labels"), "-o", out]);
		assert.equal(written.code, 0, written.stderr);
		assert.equal(written.stdout, `${out}\n`);
		const stdout = await cli(["html", fixture("labels"), "-o", "-"], { cwd: dir });
		assert.equal(stdout.code, 0, stdout.stderr);
		assert.equal(stdout.stdout, readFileSync(out, "utf8"), "the same page either way");
		assert.deepEqual(readdirSync(dir), ["page.html"], "-o - writes no file");
		const long = await cli(["html", fixture("labels"), "--out", "-"]);
		assert.equal(long.stdout, stdout.stdout);
	});

	test("an existing OUT is refused (exit 1, left as it is) unless --force", async () => {
		const dir = tempDir();
		const out = join(dir, "page.html");
		writeFileSync(out, "mine", { mode: 0o644 });
		const refused = await cli(["html", fixture("labels"), "-o", out]);
		assert.equal(refused.code, 1);
		assert.equal(refused.stdout, "");
		assert.equal(refused.stderr, `session-tree: ${out}: the file exists (--force replaces it)\n`);
		assert.equal(readFileSync(out, "utf8"), "mine");
		const forced = await cli(["html", fixture("labels"), "-o", out, "--force"]);
		assert.equal(forced.code, 0, forced.stderr);
		assert.ok(readFileSync(out, "utf8").startsWith("<!doctype html>"));
		assert.equal(statSync(out).mode & 0o777, 0o600, "the new file is owner-only");
		assert.deepEqual(readdirSync(dir), ["page.html"]);
		// Refused before the session is read: a session that cannot be read is not the error.
		const first = await cli(["html", join(dir, "no-such-session.jsonl"), "-o", out]);
		assert.equal(first.code, 1);
		assert.equal(first.stderr, `session-tree: ${out}: the file exists (--force replaces it)\n`);
	});

	test("--leaf ID (a prefix) is the entry shown first; an unknown one fails before anything is written", async () => {
		const dir = tempDir();
		const out = join(dir, "side.html");
		const side = await cli(["html", fixture("branch-with-summary"), "--leaf", "1cc2", "-o", out]);
		assert.equal(side.code, 0, side.stderr);
		assert.equal(viewOf(readFileSync(out, "utf8")).leafId, "1cc2db55");

		const unknown = await cli(["html", fixture("labels"), "--leaf", "ffffffff", "-o", join(dir, "x.html")]);
		assert.equal(unknown.code, 1);
		assert.ok(unknown.stderr.startsWith(`session-tree: ${fixture("labels")}: `), unknown.stderr);
		assert.match(unknown.stderr, /ffffffff/);
		assert.ok(!existsSync(join(dir, "x.html")));
	});

	test("secrets are redacted by default, stderr counts them; --no-redact keeps them", async () => {
		const dir = tempDir();
		const file = await sessionWithSecrets(dir);
		const redacted = await cli(["html", file, "-o", "-"]);
		assert.equal(redacted.code, 0, redacted.stderr);
		const data = dataOf(redacted.stdout);
		for (const secret of [SK, AKIA, PEM_BODY]) {
			assert.ok(!redacted.stdout.includes(secret));
			assert.ok(!data.includes(secret), "the decoded data holds no secret");
		}
		assert.equal(
			redacted.stderr,
			"session-tree: redacted 1 api-key, 1 aws-access-key-id, 1 private-key (--no-redact keeps them)\n",
		);
		const kept = await cli(["html", file, "-o", "-", "--no-redact"]);
		assert.equal(kept.code, 0, kept.stderr);
		assert.equal(kept.stderr, "");
		const keptData = dataOf(kept.stdout);
		for (const secret of [SK, AKIA, PEM_BODY]) assert.ok(keptData.includes(secret), "--no-redact keeps the secret");
	});

	test("--lenient opens a damaged file and warns; a missing file or FILE fails", async () => {
		const dir = tempDir();
		const damaged = join(dir, "damaged.jsonl");
		const lines = readFileSync(fixture("linear-chat"), "utf8").split("\n");
		lines.splice(2, 0, "{not json");
		writeFileSync(damaged, lines.join("\n"));
		const strict = await cli(["html", damaged, "-o", "-"]);
		assert.equal(strict.code, 1);
		const lenient = await cli(["html", damaged, "-o", "-", "--lenient"]);
		assert.equal(lenient.code, 0, lenient.stderr);
		assert.match(lenient.stderr, /^session-tree: warning: .*damaged\.jsonl:3: /m);
		assert.ok(dataOf(lenient.stdout).split("\n").length > 3);

		const missing = await cli(["html", join(dir, "missing.jsonl")]);
		assert.equal(missing.code, 1);
		const usage = await cli(["html"]);
		assert.equal(usage.code, 2);
		assert.match(usage.stderr, /^session-tree: missing FILE\nTry 'session-tree html --help'\.\n$/);
	});

	test("--help, help html, and the listing", async () => {
		const [flag, word, listing] = await Promise.all([cli(["html", "--help"]), cli(["help", "html"]), cli(["--help"])]);
		assert.equal(flag.code, 0);
		assert.ok(flag.stdout.startsWith("Usage: session-tree html FILE [-o OUT]"));
		assert.match(flag.stdout, /^ {2}-o, --out OUT /m);
		assert.match(flag.stdout, /^ {2}--force /m);
		assert.equal(word.stdout, flag.stdout);
		assert.match(listing.stdout, /^ {2}html {2,}write the whole session tree as one offline HTML page/m);
	});
});
