/** `detectFormat` / `sniffFormat`: the format of every sample from its content alone. */

import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { detectFormat, importSources, sniffFormat } from "../../src/import/index.js";
import { SAMPLES, sampleText } from "./helpers.js";

describe("detectFormat", () => {
	test("every sample is detected as the format of its folder", () => {
		let count = 0;
		for (const format of ["chatgpt", "openwebui", "claude-code", "codex"] as const) {
			for (const name of readdirSync(join(SAMPLES, format)).sort()) {
				assert.equal(detectFormat(sampleText(format, name)), format, `${format}/${name}`);
				count++;
			}
		}
		// 4 ChatGPT, 2 Open WebUI, 4 Claude Code and 4 Codex samples (SOURCES.md).
		assert.equal(count, 14);
	});

	test("a pi session, other JSON and other text are no import format", () => {
		const header = JSON.stringify({
			type: "session",
			version: 3,
			id: "s",
			timestamp: "2026-01-01T00:00:00.000Z",
			cwd: "/",
		});
		assert.equal(sniffFormat(`${header}\n`), "pi");
		assert.equal(detectFormat(`${header}\n`), undefined);
		assert.equal(detectFormat("[]"), undefined);
		assert.equal(detectFormat('{"name": "package"}'), undefined);
		assert.equal(detectFormat("# a heading\n"), undefined);
		assert.equal(detectFormat(""), undefined);
	});

	test("the start of a pretty-printed export, and a one-line export too long to parse just to look", () => {
		const pretty = sampleText("chatgpt", "librechat-chatgpt-tree.json");
		assert.equal(sniffFormat(pretty.slice(0, 2000), true), "chatgpt");
		const conversation = JSON.parse(pretty) as Array<Record<string, unknown>>;
		const big = JSON.stringify([{ ...conversation[0], padding: "x".repeat(2 << 20) }]);
		assert.equal(detectFormat(big), "chatgpt");
		const chat = JSON.stringify({ history: { currentId: null, messages: {} }, padding: "x".repeat(2 << 20) });
		assert.equal(detectFormat(chat), "openwebui");
	});
});

describe("firstLineWithin: a file's first line told from its start", () => {
	const dir = mkdtempSync(join(tmpdir(), "st-first-line-"));
	after(() => rmSync(dir, { recursive: true, force: true }));
	const write = (name: string, content: string) => {
		const file = join(dir, name);
		writeFileSync(file, content);
		return file;
	};
	test("short lines, blank lines first, a short file without a newline: within", async () => {
		const { firstLineWithin } = await import("../../src/import/source-lines.js");
		assert.equal(firstLineWithin(write("a.jsonl", '{"a":1}\n{"b":2}\n'), 100), true);
		assert.equal(firstLineWithin(write("b.jsonl", `\n \r\n\t\n${"x".repeat(90)}\n`), 100), true);
		assert.equal(firstLineWithin(write("c.json", "x".repeat(100)), 100), true);
		assert.equal(firstLineWithin(write("d.json", ""), 100), true);
	});
	test("a first line past the limit (a one-line JSON document): not within", async () => {
		const { firstLineWithin } = await import("../../src/import/source-lines.js");
		assert.equal(firstLineWithin(write("e.json", "x".repeat(101)), 100), false);
		assert.equal(firstLineWithin(write("f.json", `\n\n${"x".repeat(200)}\nshort\n`), 100), false);
	});
	test("a one-line ChatGPT export is not taken for a transcript and imports as ChatGPT", async () => {
		const file = write(
			"conversations.json",
			JSON.stringify([
				{
					title: "t",
					mapping: {
						r: { id: "r", parent: null, children: ["u"], message: null },
						u: {
							id: "u",
							parent: "r",
							children: [],
							message: {
								id: "u",
								author: { role: "user" },
								create_time: 1,
								content: { content_type: "text", parts: ["hi"] },
							},
						},
					},
					padding: "x".repeat(4 << 20),
				},
			]),
		);
		const sessions = await importSources([file], { dir: join(dir, "out") });
		assert.equal(sessions.failures.length, 0, String(sessions.failures[0]?.error));
		assert.equal(sessions.sessions[0]?.format, "chatgpt");
	});
});
