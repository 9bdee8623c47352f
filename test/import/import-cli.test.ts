/**
 * `session-tree import` and `export` on the command line, the read commands on foreign files
 * (read directly, read-only), and `ls --agents`: the built binary, run as a user would.
 */

import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { zipSync } from "fflate";
import { cli, cliJson, lines } from "../cli/helpers.js";
import { SQLITE_SKIP } from "../support/sqlite.js";
import { REPO, removeTemps, SAMPLES, sample, sampleText, tempDir } from "./helpers.js";

after(removeTemps);

type Json = Record<string, unknown>;

/** The files of a directory (sorted), with their texts. */
function snapshot(dir: string): Record<string, string> {
	const out: Record<string, string> = {};
	if (!existsSync(dir)) return out;
	for (const name of readdirSync(dir).sort()) out[name] = readFileSync(join(dir, name), "utf8");
	return out;
}

/** True when the build holds the importer of `format` (the other importers may come in a later build). */
function hasImporter(format: "claude-code" | "codex"): boolean {
	const bin = process.env.SESSION_TREE_BIN ?? join(REPO, "dist", "cli", "main.js");
	return existsSync(join(bin, "..", "..", "import", `${format}.js`));
}

describe("import", () => {
	test("a directory of several files and a ZIP file (ChatGPT's export): every conversation a session", async () => {
		const inputs = tempDir();
		copyFileSync(sample("chatgpt", "librechat-chatgpt-tree.json"), join(inputs, "tree.json"));
		mkdirSync(join(inputs, "nested"));
		copyFileSync(sample("openwebui", "librechat-openwebui-export.json"), join(inputs, "nested", "owui.json"));
		writeFileSync(join(inputs, "notes.json"), '{"not": "a chat"}\n');
		const zip = join(tempDir(), "chatgpt-export.zip");
		writeFileSync(
			zip,
			zipSync({
				"conversations.json": new TextEncoder().encode(sampleText("chatgpt", "librechat-chatgpt-export.json")),
				"user.json": new TextEncoder().encode('{"id": "user-1"}'),
				"chat.html": new TextEncoder().encode("<html></html>"),
			}),
		);
		const dir = join(tempDir(), "out");
		const result = await cli(["import", inputs, zip, "--dir", dir]);
		assert.equal(result.code, 0, result.stderr);
		// tree.json: 1 conversation; owui.json: 3 chats; the ZIP's conversations.json: 2 conversations.
		assert.equal(lines(result.stdout).length, 6);
		assert.equal(readdirSync(dir).length, 6);
		// notes.json is no chat: skipped, and said so; the ZIP's user.json is not even read.
		assert.match(result.stderr, /skipped: .*notes\.json: not a format session-tree imports/);
		assert.doesNotMatch(result.stderr, /user\.json/);
		assert.match(result.stderr, /6 sessions: 6 written, 0 appended, 0 unchanged, 1 skipped/);
		// The ZIP's members are named archive!member.
		const ls = await cliJson<Json[]>(["ls", dir, "--json"]);
		assert.equal(ls.length, 6);
		assert.ok(ls.some((row) => row.name === "Conversation 1. Web Search"));
	});

	test("re-runnable: the same source again changes nothing, and two fresh imports are byte-identical", async () => {
		const dir = join(tempDir(), "a");
		const other = join(tempDir(), "b");
		const input = sample("chatgpt", "librechat-chatgpt-export.json");
		assert.equal((await cli(["import", input, "--dir", dir])).code, 0);
		const first = snapshot(dir);
		const again = await cli(["import", input, "--dir", dir]);
		assert.equal(again.code, 0, again.stderr);
		assert.match(again.stderr, /2 sessions: 0 written, 0 appended, 2 unchanged/);
		assert.deepEqual(snapshot(dir), first);
		assert.equal((await cli(["import", input, "--dir", other])).code, 0);
		assert.deepEqual(snapshot(other), first);
	});

	test("a grown source appends only its new entries; a changed one is refused, naming the entry", async () => {
		const dir = join(tempDir(), "sessions");
		const work = tempDir();
		const source = join(work, "conversation.json");
		const full = JSON.parse(sampleText("chatgpt", "librechat-chatgpt-tree.json")) as Array<Json>;
		const conversation = full[0] as Json;
		const mapping = conversation.mapping as Record<string, Json>;
		// The earlier export: before "tell me a joke" was answered the second time (f63b8e17 missing).
		const earlier = structuredClone(conversation);
		const earlierMapping = earlier.mapping as Record<string, Json>;
		delete earlierMapping["f63b8e17-aa5c-4ca6-a1bf-d4d285e269b8"];
		(earlierMapping["aaa20127-b9e3-44f6-afbe-a2475838625a"] as Json).children = [
			"d0d2a7df-d2fc-4df9-bf0a-1c5121e227ae",
		];
		earlier.current_node = "d0d2a7df-d2fc-4df9-bf0a-1c5121e227ae";
		earlier.update_time = 1714585057;
		writeFileSync(source, JSON.stringify([earlier]));
		const first = await cli(["import", source, "--dir", dir]);
		assert.equal(first.code, 0, first.stderr);
		const [file] = lines(first.stdout);
		const before = readFileSync(file as string, "utf8");

		writeFileSync(source, JSON.stringify(full));
		const grown = await cli(["import", source, "--dir", dir]);
		assert.equal(grown.code, 0, grown.stderr);
		// One new node → one entry (same model: no model change), and the leaf record that moves the leaf.
		assert.match(grown.stderr, /1 session: 0 written, 1 appended \(2 records\), 0 unchanged/);
		const after = readFileSync(file as string, "utf8");
		assert.ok(after.startsWith(before));
		assert.equal(lines(after).length, lines(before).length + 2);
		const ctx = await cliJson<{ messages: Json[] }>(["ctx", file as string, "--json"]);
		assert.match(String(((ctx.messages.at(-1)?.content ?? []) as Json[])[0]?.text), /^Sure, here's one for you/);

		// Someone edits a message's text in the source: not an earlier import of it any more.
		const edited = structuredClone(full);
		const node = ((edited[0] as Json).mapping as Record<string, Json>)["aaa297ba-e2da-440e-84f4-e62e7be8b003"] as Json;
		((node.message as Json).content as Json).parts = ["hello there"];
		writeFileSync(source, JSON.stringify(edited));
		const refused = await cli(["import", source, "--dir", dir]);
		assert.equal(refused.code, 1);
		assert.match(
			refused.stderr,
			/is here already and its entry [0-9a-f]{8} \(source aaa297ba-e2da-440e-84f4-e62e7be8b003\) differs from the source's/,
		);
		assert.match(refused.stderr, /fresh --dir/);
		assert.equal(readFileSync(file as string, "utf8"), after);
		assert.ok(mapping);
	});

	test("bad input: a clear error naming the file and the record or field, nothing written, exit 1", async () => {
		const work = tempDir();
		const dir = join(tempDir(), "out");
		const truncated = join(work, "truncated.json");
		writeFileSync(truncated, sampleText("chatgpt", "librechat-chatgpt-tree.json").slice(0, 4000));
		const cut = await cli(["import", truncated, "--dir", dir]);
		assert.equal(cut.code, 1);
		assert.match(cut.stderr, /truncated\.json: not valid JSON/);
		assert.deepEqual(snapshot(dir), {});

		const orphan = join(work, "orphan.json");
		const conversations = JSON.parse(sampleText("chatgpt", "librechat-chatgpt-export.json")) as Json[];
		const mapping = (conversations[1] as Json).mapping as Record<string, Json>;
		(mapping["aaa21d18-8c68-43b2-8939-86fadac2b861"] as Json).parent = "missing-node";
		writeFileSync(orphan, JSON.stringify(conversations));
		const broken = await cli(["import", orphan, "--dir", dir]);
		assert.equal(broken.code, 1);
		assert.match(
			broken.stderr,
			/orphan\.json: \[1\] conversation \(7c5ab593-dbab-43bd-862d-2c3c1eeebf6a "Conversation 2"\), mapping\/aaa21d18-8c68-43b2-8939-86fadac2b861\/parent: names node missing-node, which is not in the mapping/,
		);
		// The first conversation was fine, but nothing of a failed source is written.
		assert.deepEqual(snapshot(dir), {});

		const wrong = await cli([
			"import",
			"--from",
			"openwebui",
			sample("chatgpt", "librechat-chatgpt-tree.json"),
			"--dir",
			dir,
		]);
		assert.equal(wrong.code, 1);
		assert.match(
			wrong.stderr,
			/librechat-chatgpt-tree\.json: \[0\] chat\.history: missing.*it looks like a ChatGPT export \(--from chatgpt\)/,
		);
		assert.deepEqual(snapshot(dir), {});

		const unknown = await cli(["import", "--from", "opencode", truncated]);
		assert.equal(unknown.code, 2);
		assert.match(unknown.stderr, /unknown format "opencode"/);

		const missing = await cli(["import", join(work, "nope.json"), "--dir", dir]);
		assert.equal(missing.code, 1);
		assert.match(missing.stderr, /nope\.json: no such file or directory/);

		// -o takes one session: the export holds two.
		const out = join(work, "one.jsonl");
		const two = await cli(["import", sample("chatgpt", "librechat-chatgpt-export.json"), "-o", out]);
		assert.equal(two.code, 1);
		assert.match(two.stderr, /2 sessions in the input; -o writes exactly one/);
		assert.equal(existsSync(out), false);
		const one = await cli(["import", sample("chatgpt", "polylogue-native-conversation-v1.json"), "-o", out]);
		assert.equal(one.code, 0, one.stderr);
		assert.equal(lines(one.stdout)[0], out);
	});

	test("--lenient imports a broken conversation and lists every workaround", async () => {
		const dir = join(tempDir(), "out");
		const result = await cli([
			"import",
			"--lenient",
			sample("chatgpt", "librechat-chatgpt-citations.json"),
			"--dir",
			dir,
		]);
		assert.equal(result.code, 0, result.stderr);
		assert.equal(lines(result.stderr).filter((line) => line.includes("skipped:")).length, 3);
		assert.match(
			result.stderr,
			/current_node: names node 88a0cf9f-e860-4b34-8e7e-65f8346f4862, which is not in the mapping: the last leaf is the leaf/,
		);
	});

	test("into a SQLite store, and back out as ChatGPT JSON", { skip: SQLITE_SKIP }, async () => {
		const db = join(tempDir(), "agents.db");
		const input = sample("chatgpt", "librechat-chatgpt-tree.json");
		const result = await cli(["import", input, "--dir", `sqlite:${db}`]);
		assert.equal(result.code, 0, result.stderr);
		const [location] = lines(result.stdout);
		assert.match(String(location), /^sqlite:.*#[0-9a-f-]{36}$/);
		const again = await cli(["import", input, "--dir", `sqlite:${db}`]);
		assert.match(again.stderr, /1 unchanged/);
		const exported = await cliJson<Json[]>(["export", location as string, "--to", "chatgpt"]);
		assert.deepEqual(exported, JSON.parse(sampleText("chatgpt", "librechat-chatgpt-tree.json")));
	});
});

describe("export", () => {
	test("an imported Open WebUI chat goes back as it came; -o refuses to overwrite without --force", async () => {
		const dir = join(tempDir(), "out");
		const imported = await cli(["import", sample("openwebui", "openwebui-importer-webui-json.json"), "--dir", dir]);
		const [file] = lines(imported.stdout);
		const out = join(tempDir(), "chat.json");
		const first = await cli(["export", file as string, "--to", "openwebui", "-o", out]);
		assert.equal(first.code, 0, first.stderr);
		assert.deepEqual(
			JSON.parse(readFileSync(out, "utf8")),
			JSON.parse(sampleText("openwebui", "openwebui-importer-webui-json.json")),
		);
		const second = await cli(["export", file as string, "--to", "openwebui", "-o", out]);
		assert.equal(second.code, 1);
		assert.match(second.stderr, /the file exists \(--force replaces it\)/);
		assert.equal((await cli(["export", file as string, "--to", "openwebui", "-o", out, "--force"])).code, 0);
		const bad = await cli(["export", file as string, "--to", "html"]);
		assert.equal(bad.code, 2);
	});
});

describe("read directly", () => {
	test("ctx and tree on a ChatGPT export, without importing it: the same as on the imported file", async () => {
		const input = sample("chatgpt", "librechat-chatgpt-tree.json");
		const direct = await cliJson<Json>(["ctx", input, "--json"]);
		const dir = join(tempDir(), "out");
		const [file] = lines((await cli(["import", input, "--dir", dir])).stdout);
		assert.deepEqual(direct, await cliJson<Json>(["ctx", file as string, "--json"]));
		const tree = await cli(["tree", input]);
		assert.equal(tree.code, 0, tree.stderr);
		assert.match(tree.stdout, /^Session: Assist user with summary\n/);
		assert.match(tree.stdout, /assistant: Sure, here's one for you:.*← leaf/);
		const info = await cliJson<Json>(["info", input, "--json"]);
		assert.equal(info.name, "Assist user with summary");
		assert.equal(info.entryCount, 15);
		assert.deepEqual((await cliJson<string[]>(["leaves", input, "--json"])).length, 3);
		assert.equal((await cliJson<string[]>(["path", input, "--json"])).at(-1), info.leafId);
	});

	test("one conversation of several by FILE#ID; without it, the choices are listed", async () => {
		const input = sample("chatgpt", "librechat-chatgpt-export.json");
		const ambiguous = await cli(["ctx", input]);
		assert.equal(ambiguous.code, 1);
		assert.match(ambiguous.stderr, /holds 2 sessions; name one as FILE#ID/);
		assert.match(ambiguous.stderr, /#7c5ab593-dbab-43bd-862d-2c3c1eeebf6a {2}Conversation 2/);
		const ctx = await cliJson<{ messages: Json[] }>(["ctx", `${input}#7c5ab593-dbab-43bd-862d-2c3c1eeebf6a`, "--json"]);
		assert.equal(ctx.messages.length, 4);
	});

	test("a command that writes is refused, saying to import the file first", async () => {
		const input = sample("openwebui", "openwebui-importer-webui-json.json");
		const before = readFileSync(input, "utf8");
		const leaf = (await cliJson<Json>(["info", input, "--json"])).leafId as string;
		const [first] = await cliJson<string[]>(["path", input, "--json"]);
		for (const args of [
			["name", input, "renamed"],
			["label", input, leaf, "x"],
			["branch", input, first as string],
			["fork", input],
		]) {
			const result = await cli(args);
			assert.equal(result.code, 1, args.join(" "));
			assert.match(
				result.stderr,
				/an Open WebUI chat, opened read-only, cannot .*: run `session-tree import .*openwebui-importer-webui-json\.json` first/,
			);
		}
		const append = await cli(["append", input], { input: '{"role":"user","content":"hi","timestamp":1}\n' });
		assert.equal(append.code, 1);
		assert.match(append.stderr, /session-tree import/);
		assert.equal(readFileSync(input, "utf8"), before);
	});

	test("a pi session still opens as one, and a lenient open of a foreign file reads it as that format", async () => {
		const dir = tempDir();
		const file = lines((await cli(["new", "--dir", dir])).stdout)[0] as string;
		assert.equal((await cli(["append", file], { input: '{"role":"user","content":"hi","timestamp":1}\n' })).code, 0);
		assert.equal((await cliJson<Json>(["info", file, "--json"])).entryCount, 1);
		const lenient = await cliJson<Json>([
			"info",
			"--lenient",
			sample("chatgpt", "librechat-chatgpt-tree.json"),
			"--json",
		]);
		assert.equal(lenient.entryCount, 15);
	});

	test("search finds text in a directory of Claude Code or Codex transcripts", {
		skip: !hasImporter("codex") && "the codex importer is not in this build yet",
	}, async () => {
		const dir = tempDir();
		copyFileSync(join(SAMPLES, "codex", "ccl-legacy-rollout-44444444.jsonl"), join(dir, "rollout.jsonl"));
		const hits = await cliJson<Json[]>(["search", "synthetic legacy session is open", dir, "--json"]);
		assert.equal(hits.length, 1);
		assert.equal(hits[0]?.role, "assistant");
	});
});

describe("ls --agents", () => {
	test("pi's, Claude Code's and Codex's sessions together, with the agent of each", async () => {
		const home = tempDir();
		const piDir = join(home, ".pi", "agent", "sessions", "--work--");
		mkdirSync(piDir, { recursive: true });
		const pi = lines((await cli(["new", "--dir", piDir], { env: { HOME: home } })).stdout)[0] as string;
		await cli(["append", pi], { input: '{"role":"user","content":"pi here","timestamp":1700000000000}\n' });
		const claude = join(home, ".claude", "projects", "-work");
		mkdirSync(claude, { recursive: true });
		copyFileSync(join(SAMPLES, "claude-code", "ccl-dag-compact-after-rewind.jsonl"), join(claude, "s1.jsonl"));
		const codex = join(home, ".codex", "sessions", "2026", "01", "04");
		mkdirSync(codex, { recursive: true });
		copyFileSync(
			join(SAMPLES, "codex", "ccl-legacy-rollout-44444444.jsonl"),
			join(codex, "rollout-2026-01-04T05-06-07-44444444-4444-4444-8444-444444444444.jsonl"),
		);
		const env = { HOME: home, PI_CODING_AGENT_DIR: "", CLAUDE_CONFIG_DIR: "", CODEX_HOME: "" };
		const result = await cli(["ls", "--agents", "--json"], { env });
		const rows = JSON.parse(result.stdout) as Json[];
		const agents = rows.map((row) => row.agent).sort();
		const expected = ["pi"];
		if (hasImporter("claude-code")) expected.push("claude-code");
		if (hasImporter("codex")) expected.push("codex");
		assert.deepEqual(agents, expected.sort(), result.stderr);
		const text = await cli(["ls", "--agents"], { env });
		assert.equal(text.code, 0, text.stderr);
		assert.match(lines(text.stdout)[0] as string, /^MODIFIED +AGENT +ENTRIES/);
		const usage = await cli(["ls", "--agents", "--all"], { env });
		assert.equal(usage.code, 2);
	});
});
