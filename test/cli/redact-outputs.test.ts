/**
 * One planted secret of every kind redact-services.ts adds, in every place a session holds
 * text (user text, tool-call arguments, a JSON tool result, thinking, custom entries), is
 * absent from the bytes of every output that leaves the machine: `md`, `html`, `export --to
 * chatgpt|openwebui`; and `--no-redact` keeps them (so the test can fail).
 */

import assert from "node:assert/strict";
import { after, test } from "node:test";
import { Session } from "../../src/session.js";
import { assistant, user } from "../catalog/layout.js";
import { PLANTED } from "../render/planted-secrets.js";
import { embeddedRecordText } from "../support/page-data.js";
import { cli, removeTempDirs, tempDir } from "./helpers.js";

after(removeTempDirs);

const T = "2026-01-02T03:04:05.000Z";

/** An output's bytes as a reader gets them: for the HTML page, its embedded records decoded too. */
function readable(name: string, stdout: string): string {
	if (name !== "html") return stdout;
	return `${stdout}\n${embeddedRecordText(stdout)}`;
}

async function sessionWithSecrets(): Promise<string> {
	const s = await Session.create({ dir: tempDir(), cwd: "/p" });
	const texts = PLANTED.map((p) => p.text);
	const all = texts.join("\n");
	await s.appendMessage(user(`here is my config:\n${all}`, T));
	const reply = assistant("reading it", T, `the user pasted secrets:\n${all}`);
	reply.content.push({
		type: "toolCall",
		id: "call_1",
		name: "bash",
		arguments: { command: `echo '${all}'`, env: texts },
	});
	reply.stopReason = "toolUse";
	await s.appendMessage(reply);
	await s.appendMessage({
		role: "toolResult",
		toolCallId: "call_1",
		toolName: "bash",
		// A tool that printed JSON: every secret JSON-escaped inside the text.
		content: [{ type: "text", text: JSON.stringify({ output: all, items: texts }) }],
		isError: false,
		timestamp: Date.parse(T),
	});
	await s.appendCustomEntry("my-extension", { dump: all });
	await s.appendCustomMessageEntry("note", `remember:\n${all}`, true, { texts });
	await s.appendMessage(assistant("done", T));
	await s.close();
	return s.file as string;
}

test("no planted secret of any kind reaches md, html or an export; --no-redact keeps them", async () => {
	const file = await sessionWithSecrets();
	const outputs: Array<[string, string[]]> = [
		["md", ["md", file]],
		["html", ["html", file, "-o", "-"]],
		["export chatgpt", ["export", file, "--to", "chatgpt"]],
		["export openwebui", ["export", file, "--to", "openwebui"]],
	];
	for (const [name, args] of outputs) {
		const result = await cli(args);
		assert.equal(result.code, 0, `${name}: ${result.stderr}`);
		assert.ok(result.stdout.length > 1000, name);
		const shown = readable(name, result.stdout);
		for (const { kind, secret } of PLANTED) {
			assert.ok(!shown.includes(secret), `${name}: the ${kind} ${secret} is in the output`);
			assert.ok(shown.includes(`[REDACTED:${kind}]`), `${name}: no ${kind} marker`);
		}
		assert.match(result.stderr, /session-tree: redacted .*\(--no-redact keeps them\)/, name);
		const kept = await cli([...args, "--no-redact"]);
		assert.equal(kept.code, 0, `${name} --no-redact: ${kept.stderr}`);
		// The raw text is there; in JSON outputs escaped as JSON escapes it.
		const raw = readable(name, kept.stdout);
		for (const { secret } of PLANTED) assert.ok(raw.includes(secret), `${name} --no-redact lost ${secret}`);
	}
});
