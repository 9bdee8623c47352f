/**
 * The checks of a page's records made in a second thread (src/render/html/page-checks.ts, over
 * src/storage/line-chunks.ts): the page made with the worker is the page made without it, byte
 * for byte, whichever thread read which line, and what is redacted and counted is the same. The
 * expectation is the export's own page with no worker (the path `serve` and the library take),
 * on pi's golden fixtures and on a session written here with planted secrets. The chunks are
 * made tiny (256 bytes to 1 KiB) so that each file is many chunks, lines longer than a chunk
 * (big-line.jsonl's is 1 MB, longer than a slot) included, and the worker is held to one or two
 * chunks ahead with three or four slots. Which thread reads which line there is a race (this
 * thread claims the chunks of the next 256 lines at once); two tests take it out: one lets the
 * worker read the whole file first, one asks for the lines one chunk at a time and waits for the
 * worker between chunks, so that its slots are used many times over.
 */

import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { isSessionTreeError } from "../../src/core/errors.js";
import type { Envelope } from "../../src/core/tree-node.js";
import { exportSessionHtml, exportSessionHtmlParts } from "../../src/render/html/export.js";
import { type CheckedLine, PageCheckThread } from "../../src/render/html/page-checks.js";
import { Session } from "../../src/session.js";
import { FIXTURES, removeTempDirs, tempDir } from "../cli/helpers.js";
import { PLANTED } from "./planted-secrets.js";

after(removeTempDirs);

/**
 * Fixtures of the current version with bodies the open leaves unparsed (off the context): those
 * are the worker's to check (what the open parsed is written as the session holds it).
 */
const FILES = [
	"big-line",
	"branch-in-place",
	"branch-with-summary",
	"compaction",
	"compaction-kept-offpath",
	"compaction-on-side-branch",
	"labels",
	"model-and-thinking-changes",
	"reset-leaf",
	"session-info-rename",
	"two-compactions",
	"wide-node",
];

/** The worker's pace in these tests: tiny chunks, one or two ahead, three or four slots. */
const PACES = [
	{ chunkBytes: 256, ahead: { lead: 1, most: 1 } },
	{ chunkBytes: 1024, ahead: { lead: 2, most: 2 } },
];

/** The page of `file` without a worker: the expectation. */
async function plainPage(file: string, redact = true) {
	return exportSessionHtml(await Session.open(file), { redact });
}

/** The page of `file` made with `checks` (a session opened afresh), and what the worker served. */
async function checkedPage(file: string, checks: PageCheckThread, redact = true, opened = file) {
	try {
		const page = await exportSessionHtmlParts(await Session.open(opened), { redact }, { checks });
		return { html: page.parts.join(""), redactions: page.redactions, served: checks.served };
	} finally {
		checks.stop();
	}
}

/** The worker, started on `file` at `pace`, once it has checked its first chunk (as it has, at the scale it is used, by the end of the open). */
async function start(file: string, pace: (typeof PACES)[number], redact = true): Promise<PageCheckThread> {
	const checks = PageCheckThread.start(file, { redact, minBytes: 0, ...pace });
	assert.ok(checks, "the worker starts");
	assert.equal(await checks.started(), true, "the worker checked a chunk");
	return checks;
}

for (const name of FILES) {
	test(`page checks from the worker: ${name} makes the page it makes without them`, async () => {
		const file = join(FIXTURES, `${name}.jsonl`);
		for (const redact of [true, false]) {
			const expected = await plainPage(file, redact);
			for (const pace of PACES) {
				const made = await checkedPage(file, await start(file, pace, redact), redact);
				assert.equal(made.html, expected.html, `redact ${redact}, ${pace.chunkBytes}-byte chunks`);
				assert.deepEqual(made.redactions, expected.redactions);
			}
		}
	});
}

/**
 * A session in pi's layout: a chain of user/assistant pairs, one planted secret in every third
 * reply, and last a user message that branches from the first: the leaf, so that the open
 * parses two bodies and leaves the chain's to the page.
 */
function sessionWithSecrets(): { file: string; lines: number; planted: number } {
	const T = "2026-03-01T10:00:00.000Z";
	const lines = [JSON.stringify({ type: "session", version: 3, id: "page-checks", timestamp: T, cwd: "/work" })];
	let parent: string | null = null;
	let planted = 0;
	for (let i = 0; i < 240; i++) {
		const id = `e${String(i).padStart(7, "0")}`;
		const secret = i % 6 === 5 ? (PLANTED[planted++ % PLANTED.length] as (typeof PLANTED)[number]) : undefined;
		const text = secret ? (secret.text === "" ? `the key is ${secret.secret} here` : secret.text) : `message ${i}`;
		const message =
			i % 2 === 0
				? { role: "user", content: text, timestamp: 1 }
				: {
						role: "assistant",
						content: [{ type: "text", text }],
						api: "anthropic-messages",
						provider: "anthropic",
						model: "claude-sonnet-4-5",
						usage: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 3 },
						stopReason: "stop",
						timestamp: 1,
					};
		lines.push(JSON.stringify({ type: "message", id, parentId: parent, timestamp: T, message }));
		parent = id;
	}
	const last = { role: "user", content: "again, from the start", timestamp: 1 };
	lines.push(JSON.stringify({ type: "message", id: "branch01", parentId: "e0000000", timestamp: T, message: last }));
	const file = join(tempDir(), "secrets.jsonl");
	writeFileSync(file, `${lines.join("\n")}\n`);
	return { file, lines: lines.length - 1, planted };
}

test("page checks: lines with a secret are redacted and counted by this thread, the page as without the worker", async () => {
	const { file, lines, planted } = sessionWithSecrets();
	const expected = await plainPage(file);
	// Independent of the export: every planted secret was found (each kind counted), none left.
	const total = Object.values(expected.redactions).reduce((sum, n) => sum + n, 0);
	assert.ok(total >= planted, `${total} redactions of ${planted} planted secrets`);
	for (const secret of PLANTED.slice(0, planted)) assert.ok(!expected.html.includes(secret.secret));
	for (const pace of PACES) {
		const made = await checkedPage(file, await start(file, pace));
		assert.equal(made.html, expected.html);
		assert.deepEqual(made.redactions, expected.redactions);
		assert.ok(made.served > 0);
		// The lines with a secret were not the worker's.
		assert.ok(made.served <= lines - planted, `${made.served} served of ${lines - planted} without a secret`);
	}
});

test("page checks: a worker that got to every chunk first serves every line the open left unparsed but those with a secret", async () => {
	const { file, lines, planted } = sessionWithSecrets();
	// The open parses the first entry and the leaf (its path); the chain's other bodies are the page's.
	const unparsed = lines - 2;
	// Room ahead for the whole file (about 60 chunks of 1 KiB), and the worker done before the open.
	const pace = { chunkBytes: 1024, ahead: { lead: 1, most: 100 } };
	for (const redact of [true, false]) {
		const checks = PageCheckThread.start(file, { redact, minBytes: 0, ...pace });
		assert.ok(checks);
		assert.equal(await checks.settled(), true);
		const made = await checkedPage(file, checks, redact);
		assert.equal(made.html, (await plainPage(file, redact)).html);
		// Every secret was planted in a reply of the chain (never the first entry or the leaf).
		assert.equal(made.served, redact ? unparsed - planted : unparsed, `redact ${redact}`);
	}
});

test("page checks: a worker reading another file, or of another redaction, is not used", async () => {
	const file = join(FIXTURES, "deep-chain.jsonl");
	const other = join(FIXTURES, "branched-session-clean.jsonl");
	const expected = await plainPage(file);
	const pace = PACES[0] as (typeof PACES)[number];
	const another = await checkedPage(other, await start(other, pace), true, file);
	assert.equal(another.html, expected.html);
	assert.equal(another.served, 0);
	const unredacted = await checkedPage(file, await start(file, pace, false), true);
	assert.equal(unredacted.html, expected.html);
	assert.equal(unredacted.served, 0);
});

test("page checks: a file of an older version (migrated when read) is read here alone", async () => {
	for (const name of ["legacy-v1", "legacy-v2"]) {
		const file = join(FIXTURES, `${name}.jsonl`);
		const made = await checkedPage(file, await start(file, PACES[0] as (typeof PACES)[number]));
		assert.equal(made.html, (await plainPage(file)).html);
		assert.equal(made.served, 0);
	}
});

test("page checks: a body that cannot be read fails here, with its file and line, as without the worker", async () => {
	const { file } = sessionWithSecrets();
	const text = readFileSync(file, "utf8").split("\n");
	// A user message of the chain (off the leaf's path: the open does not read it, the page
	// does), its envelope intact, its body no JSON (a raw control character in a string).
	const at = 201;
	assert.ok(text[at]?.includes('"content":"message'));
	text[at] = (text[at] as string).replace('"content":"message', '"content":"\u0001message');
	const damaged = join(tempDir(), "damaged.jsonl");
	writeFileSync(damaged, text.join("\n"));
	const failure = async (checks?: PageCheckThread) => {
		try {
			const session = await Session.open(damaged);
			await exportSessionHtmlParts(session, {}, { checks });
		} catch (error) {
			assert.ok(isSessionTreeError(error, "INVALID_JSON"), String(error));
			return { message: error.message, line: error.line, file: error.file };
		} finally {
			checks?.stop();
		}
		assert.fail("the page was made");
	};
	const expected = await failure();
	assert.equal(expected.line, at + 1);
	for (const pace of PACES) assert.deepEqual(await failure(await start(damaged, pace)), expected);
});

/** A line of a file found by hand: where it is, what it is, its number. */
interface LineRef {
	offset: number;
	length: number;
	type: string;
	id: string;
	parentId: string | null;
	line: number;
}

test("page checks: the worker's slots are used again once this thread is past them, each line's bytes its own", async () => {
	const { file } = sessionWithSecrets();
	const bytes = readFileSync(file);
	// The lines of the file by hand (offset, length and what they are), the header and the leaf left out.
	const refs: LineRef[] = [];
	for (let offset = 0, line = 1; offset < bytes.length; line++) {
		const end = bytes.indexOf(0x0a, offset);
		const record = JSON.parse(bytes.toString("utf8", offset, end));
		if (line > 1 && record.id !== "branch01")
			refs.push({ offset, length: end - offset, type: record.type, id: record.id, parentId: record.parentId, line });
		offset = end + 1;
	}
	const chunkBytes = 1024;
	const chunks = new Map<number, LineRef[]>();
	for (const ref of refs) {
		const at = Math.floor(ref.offset / chunkBytes);
		chunks.set(at, [...(chunks.get(at) ?? []), ref]);
	}
	// Allowed 50 chunks ahead but given two slots (about 60 chunks): only the slots hold it back.
	const checks = PageCheckThread.start(file, {
		redact: false,
		minBytes: 0,
		chunkBytes,
		ahead: { lead: 1, most: 50 },
		slots: 2,
	});
	assert.ok(checks);
	try {
		let served = 0;
		const order = [...chunks.keys()].sort((a, b) => a - b);
		for (const [i, at] of order.entries()) {
			const lines = chunks.get(at) as LineRef[];
			// This thread asks for a chunk's lines, then the worker has time to run ahead before their
			// bytes are read: it must not write this chunk's slot again meanwhile.
			const taken: Array<CheckedLine | undefined> = lines.map((ref) => checks.take(ref as unknown as Envelope));
			await new Promise((resolve) => setTimeout(resolve, 20));
			for (const [k, checked] of taken.entries()) {
				if (!checked) continue;
				served++;
				const ref = lines[k] as LineRef;
				assert.equal(
					Buffer.from(checked.bytes).toString("utf8"),
					bytes.toString("utf8", ref.offset, ref.offset + ref.length),
					`line ${ref.line}`,
				);
			}
			const next = chunks.get(order[i + 1] as number)?.[0];
			if (next) checks.passed(next as unknown as Envelope);
		}
		assert.ok(served > refs.length / 2, `${served} of ${refs.length} lines from the worker`);
	} finally {
		checks.stop();
	}
});

test("page checks: a worker stopped before it is done, or done, leaves no file open", {
	skip: !existsSync("/proc/self/fd") && "no /proc/self/fd here",
}, async () => {
	const { file } = sessionWithSecrets();
	const open = () => readdirSync("/proc/self/fd").length;
	const before = open();
	for (let i = 0; i < 10; i++) {
		const checks = PageCheckThread.start(file, { redact: true, minBytes: 0, chunkBytes: 1024 });
		assert.ok(checks);
		// Half stopped at once (mid-read or before starting), half once they got somewhere.
		if (i % 2 === 1) await checks.started();
		checks.stop();
	}
	// The workers exit on their own time; their files are closed when they have.
	const deadline = Date.now() + 10_000;
	while (open() > before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
	assert.equal(open(), before);
});
