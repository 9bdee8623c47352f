/**
 * `ls` names a session after what the person typed, not after what the agent injected: the
 * first message of an imported Claude Code session skips Claude Code's caveats, command
 * wrappers, `!` shell lines and IDE context. On real transcripts (test/fixtures/real/claude-code,
 * provenance in test/fixtures/real/SOURCES.md); the expected texts were read off the files by
 * hand (the first user line that none of these starts).
 */

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { summarizeSessions } from "../../src/catalog/summary.js";
import { importClaudeCode } from "../../src/import/claude-code.js";
import { sessionRecords } from "../../src/import/index.js";
import { DirectoryCollection } from "../../src/storage/directory-collection.js";
import { repoRoot } from "../support/fixtures.js";

const dir = mkdtempSync(join(tmpdir(), "session-tree-summary-injected-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string): string {
	const text = readFileSync(join(repoRoot, "test", "fixtures", "real", "claude-code", name), "utf8");
	const [session] = importClaudeCode({ name, text });
	assert.ok(session);
	const file = join(dir, `${session.header.id}.jsonl`);
	writeFileSync(
		file,
		`${sessionRecords(session)
			.map((r) => JSON.stringify(r))
			.join("\n")}\n`,
	);
	return file;
}

test("ls: the first message is the first typed prompt, past the caveat, /clear and a `!` command", async () => {
	// 1.0.56: line 1 is the isMeta caveat, 2-3 /clear and its output, 4-5 a `!` command and its output, 6 the prompt.
	const file = write("ccl-1.0.56-12a546d1-fork.jsonl");
	// 2.0.42: the first prompt's message starts with an <ide_opened_file> block, then the typed text.
	const ide = write("ccl-2.0.42-7acd37a8-parallel.jsonl");
	// 2.0.0: only summaries of other sessions and a /model command: no prompt at all.
	const none = write("ccl-2.0.0-3680252d-summaries.jsonl");
	const { sessions } = await summarizeSessions(new DirectoryCollection(dir));
	const byFile = new Map(sessions.map((s) => [s.file, s]));
	assert.match(byFile.get(file)?.firstMessage ?? "", /^We've just done a big refactoring \(Phase 2 from @docs\/ARCHIT/);
	assert.match(byFile.get(ide)?.firstMessage ?? "", /^OK, so this was just so you know what there is now, but afte/);
	assert.equal(byFile.get(none)?.firstMessage, null);
	assert.equal(byFile.get(none)?.name, null, "its summaries name other sessions");
});
