/**
 * archive, unarchive and drop-archived as real processes on a branched, compacted and
 * labelled session: what `tree`, `leaves` and the REPL show, the leaf and pi's context, the
 * rewrite with its backup. The expected ids are derived by hand from the session built below.
 */

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { BrowseModel, rowKey } from "../../src/cli/browse/model.js";
import { Session } from "../../src/session.js";
import { BROWSER_SKIP, launchBrowser } from "../support/browser.js";
import { asJson } from "../support/fixtures.js";
import { assistantMessage, userMessage } from "../support/messages.js";
import { openWithPi } from "../support/pi.js";
import { type CliResult, cli, cliJson, lines, removeTempDirs, tempDir } from "./helpers.js";

delete process.env.FORCE_COLOR;
after(removeTempDirs);

let clock = Date.parse("2026-02-01T00:00:00.000Z");
const now = () => {
	clock += 1000;
	return new Date(clock);
};

/**
 * u1 → a1 → u2 → a2 → compaction (keeps from u2) → u3 → a3   (the leaf a3)
 *       a1 → u2b → a2b → label(u2b "vitest")                 (the branch to archive)
 */
async function session() {
	const s = await Session.create({ dir: tempDir(), cwd: "/home/dev/p", now });
	const u1 = await s.appendMessage(userMessage("Which test runner?", clock));
	const a1 = await s.appendMessage(assistantMessage("node:test or vitest.", clock));
	const u2 = await s.appendMessage(userMessage("Stay with node:test.", clock));
	const a2 = await s.appendMessage(assistantMessage("Kept node:test.", clock));
	const compaction = await s.appendCompaction("Chose node:test.", u2, 500, undefined, false, true);
	const u3 = await s.appendMessage(userMessage("Run it in CI.", clock));
	const a3 = await s.appendMessage(assistantMessage("Added the CI job.", clock));
	await s.branch(a1);
	const u2b = await s.appendMessage(userMessage("Try vitest.", clock));
	const a2b = await s.appendMessage(assistantMessage("3 tests fail on ESM.", clock));
	const label = await s.appendLabelChange(u2b, "vitest");
	await s.branch(a3);
	await s.close();
	return { file: s.file as string, u1, a1, u2, a2, compaction, u3, a3, u2b, a2b, label };
}

async function ok(args: string[], input?: string): Promise<CliResult> {
	const result = await cli(args, input === undefined ? {} : { input });
	assert.equal(result.code, 0, `${args.join(" ")}: ${result.stderr}`);
	return result;
}

/** pi's SessionManager on a copy of the file (test/support/pi.ts). */
const pi = openWithPi;

/** The ids at the start of `tree`'s lines (after the prefix and the active mark). */
function treeIds(text: string): string[] {
	return lines(text).map((line) => /([0-9a-f]{8}) /.exec(line)?.[1] ?? line);
}

describe("session-tree archive, unarchive, drop-archived", () => {
	test("archive hides the branch from tree and leaves, keeps the leaf and pi's context; unarchive restores the view", async () => {
		const b = await session();
		const treeBefore = (await ok(["tree", b.file])).stdout;
		assert.deepEqual(treeIds(treeBefore), [b.u1, b.a1, b.u2, b.a2, b.compaction, b.u3, b.a3, b.u2b, b.a2b, b.label]);
		assert.deepEqual(lines((await ok(["leaves", b.file])).stdout), [b.a3, b.label].sort());
		const ctxBefore = (await ok(["ctx", b.file, "--json"])).stdout;
		const piBefore = asJson(pi(b.file).buildSessionContext());

		assert.equal((await ok(["archive", b.file, b.u2b.slice(0, 6)])).stdout, `archived ${b.u2b} (3 entries)\n`);

		// tree: the branch is gone (a1 has one shown child: the fork is gone too).
		assert.deepEqual(treeIds((await ok(["tree", b.file])).stdout), [b.u1, b.a1, b.u2, b.a2, b.compaction, b.u3, b.a3]);
		assert.ok(!(await ok(["tree", b.file, "--filter", "default"])).stdout.includes(b.u2b));
		// --filter all: everything, the archive record too (under u2b, after a2b).
		const all = treeIds((await ok(["tree", b.file, "--filter", "all"])).stdout);
		assert.deepEqual(all.slice(0, 9), [b.u1, b.a1, b.u2, b.a2, b.compaction, b.u3, b.a3, b.u2b, b.a2b]);
		assert.equal(all.length, 11, "…, a2b, label, the archive record");
		const record = all[10] as string;
		const allText = lines((await ok(["tree", b.file, "--filter", "all"])).stdout);
		assert.match(allText[7] ?? "", new RegExp(`${b.u2b} user: Try vitest\\. \\[vitest\\] \\(archived\\)$`));
		// leaves: only a3; --all lists the label entry (a2b's child) and the record too.
		assert.deepEqual(lines((await ok(["leaves", b.file])).stdout), [b.a3]);
		assert.deepEqual(await cliJson(["leaves", b.file, "--json"]), [b.a3]);
		assert.deepEqual(lines((await ok(["leaves", b.file, "--all"])).stdout), [b.a3, b.label, record].sort());
		// tree --json: every row, those of the branch marked.
		const rows = await cliJson<Array<{ id: string; archived?: boolean }>>(["tree", b.file, "--json"]);
		assert.deepEqual(
			rows.filter((row) => row.archived).map((row) => row.id),
			[b.u2b, b.a2b, b.label, record],
		);
		// The leaf and the context: unchanged for session-tree and for pi.
		assert.equal((await Session.open(b.file)).getLeafId(), b.a3);
		assert.equal((await ok(["ctx", b.file, "--json"])).stdout, ctxBefore);
		const piAfter = pi(b.file);
		assert.deepEqual(asJson(piAfter.buildSessionContext()), piBefore);
		assert.equal(piAfter.getEntry(piAfter.getLeafId() as string)?.parentId, b.a3);

		// unarchive: the same tree as before, the archive records out of sight.
		assert.equal((await ok(["unarchive", b.file, b.u2b])).stdout, `unarchived ${b.u2b} (3 entries)\n`);
		assert.equal((await ok(["tree", b.file])).stdout, treeBefore);
		assert.deepEqual(lines((await ok(["leaves", b.file])).stdout), [b.a3, b.label].sort());
		assert.equal((await ok(["ctx", b.file, "--json"])).stdout, ctxBefore);
		assert.equal((await ok(["unarchive", b.file, b.u2b])).stdout, `${b.u2b} is not archived: nothing written\n`);
	});

	test("the branch of the leaf is refused, and nothing is written", async () => {
		const b = await session();
		const before = readFileSync(b.file);
		const refused = await cli(["archive", b.file, b.u2]);
		assert.equal(refused.code, 1);
		assert.match(refused.stderr, new RegExp(`the branch at ${b.u2} holds the leaf ${b.a3}: move the leaf first`));
		assert.deepEqual(readFileSync(b.file), before);
	});

	test("--json of archive and unarchive", async () => {
		const b = await session();
		const archived = await cliJson<{ recordId: string }>(["archive", b.file, b.a2b, "--json"]);
		assert.deepEqual(archived, { id: b.a2b, archived: true, recordId: archived.recordId, entries: 2 });
		assert.deepEqual(await cliJson(["archive", b.file, b.a2b, "--json"]), {
			id: b.a2b,
			archived: true,
			recordId: null,
			entries: 2,
		});
	});

	test("drop-archived: the branch's entries leave the file, which opens strictly with the same context; a backup is left", async () => {
		const b = await session();
		await ok(["archive", b.file, b.u2b]);
		const before = readFileSync(b.file, "utf8");
		const ctxBefore = (await ok(["ctx", b.file, "--json"])).stdout;
		const dropped = await ok(["drop-archived", b.file]);
		const backup = `${b.file}.bak`;
		// u2b, a2b, the label entry under a2b and the archive record under u2b.
		assert.equal(dropped.stdout, `dropped 4 entries (1 archived branch)\nbackup: ${backup}\n`);
		assert.ok(existsSync(backup));
		assert.equal(readFileSync(backup, "utf8"), before);
		const strict = await Session.open(b.file);
		assert.equal(strict.getLeafId(), b.a3);
		assert.equal(strict.entryCount, 7);
		assert.equal(strict.getEntry(b.u2b), undefined);
		assert.equal((await ok(["ctx", b.file, "--json"])).stdout, ctxBefore);
		assert.deepEqual(asJson(pi(b.file).buildSessionContext()), JSON.parse(ctxBefore));
		assert.equal((await ok(["validate", b.file])).code, 0);
		assert.equal((await ok(["tree", b.file, "--filter", "all"])).stdout, (await ok(["tree", b.file])).stdout);
		assert.equal((await ok(["drop-archived", b.file])).stdout, "nothing archived: nothing written\n");
		assert.deepEqual(await cliJson(["drop-archived", b.file, "--json"]), { dropped: 0, branches: 0, backup: null });
	});

	test("the REPL's archive and unarchive; its tree and leaves leave the branch out", async () => {
		const b = await session();
		const script = [`archive ${b.u2b}`, "leaves", "tree", "tree --filter all", `unarchive ${b.u2b}`, "leaves"];
		const result = await ok(["repl", b.file, "--strict"], `${script.join("\n")}\n`);
		const out = result.stdout;
		assert.match(out, new RegExp(`archived ${b.u2b} \\(3 entries\\)`));
		assert.match(out, new RegExp(`unarchived ${b.u2b} \\(3 entries\\)`));
		const [archivedPart, restoredPart] = out.split(`unarchived ${b.u2b}`) as [string, string];
		// Between archive and unarchive, a2b shows only under --filter all (once).
		assert.equal(archivedPart.split(b.a2b).length - 1, 1, archivedPart);
		assert.ok(restoredPart.includes(b.label), "leaves lists the label entry's tip again");
	});

	test("the HTML page's sidebar leaves the archived branch out; the filter 'all' shows it", {
		skip: BROWSER_SKIP,
	}, async () => {
		const b = await session();
		await ok(["archive", b.file, b.u2b]);
		const out = join(tempDir(), "archived.html");
		await ok(["html", b.file, "-o", out]);
		const browser = await launchBrowser();
		try {
			const { page } = await browser.open(out);
			const rows = () =>
				page
					.locator('[data-role="tree"] [data-tree-id]')
					.evaluateAll((nodes) =>
						nodes.map((node) => (node as unknown as { getAttribute(n: string): string }).getAttribute("data-tree-id")),
					);
			const shown = await rows();
			assert.ok(shown.includes(b.a3) && shown.includes(b.u1), shown.join(" "));
			assert.ok(!shown.includes(b.u2b) && !shown.includes(b.a2b), shown.join(" "));
			await page.selectOption('select[data-role="filter"]', "all");
			const all = await rows();
			assert.ok(all.includes(b.u2b) && all.includes(b.a2b) && all.includes(b.label), all.join(" "));
		} finally {
			await browser.close();
		}
	});

	test("browse: the archived branch has no row until the filter is all", async () => {
		const b = await session();
		await ok(["archive", b.file, b.u2b]);
		const s = await Session.open(b.file);
		const index = s.getTreeIndex();
		const source = { roots: s.getTree(), leafId: s.getLeafId(), parentOf: (id: string) => index.getParentId(id) };
		const keys = (model: BrowseModel) => model.rows.map(rowKey);
		const model = new BrowseModel(source, "default");
		assert.deepEqual(keys(model), [b.u1, b.a1, b.u2, b.a2, b.compaction, b.u3, b.a3]);
		model.setFilter("all");
		assert.ok(keys(model).includes(b.u2b) && keys(model).includes(b.a2b), keys(model).join(" "));
	});
});
