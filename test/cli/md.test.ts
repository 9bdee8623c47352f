/** `session-tree md`: the path to the leaf as Markdown, on pi's fixtures. */

import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { Session } from "../../src/index.js";
import { type CliResult, cli, fixture, removeTempDirs, tempDir } from "./helpers.js";

after(removeTempDirs);

async function ok(args: string[]): Promise<string> {
	const result: CliResult = await cli(args);
	assert.equal(result.code, 0, `${args.join(" ")}: ${result.stderr}`);
	assert.equal(result.stderr, "");
	return result.stdout;
}

describe("md", () => {
	test("tool calls, results, bash runs and images; never the image data", async () => {
		const out = await ok(["md", fixture("tool-calls")]);
		assert.ok(out.startsWith("# Here is a screenshot of the failing test. Run the tests and fix it.\n\n"));
		assert.match(
			out,
			/^Session `01a22b44-aa68-70e8-8301-5721d261b059` · cwd `\/home\/dev\/project` · leaf `c2eb0903`$/m,
		);
		assert.ok(out.includes("*Thinking level: `high`*\n"));
		assert.ok(
			out.includes(
				"### User\n\nHere is a screenshot of the failing test. Run the tests and fix it.\n\n[image: image/png]\n",
			),
		);
		assert.ok(out.includes("<details><summary>Thinking</summary>\n\nThe screenshot shows a failing assertion"));
		assert.ok(out.includes('**Tool call** `bash`\n```json\n{\n  "command": "npm test -- --run",'));
		assert.ok(
			out.includes("### Tool result `edit` (error)\n\n```\nError: oldText not found in src/core/session.ts\n```\n"),
		);
		assert.ok(out.includes("### Bash (exit 0)\n\n```console\n$ git status --short\n M src/core/session.ts\n```\n"));
		assert.ok(out.includes("*Thinking (redacted)*"));
		assert.doesNotMatch(out, /iVBORw0KGgo/);
		assert.ok(out.endsWith("Fixed: the loader now trims the trailing newline before splitting.\n"));
	});

	test("a compaction as a quote, in its place on the path; the compacted entries are still there", async () => {
		const out = await ok(["md", fixture("compaction")]);
		assert.ok(out.startsWith("# We file tool can this object with package it result."));
		assert.ok(out.includes("*Model: `anthropic/claude-sonnet-4-5`*\n"));
		assert.ok(
			out.includes(
				"> **Compaction summary** (48,213 tokens before; kept from `6e36eb14`)\n>\n> ## Goal\n> Fix the session loader.\n",
			),
		);
		const summary = out.indexOf("**Compaction summary**");
		assert.ok(out.indexOf("Null module user provider compaction") < summary);
		assert.ok(out.indexOf("[after compaction] Read at not function") > summary);
	});

	test("labels after the headings; label entries are not printed", async () => {
		const out = await ok(["md", fixture("labels")]);
		assert.ok(out.includes("### User 🏷 beginning\n"));
		assert.ok(out.includes("### Assistant (anthropic/claude-sonnet-4-5) 🏷 padded, not trimmed\n"));
		assert.ok(out.includes("### User 🏷 set again\n\n[side] Async const return length root value\n"));
		assert.doesNotMatch(out, /target on the other branch|good answer/);
		assert.equal(out.match(/^### /gm)?.length, 4);
	});

	test("--leaf ID (a prefix) on a side branch: that branch's messages, not the other's", async () => {
		const side = await ok(["md", fixture("branch-with-summary"), "--leaf", "1cc2"]);
		assert.match(side, /· leaf `1cc2db55`\n/);
		assert.ok(side.includes("> **Branch summary** (from `554a93e6`)\n>\n> Tried rewriting the parser with regexes;"));
		assert.ok(side.includes("[after empty summary] Bash regression"));
		assert.doesNotMatch(side, /\[new root\]/);
		assert.doesNotMatch(side, /Null map null for null message node/); // c0c03bee, on the first branch

		const active = await ok(["md", fixture("branch-with-summary")]);
		assert.ok(active.startsWith("# \\[new root\\] Be value this root error"));
		assert.ok(active.includes("> **Branch summary** (from `root`)\n>\n> Started over from scratch"));
		assert.doesNotMatch(active, /\[after (empty )?summary\]/);

		const main = await ok(["md", fixture("labels"), "--leaf", "2cf4db27"]);
		assert.ok(main.includes("It node path undefined to leaf."));
		assert.ok(main.includes("### Assistant (anthropic/claude-sonnet-4-5) 🏷 target on the other branch\n"));
		assert.doesNotMatch(main, /\[side\]/);
	});

	test("the session name is the title", async () => {
		const out = await ok(["md", fixture("session-info-rename")]);
		assert.ok(out.startsWith("# Name set on a side branch\n\n"));
	});

	test("an empty session", async () => {
		const out = await ok(["md", fixture("empty-session")]);
		assert.match(
			out,
			/^# Session [0-9a-f-]+\n\nSession `[0-9a-f-]+` · cwd `\/home\/dev\/project` · leaf \(before the first entry\)\n\n\*\(no entries\)\*\n$/,
		);
	});

	test("errors: a missing file and an unknown id exit 1 naming the file; a missing FILE exits 2", async () => {
		const missing = `${tempDir()}/missing.jsonl`;
		const gone = await cli(["md", missing]);
		assert.equal(gone.code, 1);
		assert.equal(gone.stdout, "");
		assert.ok(gone.stderr.startsWith(`session-tree: ${missing}`), gone.stderr);

		const unknown = await cli(["md", fixture("labels"), "--leaf", "ffffffff"]);
		assert.equal(unknown.code, 1);
		assert.equal(unknown.stdout, "");
		assert.ok(unknown.stderr.startsWith(`session-tree: ${fixture("labels")}: `), unknown.stderr);
		assert.match(unknown.stderr, /ffffffff/);

		const usage = await cli(["md"]);
		assert.equal(usage.code, 2);
		assert.match(usage.stderr, /^session-tree: missing FILE\nTry 'session-tree md --help'\.\n$/);
	});

	test("a body that cannot be read stops the output after the entries before it (written as read)", async () => {
		// Line 5 is a message before the compaction: outside the context, so parsed only when md reaches it.
		const lines = readFileSync(fixture("compaction"), "utf8").split("\n");
		lines[4] = (lines[4] as string).replace('"text":"', '"text":"\\q');
		const file = join(tempDir(), "damaged.jsonl");
		writeFileSync(file, lines.join("\n"));
		const result = await cli(["md", file]);
		assert.equal(result.code, 1);
		assert.ok(result.stderr.startsWith(`session-tree: ${file}:5: not valid JSON`), result.stderr);
		assert.ok(result.stdout.startsWith("# We file tool can this object with package it result."));
		assert.ok(result.stdout.includes("### User\n\nWe file tool can this object"));
		assert.ok(!result.stdout.includes("Compaction summary"));
	});

	test("--help, help md, and the listing", async () => {
		const [flag, word, listing] = await Promise.all([cli(["md", "--help"]), cli(["help", "md"]), cli(["--help"])]);
		assert.equal(flag.code, 0);
		assert.ok(flag.stdout.startsWith("Usage: session-tree md FILE [--leaf ID]"));
		assert.match(flag.stdout, /^ {2}--leaf ID /m);
		assert.match(flag.stdout, /^Examples:\n {2}session-tree md /m);
		assert.equal(word.stdout, flag.stdout);
		assert.match(listing.stdout, /^ {2}md {2,}print the path to the leaf as Markdown/m);
	});
});

describe("md redacts secrets", () => {
	test("an API key and a URL password are replaced, stderr counts them; --no-redact keeps them", async () => {
		const dir = tempDir();
		const key = ["sk", "proj", "Abc123def456GHI789jkl012MNO345"].join("-");
		const session = await Session.create({ dir, cwd: "/p" });
		await session.appendMessage({
			role: "user",
			content: `use ${key} with postgres://app:${"hunter2secret"}@db.internal/agents`,
			timestamp: 1,
		});
		await session.close();
		const file = session.file as string;
		const redacted = await cli(["md", file]);
		assert.equal(redacted.code, 0, redacted.stderr);
		assert.ok(!redacted.stdout.includes(key), "the key is gone");
		assert.ok(!redacted.stdout.includes("hunter2secret"), "the password is gone");
		assert.match(redacted.stdout, /\[REDACTED:api-key\]/);
		assert.match(redacted.stderr, /redacted .*1 api-key/);
		assert.match(redacted.stderr, /1 url-password/);
		const kept = await cli(["md", file, "--no-redact"]);
		assert.ok(kept.stdout.includes(key));
		assert.equal(kept.stderr, "");
	});
});
