/**
 * Session content is data (issue 30, item 7): escape sequences, C1 controls and bidi controls in
 * a session's name, labels, ids, messages, cwd and file name never reach the terminal raw, in
 * any command's output (stdout and stderr), the REPL's and browse's screen included. `--json`
 * keeps the exact data, with those characters escaped as `\uXXXX`.
 */

import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { sourceOf } from "../../src/cli/browse/first-frame.js";
import { BrowseModel } from "../../src/cli/browse/model.js";
import { renderScreen } from "../../src/cli/browse/view.js";
import { jsonLine } from "../../src/cli/json.js";
import { completeLine } from "../../src/cli/repl/completion.js";
import { promptText } from "../../src/cli/repl/repl.js";
import { collectingState } from "../../src/cli/repl/state.js";
import { makeStyle } from "../../src/cli/repl/style.js";
import { Session } from "../../src/index.js";
import { cli, removeTempDirs, tempDir } from "./helpers.js";

after(removeTempDirs);

/** An OSC 52 clipboard write, a screen clear, a C1 CSI (U+009B), a carriage return, bidi controls. */
const EVIL = "\u001b]52;c;cHduZWQ=\u0007\u001b[2J\u009b31m\r\u202e\u2066\u200f\u061c";
/** What no output may hold: C0 controls but tab and newline, DEL, C1 controls, bidi controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
/** The name: reads "reportexe.pdf" on a terminal that honours the override. */
const NAME = `report\u202efdp.exe${EVIL}`;
const USER_ID = `u1${EVIL}`;
const SIDE_ID = `side${EVIL}`;
const T = "2026-01-01T00:00:00.000Z";

/** The raw characters of `text`, shown so that a failure can be read. */
function rawOf(text: string): string[] {
	const found = new Set<string>();
	for (const c of text) if (RAW.test(c)) found.add(`U+${c.codePointAt(0)?.toString(16).padStart(4, "0")}`);
	return [...found];
}

function assertSafe(text: string, what: string): void {
	assert.deepEqual(rawOf(text), [], `${what} holds raw controls: ${JSON.stringify(text.slice(0, 400))}`);
}

function records(): object[] {
	const message = (id: string, parentId: string | null, body: object) => ({
		type: "message",
		id,
		parentId,
		timestamp: T,
		message: { timestamp: 1, ...body },
	});
	return [
		{ type: "session", version: 3, id: `0199aaaa-bbbb-7ccc-8ddd-${EVIL}`, timestamp: T, cwd: `/home/${EVIL}/p` },
		message(USER_ID, null, { role: "user", content: `needle in the user text ${EVIL} end` }),
		message("a1", USER_ID, {
			role: "assistant",
			content: [
				{ type: "thinking", thinking: `needle thought ${EVIL}` },
				{ type: "text", text: `needle answer ${EVIL}` },
				{ type: "toolCall", id: "c1", name: `bash${EVIL}`, arguments: { command: `echo ${EVIL}` } },
			],
			provider: `p${EVIL}`,
			model: `m${EVIL}`,
			stopReason: "toolUse",
		}),
		message("t1", "a1", {
			role: "toolResult",
			toolCallId: "c1",
			toolName: `bash${EVIL}`,
			content: [{ type: "text", text: `needle output ${EVIL}` }],
			isError: false,
		}),
		message("r1", "t1", { role: `role${EVIL}`, content: `needle odd role ${EVIL}` }),
		{ type: `kind${EVIL}`, id: "k1", parentId: "r1", timestamp: T },
		message(SIDE_ID, USER_ID, { role: "user", content: `needle on the side ${EVIL}` }),
		{ type: "label", id: "l1", parentId: "k1", timestamp: T, targetId: USER_ID, label: `label ${EVIL}` },
		{ type: "session_info", id: "n1", parentId: "l1", timestamp: T, name: NAME },
	];
}

/** Writes the hostile session to `path`. */
function writeSession(path: string, lines: readonly object[] = records()): void {
	writeFileSync(path, `${lines.map((record) => JSON.stringify(record)).join("\n")}\n`);
}

let dir = "";
let file = "";
let damaged = "";

before(() => {
	delete process.env.FORCE_COLOR;
	delete process.env.NO_COLOR;
	dir = join(tempDir(), "sessions");
	mkdirSync(dir);
	// The file's name is hostile too: ls and search print it, errors quote it.
	file = join(dir, `hostile${EVIL}.jsonl`);
	writeSession(file);
	// A parent that is missing: validate lists it, a lenient open warns about it (quoting the id).
	damaged = join(tempDir(), `damaged${EVIL}.jsonl`);
	const broken = records().map((record) =>
		(record as { id?: string }).id === "a1" ? { ...record, parentId: `gone${EVIL}` } : record,
	);
	writeSession(damaged, broken);
});

/** Runs the CLI; both streams must be free of raw controls. */
async function run(args: readonly string[], input?: string, env?: Record<string, string>) {
	const result = await cli(args, { ...(input !== undefined ? { input } : {}), ...(env ? { env } : {}) });
	const what = `session-tree ${args.map((arg) => JSON.stringify(arg)).join(" ")}`;
	assertSafe(result.stdout, `${what}: stdout`);
	assertSafe(result.stderr, `${what}: stderr`);
	return result;
}

describe("no command prints session content raw", () => {
	test("search: names, file names, ids, roles and snippets", async () => {
		const result = await run(["search", "needle", dir]);
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stdout, /reportfdp\.exe/);
		assert.match(result.stdout, /needle in the user text/);
		assert.match(result.stdout, /role /);
		assert.equal((await run(["search", "-E", "needle (on|odd)", dir])).code, 0);
	});

	test("ls: names, file names and the cwd column", async () => {
		// A second project makes ls show the CWD column.
		writeFileSync(
			join(dir, "plain.jsonl"),
			`${JSON.stringify({ type: "session", version: 3, id: "0199aaaa-bbbb-7ccc-8ddd-000000000001", timestamp: T, cwd: "/elsewhere" })}\n`,
		);
		const result = await run(["ls", dir]);
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stdout, /reportfdp\.exe/);
		assert.match(result.stdout, /hostile.*\.jsonl/);
	});

	test("tree, leaves, path, ctx, info, md: ids, labels, kinds, names", async () => {
		for (const args of [
			["tree", file],
			["tree", file, "--filter", "all"],
			// The leaf hidden by the filter: `← leaf below (ID)`.
			["tree", file, "--filter", "user-only"],
			["leaves", file],
			["path", file],
			["ctx", file],
			["ctx", file, "--full"],
			["ctx", file, "--check"],
			["info", file],
			["md", file],
		]) {
			const result = await run(args);
			assert.equal(result.code, 0, `${args.join(" ")}: ${result.stderr}`);
			assert.ok(result.stdout.length > 0, args.join(" "));
		}
		assert.match((await run(["leaves", file])).stdout, /^side/m);
		assert.match((await run(["tree", file])).stdout, /Session: reportfdp\.exe/);
	});

	test("validate, warnings and errors that quote a file's name or its content", async () => {
		const validate = await run(["validate", damaged]);
		assert.equal(validate.code, 1);
		assert.match(validate.stdout, /gone/);
		const lenient = await run(["tree", damaged, "--lenient"]);
		assert.equal(lenient.code, 0, lenient.stderr);
		assert.match(lenient.stderr, /warning: .*damaged/);
		const missing = await run(["tree", join(dir, `missing${EVIL}.jsonl`)]);
		assert.equal(missing.code, 1);
		assert.match(missing.stderr, /missing/);
		const unknownId = await run(["tree", file, "--from", `nothere${EVIL}`]);
		assert.equal(unknownId.code, 1);
	});

	test("the writing commands: label, fork, clone print ids and paths", async () => {
		const copy = join(tempDir(), "copy");
		mkdirSync(copy);
		const target = join(copy, `target${EVIL}.jsonl`);
		writeSession(target);
		assert.equal((await run(["label", target, "u1", `new ${EVIL}`])).code, 0);
		assert.equal((await run(["nav", target, "u1"])).code, 0);
		assert.equal((await run(["fork", target, "a1"])).code, 0);
		assert.equal((await run(["validate", target])).code, 0);
	});

	test("the REPL, scripted: views, listings, edits and errors", async () => {
		const target = join(tempDir(), `repl${EVIL}.jsonl`);
		writeSession(target);
		const script = [
			"tree",
			"leaves",
			"ctx",
			"info",
			`ls ${JSON.stringify(dir)}`,
			`search needle ${JSON.stringify(dir)}`,
			"label u1 hello",
			"branch u1",
			"nav a1",
			"branch nothere",
			"fork a1",
			"",
		].join("\n");
		const result = await run(["repl", target], script);
		assert.equal(result.code, 1, "one command fails (branch nothere)");
		assert.match(result.stdout, /leaf: u1/);
		assert.match(result.stderr, /line 10: /);
	});

	test("colours on: the only escape sequences are the views' own colours", async () => {
		for (const args of [
			["search", "needle", dir],
			["tree", file],
			["ctx", file],
			["ls", dir],
		]) {
			const result = await cli(args, { env: { FORCE_COLOR: "1" } });
			assert.equal(result.code, 0, result.stderr);
			assert.ok(result.stdout.includes("\u001b["), `${args[0]} is coloured`);
			// biome-ignore lint/suspicious/noControlCharactersInRegex: the colours are what is taken out
			assertSafe(result.stdout.replace(/\u001b\[[0-9;]*m/g, ""), `${args.join(" ")} with colours`);
		}
	});
});

describe("--json keeps the exact data, escaped", () => {
	test("jsonLine: every character of the Basic Multilingual Plane round-trips, none raw that a terminal acts on", () => {
		let all = "";
		for (let code = 0; code <= 0xffff; code++) if (code < 0xd800 || code > 0xdfff) all += String.fromCharCode(code);
		const value = { text: all, list: [EVIL, NAME], [EVIL]: 1 };
		const line = jsonLine(value);
		assert.ok(line.endsWith("}\n"));
		assert.deepEqual(JSON.parse(line), value);
		assertSafe(line.slice(0, -1), "jsonLine");
		assert.doesNotMatch(line.slice(0, -1), /[\n\u2028\u2029]/);
	});

	test("ls, search, info, tree, path, leaves: valid JSON, nothing raw, the same strings", async () => {
		const ls = await run(["ls", dir, "--json"]);
		const rows = JSON.parse(ls.stdout) as Array<{ name: string | null; file: string; cwd: string }>;
		const row = rows.find((r) => r.file === file);
		assert.ok(row, ls.stdout);
		assert.equal(row.name, NAME);
		assert.equal(row.cwd, `/home/${EVIL}/p`);
		assert.match(ls.stdout, /\\u202e/);
		assert.match(ls.stdout, /\\u009b/);

		const search = await run(["search", "needle", dir, "--json"]);
		const hits = JSON.parse(search.stdout) as Array<{ name: string; file: string; entryId: string; role: string }>;
		assert.ok(hits.some((hit) => hit.name === NAME && hit.file === file && hit.entryId === USER_ID));
		assert.ok(hits.some((hit) => hit.role === `role${EVIL}`));

		const info = JSON.parse((await run(["info", file, "--json"])).stdout) as { name: string };
		assert.equal(info.name, NAME);
		const path = JSON.parse((await run(["path", file, "--json"])).stdout) as string[];
		assert.equal(path[0], USER_ID);
		const leaves = JSON.parse((await run(["leaves", file, "--json"])).stdout) as string[];
		assert.ok(leaves.includes(SIDE_ID));
		const tree = JSON.parse((await run(["tree", file, "--json"])).stdout) as Array<{ id: string; label?: string }>;
		assert.equal(tree.find((r) => r.id === USER_ID)?.label, `label ${EVIL}`);
	});
});

describe("browse's screen", () => {
	test("rows, the preview's headline and the footer hold no raw controls", async () => {
		const session = await Session.open(file);
		try {
			for (const filter of ["default", "all", "user-only"] as const) {
				const model = new BrowseModel(sourceOf(session), filter);
				for (let i = 0; i < model.rows.length; i++) {
					const lines = renderScreen(
						model,
						{ title: NAME, entryCount: session.entryCount, color: false, status: `label of ${USER_ID} set` },
						100,
						30,
					);
					assertSafe(lines.join("\n"), `browse (${filter}), row ${i}`);
					model.moveBy(1);
				}
			}
		} finally {
			await session.close();
		}
	});
});

describe("the interactive REPL's own output", () => {
	test("the prompt shows the name and the leaf sanitized; Tab offers no id or file name with controls", async () => {
		const { state } = collectingState();
		const copy = join(tempDir(), "prompt.jsonl");
		writeSession(copy);
		await state.switchTo(await Session.open(copy));
		try {
			await state.session?.branch(USER_ID);
			const prompt = promptText(state, makeStyle(false));
			assertSafe(prompt, "the prompt");
			assert.match(prompt, /reportfdp\.exe/);
			const source = {
				ids: () => state.ids(),
				preview: (id: string, columns: number) => state.preview(id, columns),
				listDir: () => [
					{ name: `evil${EVIL}.jsonl`, isDirectory: false },
					{ name: "plain.jsonl", isDirectory: false },
				],
			};
			const [ids] = completeLine("branch ", source);
			assertSafe(ids.join("\n"), "id completions");
			assert.ok(
				ids.some((id) => id.startsWith("a1")),
				ids.join(" | "),
			);
			assert.ok(!ids.some((id) => id.startsWith("u1")), ids.join(" | "));
			assert.deepEqual(completeLine("load ", source)[0], ["plain.jsonl "]);
		} finally {
			await state.close();
		}
	});
});
