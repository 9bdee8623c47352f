/**
 * `session-tree md` and `session-tree html` read the session one entry at a time as they write
 * (`Session.walkBranch`, `Session.walkEntries`): each body is redacted alone and let go, and the
 * output goes out in pieces. Checked here, on every real transcript and sample of the
 * fixtures (Claude Code transcripts read in a stream, pi sessions) and on a session holding a
 * secret of every kind in its messages, its name and a label: the output is, byte for byte,
 * the whole-string rendering of the whole path (or of every record) redacted at once, as the
 * commands made it before, and the redaction counts are the same; with --no-redact too.
 * (That the commands so read a transcript larger than their heap: claude-code-stream.test.ts.)
 */

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { after, describe, test } from "node:test";
import { openSession } from "../../src/cli/open.js";
import { run } from "../../src/cli/run.js";
import type { SessionHeader, SessionRecord } from "../../src/core/types.js";
import { Session } from "../../src/index.js";
import { exportSessionHtml } from "../../src/render/html/export.js";
import { renderHtmlPage } from "../../src/render/html/page.js";
import { renderMarkdown } from "../../src/render/markdown.js";
import { formatCounts, type RedactionCounts, redactRecords, redactText } from "../../src/render/redact.js";
import { firstPrompt } from "../../src/render/title.js";
import { FIXTURES, removeTempDirs, tempDir } from "../cli/helpers.js";
import { REPO, SAMPLES } from "../import/helpers.js";
import { PLANTED } from "./planted-secrets.js";

after(removeTempDirs);

const FILES = [
	join(SAMPLES, "claude-code"),
	join(REPO, "test", "fixtures", "real", "claude-code"),
	join(REPO, "test", "fixtures", "real", "pi"),
	FIXTURES,
].flatMap((dir) =>
	readdirSync(dir)
		.filter((name) => name.endsWith(".jsonl"))
		.map((name) => join(dir, name)),
);

/** What `session-tree ARGS` prints, run in this process; `pieces`: how many writes stdout got. */
async function command(args: string[]): Promise<{ code: number; out: string; err: string; pieces: number }> {
	const out: string[] = [];
	let err = "";
	const stdin = new PassThrough();
	stdin.end();
	const code = await run(args, { stdin, out: (text) => out.push(text), err: (text) => (err += text) });
	return { code, out: out.join(""), err, pieces: out.length };
}

/** An io that drops what it is given (the expected side opens the session as the command does). */
const quiet = { stdin: new PassThrough(), out: () => {}, err: () => {} };

/** The counts of two redactions added up. */
function sum(a: Readonly<RedactionCounts>, b: Readonly<RedactionCounts>): RedactionCounts {
	const out: RedactionCounts = { ...b };
	for (const [kind, n] of Object.entries(a)) out[kind] = (out[kind] ?? 0) + n;
	return out;
}

/** `md FILE` as it was made before it streamed: the whole path read, redacted at once, rendered as one string. */
async function markdownAtOnce(file: string, keep: boolean): Promise<{ out: string; err: string }> {
	const session = await openSession(file, quiet);
	try {
		const leafId = session.getLeafId();
		const path = leafId === null ? [] : session.getBranch(leafId);
		const counts = {};
		const scrub = (text: string | undefined) => (keep || text === undefined ? text : redactText(text, counts));
		const redacted = keep ? { records: path, counts } : redactRecords(path);
		const out = renderMarkdown({
			sessionId: session.getSessionId(),
			cwd: scrub(session.getCwd()) ?? "",
			name: scrub(session.getSessionName()),
			leafId,
			entries: redacted.records,
			label: (id) => scrub(session.getLabel(id)),
		});
		const summary = formatCounts(keep ? {} : sum(redacted.counts, counts));
		return { out, err: summary === "" ? "" : `session-tree: redacted ${summary} (--no-redact keeps them)\n` };
	} finally {
		await session.close();
	}
}

/** The page as `exportSessionHtml` made it before it streamed: every record read, redacted at once, one string. */
async function pageAtOnce(session: Session, redact: boolean): Promise<{ html: string; redactions: RedactionCounts }> {
	const { loadClientScript } = await import("../../src/render/html/client-script.js");
	const all: object[] = [session.getHeader(), ...session.getEntries()];
	const { records, counts } = redact ? redactRecords(all) : { records: all, counts: {} };
	const leafId = session.getLeafId();
	const name = session.getSessionName();
	const html = renderHtmlPage({
		header: records[0] as SessionHeader,
		records: records.slice(1),
		leafId: leafId === null || !redact ? leafId : redactText(leafId),
		clientScript: await loadClientScript(),
		name: name === undefined || !redact ? name : redactText(name),
		// The title's first prompt (issue 25), found in the redacted records at once.
		prompt: firstPrompt(records.slice(1) as SessionRecord[]),
		fileVersion: session.fileVersion,
	});
	return { html, redactions: counts };
}

/** A pi session with a secret of every kind: in its messages, its name and a label. */
async function secretSession(): Promise<string> {
	const session = await Session.create({ dir: tempDir(), cwd: "/p" });
	for (const planted of PLANTED) {
		await session.appendMessage({ role: "user", content: `here: ${planted.text}`, timestamp: 1 });
	}
	const first = PLANTED[0];
	assert.ok(first);
	await session.appendSessionInfo(`release with ${first.secret}`);
	const leaf = session.getLeafId();
	assert.ok(leaf);
	await session.appendLabelChange(leaf, `key ${first.secret}`);
	await session.close();
	return session.file as string;
}

describe("md and html written as they read", () => {
	test("md: every real transcript and sample, redacted and not, is the whole-path rendering byte for byte", async () => {
		const files = [...FILES, await secretSession()];
		assert.ok(files.length >= 60, `${files.length} files`);
		let streamed = 0;
		let redactedSome = 0;
		for (const file of files) {
			for (const keep of [false, true]) {
				const args = keep ? ["md", file, "--no-redact"] : ["md", file];
				const actual = await command(args);
				if (actual.code !== 0) {
					// A file the command refuses (a damaged fixture) is refused by an open alone too.
					await assert.rejects(openSession(file, quiet), file);
					continue;
				}
				const expected = await markdownAtOnce(file, keep);
				assert.equal(actual.out, expected.out, `${args.join(" ")}: stdout`);
				assert.equal(actual.err, expected.err, `${args.join(" ")}: stderr`);
				if (actual.pieces > 3) streamed++;
				if (expected.err !== "") redactedSome++;
			}
		}
		assert.ok(streamed > files.length, `${streamed} outputs written in pieces`);
		assert.ok(redactedSome > 0, "some output had secrets redacted");
	});

	test("html: every real transcript and sample, redacted and not, is the whole page byte for byte", async () => {
		const files = [...FILES, await secretSession()];
		let compared = 0;
		for (const file of files) {
			let session: Session;
			try {
				session = await openSession(file, quiet);
			} catch {
				continue;
			}
			try {
				for (const redact of [true, false]) {
					const actual = await exportSessionHtml(session, { redact });
					const expected = await pageAtOnce(session, redact);
					assert.equal(actual.html, expected.html, `${file} (redact: ${redact})`);
					assert.deepEqual(actual.redactions, expected.redactions, `${file} (redact: ${redact})`);
					compared++;
				}
			} finally {
				await session.close();
			}
		}
		assert.ok(compared >= 100, `${compared} pages`);
	});

	test("html: the page the command writes is exportSessionHtml's", async () => {
		const file = await secretSession();
		const out = join(tempDir(), "page.html");
		const result = await command(["html", file, "-o", out]);
		assert.equal(result.code, 0, result.err);
		const session = await Session.open(file);
		const page = await exportSessionHtml(session);
		await session.close();
		assert.equal(readFileSync(out, "utf8"), page.html);
		assert.match(result.err, /^session-tree: redacted /);
	});
});
