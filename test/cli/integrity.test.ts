import assert from "node:assert/strict";
import {
	copyFileSync,
	existsSync,
	lstatSync,
	readdirSync,
	readFileSync,
	readlinkSync,
	statSync,
	symlinkSync,
	utimesSync,
	writeFileSync,
} from "node:fs";
import { basename, join } from "node:path";
import { after, describe, test } from "node:test";
import { Session } from "../../src/index.js";
import { cli, lines, REPO, removeTempDirs, tempDir, userLine } from "./helpers.js";

const dir = tempDir();
after(removeTempDirs);

async function damaged(): Promise<string> {
	const s = await Session.create({ dir, cwd: "/p" });
	await s.appendMessage({ role: "user", content: "q1", timestamp: 1 });
	await s.appendMessage({ role: "user", content: "q2", timestamp: 2 });
	await s.close();
	const file = s.file as string;
	const lines = readFileSync(file, "utf8").trimEnd().split("\n");
	writeFileSync(file, `${[lines[0], "{oops", lines[1], lines[2]].join("\n")}\n{"type":"mess`);
	return file;
}

describe("validate and repair", () => {
	test("validate: a clean file exits 0; a damaged one lists every problem with its line and exits 1", async () => {
		const clean = await Session.create({ dir, cwd: "/p" });
		await clean.appendMessage({ role: "user", content: "q", timestamp: 1 });
		const ok = await cli(["validate", clean.file as string]);
		assert.equal(ok.code, 0, ok.stderr);
		assert.match(ok.stdout, /ok \(1 entry, 1 branch\)/);

		const file = await damaged();
		const before = readFileSync(file);
		const bad = await cli(["validate", file]);
		assert.equal(bad.code, 1);
		assert.match(bad.stdout, new RegExp(`${file}:2: INVALID_JSON: `));
		assert.match(bad.stdout, new RegExp(`${file}:5: TORN_TAIL: `));
		assert.match(bad.stderr, /: 2 problems\n$/);
		const json = await cli(["validate", file, "--json"]);
		assert.deepEqual(
			JSON.parse(json.stdout).map((p: { code: string; line: number }) => [p.code, p.line]),
			[
				["INVALID_JSON", 2],
				["TORN_TAIL", 5],
			],
		);
		assert.deepEqual(readFileSync(file), before, "validate never writes");
	});

	test("repair: writes a clean file atomically, prints the backup, keeps the original bytes", async () => {
		const file = await damaged();
		const before = readFileSync(file);
		const result = await cli(["repair", file]);
		assert.equal(result.code, 0, result.stderr);
		const backup = result.stdout.trim();
		assert.equal(backup, `${file}.bak`);
		assert.deepEqual(readFileSync(backup), before);
		assert.match(result.stderr, /repairing .*INVALID_JSON/);
		const again = await cli(["validate", file]);
		assert.equal(again.code, 0, again.stdout);
		assert.equal((await Session.open(file)).entryCount, 2);
		const nothing = await cli(["repair", file]);
		assert.equal(nothing.stdout, "nothing to repair\n");
		assert.equal(existsSync(`${file}.bak.1`), false);
	});

	test("repair through a symlink: the file it points to is repaired, beside it the backup, the link stays a link", async () => {
		const file = await damaged(); // in `dir`
		const before = readFileSync(file);
		const elsewhere = tempDir();
		const link = join(elsewhere, "current.jsonl");
		symlinkSync(file, link);
		const result = await cli(["repair", link]);
		assert.equal(result.code, 0, result.stderr);
		assert.equal(result.stdout.trim(), `${file}.bak`, "the backup is beside the target");
		assert.deepEqual(readFileSync(`${file}.bak`), before);
		assert.ok(lstatSync(link).isSymbolicLink(), "the link is still a link");
		assert.equal(readlinkSync(link), file);
		assert.deepEqual(readdirSync(elsewhere), ["current.jsonl"], "nothing written beside the link");
		const clean = await cli(["validate", file]);
		assert.equal(clean.code, 0, clean.stdout);
		// Writers through the link and through the file's own name now write the one file.
		const viaLink = await Session.open(link);
		await viaLink.appendMessage({ role: "user", content: "through the link", timestamp: 3 });
		await viaLink.close();
		const viaFile = await Session.open(file);
		await viaFile.appendMessage({ role: "user", content: "through the name", timestamp: 4 });
		await viaFile.close();
		assert.equal((await Session.open(file)).entryCount, 4);
		assert.equal((await Session.open(link)).entryCount, 4);
	});

	test("repair refuses what is not a session (no header, no pi record), through a link or not: exit 1, nothing written", async () => {
		const work = tempDir();
		const readme = join(work, "README.md");
		writeFileSync(readme, "# A project\n\nSome text, not a session.\n\n- a list\n");
		const link = join(work, "session.jsonl");
		symlinkSync(readme, link);
		const bytes = readFileSync(readme);
		for (const target of [link, readme]) {
			const result = await cli(["repair", target]);
			assert.equal(result.code, 1, result.stdout);
			assert.match(
				result.stderr,
				/not a session: no valid session header and no line is a pi record; nothing was written/,
			);
			assert.equal(result.stdout, "");
			assert.deepEqual(readFileSync(readme), bytes);
			assert.ok(lstatSync(link).isSymbolicLink());
			assert.deepEqual(readdirSync(work).sort(), ["README.md", "session.jsonl"], `${target}: nothing written`);
		}
		// A pi file whose header alone is damaged is still a session: its entries are kept.
		const file = await damaged();
		const text = readFileSync(file, "utf8").split("\n");
		writeFileSync(file, ["{not a header", ...text.slice(1)].join("\n"));
		const kept = await cli(["repair", file]);
		assert.equal(kept.code, 0, kept.stderr);
		assert.equal((await Session.open(file)).entryCount, 2);
	});

	test("a missing file is named, exit 1", async () => {
		const missing = join(dir, "nope.jsonl");
		const result = await cli(["validate", missing]);
		assert.equal(result.code, 1);
		assert.match(result.stderr, new RegExp(missing));
	});
});

/** The import samples (real files from public repositories, see test/fixtures/import/SOURCES.md). */
const SAMPLES = join(REPO, "test", "fixtures", "import");

/** One real file of each foreign format, with the words the refusal names it by. */
const FOREIGN: ReadonlyArray<{ file: string; format: RegExp }> = [
	{ file: "claude-code/ccl-real-edit-branch-03eb5929.jsonl", format: /a Claude Code session/ },
	{ file: "codex/simonw-sample-codex-session.jsonl", format: /a Codex session/ },
	{ file: "chatgpt/librechat-chatgpt-tree.json", format: /a ChatGPT export/ },
	{ file: "chatgpt/librechat-chatgpt-export.json", format: /a ChatGPT export/ },
	{ file: "openwebui/openwebui-importer-webui-json.json", format: /an Open WebUI chat/ },
];

describe("another agent's file", () => {
	test("every command that writes refuses it, naming the format and `import`, and changes nothing", async () => {
		for (const { file, format } of FOREIGN) {
			const work = tempDir();
			const copy = join(work, basename(file));
			copyFileSync(join(SAMPLES, file), copy);
			// Give the file an old time, so that a write within the test would show in its mtime.
			utimesSync(copy, new Date("2024-01-02T03:04:05Z"), new Date("2024-01-02T03:04:05Z"));
			const bytes = readFileSync(copy);
			const mtime = statSync(copy).mtimeMs;
			// Real entry ids, so that nothing but the refusal stops a command (the export of several
			// conversations names none without FILE#ID: its ids are made up, the refusal comes first).
			const path = await cli(["path", copy, "--json"]);
			const ids = path.code === 0 ? (JSON.parse(path.stdout) as string[]) : ["0000"];
			const first = ids[0] as string;
			const commands = [
				["append", copy],
				["branch", copy, first],
				["label", copy, first, "mark"],
				["name", copy, "renamed"],
				["nav", copy, first],
				["migrate", copy],
				["repair", copy],
				["fork", copy],
				["fork", copy, first, "--lenient"],
				["clone", copy],
				["clone", copy, "--lenient"],
			];
			for (const args of commands) {
				const result = await cli(args, { input: `${userLine("hi")}\n` });
				const what = `${args.join(" ")} (${file})`;
				assert.equal(result.code, 1, `${what}: ${result.stderr}`);
				assert.match(result.stderr, format, what);
				assert.match(result.stderr, /opened read-only, cannot .*: run `session-tree import .*` first/, what);
				assert.equal(result.stdout, "", what);
				assert.deepEqual(readFileSync(copy), bytes, `${what} changed the bytes`);
				assert.equal(statSync(copy).mtimeMs, mtime, `${what} changed the mtime`);
				assert.deepEqual(readdirSync(work), [basename(file)], `${what} left a file next to it`);
			}
		}
	});

	test("validate reads it as an import: the import's skips, the context check, never 'a broken pi session'", async () => {
		const claude = await cli(["validate", join(SAMPLES, "claude-code/ccl-real-edit-branch-03eb5929.jsonl")]);
		assert.equal(claude.code, 0, claude.stdout + claude.stderr);
		assert.match(claude.stdout, /ok \(1 claude-code session, \d+ entries, read as an import\)/);
		assert.doesNotMatch(claude.stdout + claude.stderr, /INVALID_HEADER|session header/);

		// A ChatGPT conversation whose nodes name parents and children that are not in it: the
		// lenient import works around three links (the file's own test counts them, chatgpt.test.ts).
		const broken = await cli(["validate", join(SAMPLES, "chatgpt/librechat-chatgpt-citations.json"), "--json"]);
		assert.equal(broken.code, 1);
		const skips = JSON.parse(broken.stdout) as Array<{ code: string; message: string }>;
		assert.deepEqual(
			skips.map((p) => p.code),
			["IMPORT_SKIPPED", "IMPORT_SKIPPED", "IMPORT_SKIPPED"],
		);
		assert.match(skips[2]?.message ?? "", /current_node: names node 88a0cf9f/);

		// Several sessions: each is checked, and FILE#ID checks one.
		const many = await cli(["validate", join(SAMPLES, "openwebui/librechat-openwebui-export.json")]);
		assert.equal(many.code, 0, many.stdout);
		assert.match(many.stdout, /ok \(3 openwebui sessions, /);
		const one = await cli(["validate", `${join(SAMPLES, "openwebui/librechat-openwebui-export.json")}#tool-chat`]);
		assert.match(one.stdout, /ok \(1 openwebui session, /);
	});

	test("validate and ctx --check find nothing in a real Codex rollout whose output was written after a developer message", async () => {
		const file = join(SAMPLES, "codex/localpush-rollout-2026-02-23T12-40-23-019c8a4c.jsonl");
		// Derived from the rollout itself: between the function_call of this call id and its
		// function_call_output, Codex recorded a developer message (a response_item of role
		// developer). The import places the output right after its call (docs/import.md, Codex),
		// so the context at the leaf is one a provider accepts.
		const items = readFileSync(file, "utf8")
			.trimEnd()
			.split("\n")
			.map((line) => JSON.parse(line) as { type: string; payload: Record<string, unknown> });
		const callId = "call_4jxJEFRewIBvuWaOcDI5P7M7";
		const at = items.findIndex((i) => i.payload.type === "function_call" && i.payload.call_id === callId);
		const out = items.findIndex((i) => i.payload.type === "function_call_output" && i.payload.call_id === callId);
		const between = items.slice(at + 1, out).filter((i) => i.type === "response_item");
		assert.deepEqual(
			between.map((i) => [i.payload.type, i.payload.role]),
			[["message", "developer"]],
		);
		const result = await cli(["validate", file, "--json"]);
		assert.equal(result.code, 0, result.stdout + result.stderr);
		const check = await cli(["ctx", file, "--check"]);
		assert.equal(check.code, 0, check.stdout + check.stderr);
		assert.match(check.stdout, /ok \(\d+ messages\)/);
	});

	test("validate, ctx --check and import report a tool call the transcript never answers", async () => {
		// A Claude Code transcript written here: the assistant calls a tool, then the user types a
		// new prompt instead of a result (no tool_result line anywhere), and the assistant answers.
		// By hand: call toolu_01 in the second line's entry has no result, and the context goes on.
		const dir = tempDir();
		const file = join(dir, "4b1c2d3e-0000-4000-8000-000000000001.jsonl");
		const base = { sessionId: "4b1c2d3e-0000-4000-8000-000000000001", cwd: "/p", version: "2.1.0", isSidechain: false };
		const records = [
			{
				...base,
				type: "user",
				uuid: "u1",
				parentUuid: null,
				timestamp: "2026-01-01T00:00:00.000Z",
				message: { role: "user", content: "list the files" },
			},
			{
				...base,
				type: "assistant",
				uuid: "a1",
				parentUuid: "u1",
				timestamp: "2026-01-01T00:00:01.000Z",
				message: {
					id: "msg_1",
					role: "assistant",
					model: "claude-sonnet-4-5",
					content: [{ type: "tool_use", id: "toolu_01", name: "Bash", input: { command: "ls" } }],
					stop_reason: "tool_use",
					usage: { input_tokens: 10, output_tokens: 5 },
				},
			},
			{
				...base,
				type: "user",
				uuid: "u2",
				parentUuid: "a1",
				timestamp: "2026-01-01T00:00:02.000Z",
				message: { role: "user", content: "never mind, say hi" },
			},
			{
				...base,
				type: "assistant",
				uuid: "a2",
				parentUuid: "u2",
				timestamp: "2026-01-01T00:00:03.000Z",
				message: {
					id: "msg_2",
					role: "assistant",
					model: "claude-sonnet-4-5",
					content: [{ type: "text", text: "hi" }],
					stop_reason: "end_turn",
					usage: { input_tokens: 12, output_tokens: 1 },
				},
			},
		];
		writeFileSync(file, `${records.map((r) => JSON.stringify(r)).join("\n")}\n`);
		const result = await cli(["validate", file, "--json"]);
		assert.equal(result.code, 1, result.stdout + result.stderr);
		const problems = JSON.parse(result.stdout) as Array<{ code: string; toolCallId: string }>;
		assert.deepEqual(
			problems.map((p) => [p.code, p.toolCallId]),
			[["TOOL_CALL_WITHOUT_RESULT", "toolu_01"]],
		);
		const check = await cli(["ctx", file, "--check"]);
		assert.equal(check.code, 1);
		assert.match(check.stdout, /TOOL_CALL_WITHOUT_RESULT: tool call toolu_01 \(Bash\)/);
		// The import warns of it, once for the session, and counts it in the summary.
		const imported = await cli(["import", file, "--dir", tempDir()]);
		assert.equal(imported.code, 0, imported.stderr);
		assert.match(
			imported.stderr,
			/warning: .*\.jsonl: 1 tool call\/result problem a provider would refuse in the context at the leaf/,
		);
		assert.match(imported.stderr, /1 session: 1 written, 0 appended, 0 unchanged, 1 with tool call\/result problems/);
	});

	test("copy writes its import into the target: the same records `import` writes", async () => {
		const file = join(SAMPLES, "claude-code/ccl-real-edit-branch-03eb5929.jsonl");
		const copied = tempDir();
		const imported = tempDir();
		const copy = await cli(["copy", file, copied]);
		assert.equal(copy.code, 0, copy.stderr);
		const imp = await cli(["import", file, "--dir", imported]);
		assert.equal(imp.code, 0, imp.stderr);
		const [copyFile] = lines(copy.stdout);
		const [importFile] = lines(imp.stdout);
		assert.equal(basename(copyFile as string), basename(importFile as string));
		assert.deepEqual(readFileSync(copyFile as string), readFileSync(importFile as string));
		// One session of several into one location needs FILE#ID; into a directory, all are copied.
		const many = join(SAMPLES, "chatgpt/librechat-chatgpt-export.json");
		const ambiguous = await cli(["copy", many, join(copied, "one.jsonl")]);
		assert.equal(ambiguous.code, 1);
		assert.match(ambiguous.stderr, /holds 2 sessions; name one as FILE#ID/);
		const all = await cli(["copy", many, join(copied, "all")]);
		assert.equal(all.code, 0, all.stderr);
		assert.equal(lines(all.stdout).length, 2);
	});
});

describe("the context a provider accepts", () => {
	async function withCalls(): Promise<{ file: string; call: string; answered: string }> {
		const s = await Session.create({ dir, cwd: "/p" });
		await s.appendMessage({ role: "user", content: "run it", timestamp: 1 });
		const call = await s.appendMessage({
			role: "assistant",
			content: [
				{ type: "toolCall", id: "call_a", name: "bash", arguments: {} },
				{ type: "toolCall", id: "call_b", name: "bash", arguments: {} },
			],
			provider: "anthropic",
			model: "m",
			stopReason: "toolUse",
			timestamp: 2,
		});
		const answered = await s.appendMessage({
			role: "toolResult",
			toolCallId: "call_a",
			toolName: "bash",
			content: [{ type: "text", text: "ok" }],
			isError: false,
			timestamp: 3,
		});
		await s.close();
		return { file: s.file as string, call, answered };
	}

	test("ctx --check: the last turn's unanswered call is a note; once the session goes on, a problem", async () => {
		const { file, call } = await withCalls();
		const pending = await cli(["ctx", file, "--check"]);
		assert.equal(pending.code, 0, pending.stderr);
		assert.match(pending.stdout, /ok \(3 messages\)/);
		assert.match(pending.stdout, new RegExp(`note: TOOL_CALL_PENDING: tool call call_b \\(bash\\) in entry ${call}`));
		const valid = await cli(["validate", file]);
		assert.equal(valid.code, 0, valid.stdout);
		assert.match(valid.stderr, /note: .*TOOL_CALL_PENDING/);

		assert.equal((await cli(["append", file], { input: `${userLine("and now?")}\n` })).code, 0);
		const check = await cli(["ctx", file, "--check", "--json"]);
		assert.equal(check.code, 1);
		const report = JSON.parse(check.stdout) as { problems: Array<Record<string, unknown>>; pending: unknown[] };
		assert.deepEqual(report.pending, []);
		assert.equal(report.problems.length, 1);
		assert.deepEqual(
			[report.problems[0]?.code, report.problems[0]?.toolCallId, report.problems[0]?.callEntryId],
			["TOOL_CALL_WITHOUT_RESULT", "call_b", call],
		);
		const validate = await cli(["validate", file, "--json"]);
		assert.equal(validate.code, 1);
		assert.deepEqual(
			(JSON.parse(validate.stdout) as Array<{ code: string; entryId: string }>).map((p) => [p.code, p.entryId]),
			[["TOOL_CALL_WITHOUT_RESULT", call]],
		);
		// A golden pi session with tool calls is clean.
		const golden = await cli(["ctx", join(REPO, "test/fixtures/pi-v3/tool-calls.jsonl"), "--check"]);
		assert.equal(golden.code, 0, golden.stdout);
	});
});

describe("a store of files that holds another agent's files", () => {
	test("prune leaves them alone (with a warning); copy of the directory copies their import", async () => {
		const store = tempDir();
		const names = ["ccl-real-edit-branch-03eb5929.jsonl", "ccl-dag-compact-after-rewind.jsonl"];
		for (const name of names) copyFileSync(join(SAMPLES, "claude-code", name), join(store, name));
		const bytes = names.map((name) => readFileSync(join(store, name)));
		const ours = await Session.create({ dir: store, cwd: "/p" });
		await ours.appendMessage({ role: "user", content: "q", timestamp: 1 });
		await ours.close();

		const copied = tempDir();
		const copy = await cli(["copy", store, copied]);
		assert.equal(copy.code, 0, copy.stderr);
		assert.equal(lines(copy.stdout).length, 3, "the pi session and the import of each transcript");

		const pruned = await cli(["prune", store, "--keep", "0"]);
		assert.equal(pruned.code, 0, pruned.stderr);
		assert.deepEqual(lines(pruned.stdout), [ours.file]);
		for (const name of names) {
			assert.match(
				pruned.stderr,
				new RegExp(`${name}: another agent's file \\(claude-code\\): left alone, never pruned`),
			);
		}
		assert.deepEqual(readdirSync(store).sort(), [...names].sort());
		assert.deepEqual(
			names.map((name) => readFileSync(join(store, name))),
			bytes,
		);
	});
});
