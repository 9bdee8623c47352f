/**
 * `session-tree diff` on sessions built here with the library: two leaves of one session, a
 * fork and its source, the JSON form, the usage errors. The expected lines are written by hand
 * from the messages the test appends.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { Session } from "../../src/session.js";
import { assistantMessage, userMessage } from "../support/messages.js";
import { cli, cliJson, removeTempDirs, tempDir } from "./helpers.js";

after(removeTempDirs);

const user = (text: string) => userMessage(text, 1);
const assistant = (text: string) => assistantMessage(text, 1);

/** q1 → a1 → { q2 → a2, q2e (an edited q2) → a2e }, leaf a2e. */
async function branched(dir: string) {
	const s = await Session.create({ dir, cwd: "/p" });
	const q1 = await s.appendMessage(user("Our CI fails on Node 16."));
	const a1 = await s.appendMessage(assistant("structuredClone became a global in Node 17."));
	const q2 = await s.appendMessage(user("Add a polyfill then."));
	const a2 = await s.appendMessage(assistant("Added core-js to the test setup."));
	await s.branch(a1);
	const q2e = await s.appendMessage(user("Require Node 20 then."));
	const a2e = await s.appendMessage(assistant("Added engines to package.json."));
	return { s, ids: { q1, a1, q2, a2, q2e, a2e } };
}

describe("session-tree diff", () => {
	test("two leaves of one session: the ancestor, then the prompts and the answers paired word by word", async () => {
		const dir = tempDir();
		const { s, ids } = await branched(dir);
		const file = s.file as string;
		await s.close();
		const result = await cli(["diff", file, ids.a2, ids.a2e]);
		assert.equal(result.code, 0, result.stderr);
		assert.equal(
			result.stdout,
			[
				`Common ancestor: ${ids.a1} assistant: structuredClone became a global in Node 17.`,
				`A: 2 entries after it, to ${ids.a2}. B: 2 entries after it, to ${ids.a2e}.`,
				"",
				`~ user ${ids.q2} → ${ids.q2e}`,
				"    [-Add a polyfill-]{+Require Node 20+} then.",
				`~ assistant ${ids.a2} → ${ids.a2e}`,
				"    Added [-core-js-]{+engines+} to [-the test setup-]{+package.json+}.",
				"",
			].join("\n"),
		);
		const json = await cliJson<{ ancestorId: string; rows: Array<{ kind: string }> }>([
			"diff",
			file,
			ids.a2.slice(0, 5),
			ids.a2e,
			"--json",
		]);
		assert.equal(json.ancestorId, ids.a1);
		assert.deepEqual(
			json.rows.map((row) => row.kind),
			["changed", "changed"],
		);
	});

	test("a fork and its source: the leaves of the two sessions", async () => {
		const dir = tempDir();
		const { s, ids } = await branched(dir);
		const fork = await s.fork(ids.a1);
		await fork.appendMessage(user("Drop Node 16 support."));
		const forkFile = fork.file as string;
		const source = s.file as string;
		await fork.close();
		await s.close();
		const result = await cli(["diff", source, forkFile]);
		assert.equal(result.code, 0, result.stderr);
		assert.equal(
			result.stdout,
			[
				`Common ancestor: ${ids.a1} assistant: structuredClone became a global in Node 17.`,
				`A: 2 entries after it, to ${ids.a2e}. B: 1 entry after it, to ${(await Session.open(forkFile)).getLeafId()}.`,
				"",
				`~ user ${ids.q2e} → ${(await Session.open(forkFile)).getLeafId()}`,
				"    [-Require-]{+Drop+} Node [-20 then-]{+16 support+}.",
				`- assistant ${ids.a2e} (only in A)`,
				"    Added engines to package.json.",
				"",
			].join("\n"),
		);
	});

	test("usage: one argument or four is an error; an unknown entry is named", async () => {
		const dir = tempDir();
		const { s } = await branched(dir);
		const file = s.file as string;
		await s.close();
		const one = await cli(["diff", file]);
		assert.equal(one.code, 2);
		assert.match(one.stderr, /diff/);
		const unknown = await cli(["diff", file, "zzzzzzzz", join(dir, "x")]);
		assert.notEqual(unknown.code, 0);
		assert.match(unknown.stderr, /zzzzzzzz/);
	});
});
