/** `detectFormat` / `sniffFormat`: the format of every sample from its content alone. */

import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { detectFormat, sniffFormat } from "../../src/import/index.js";
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
