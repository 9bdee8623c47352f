/**
 * A layout drawn once (`layoutTree` without an index to keep, as `session-tree tree` draws it)
 * finds the path to the leaf by one walk of the views instead of an index of every node
 * (render/tree-layout.ts, `leafPath`). It must lay out exactly what the indexed layout does: the
 * expectation here is the same function given an index to fill (`index: {}`), which takes the
 * indexed way, on sessions read from real files (the views' nodes are a session's tree nodes),
 * with forks, several roots, labels, archived branches, orphans and leaves anywhere.
 */

import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ARCHIVE_CUSTOM_TYPE } from "../../src/core/archive.js";
import { viewId } from "../../src/core/tree-view.js";
import type { SessionEntry, SessionTreeNode } from "../../src/core/types.js";
import { layoutTree, leafPath, type TreeLayout, type TreeLayoutOptions } from "../../src/render/tree-layout.js";
import { Session } from "../../src/session.js";
import { removeTempDirs, tempDir } from "../cli/helpers.js";
import { mulberry32 } from "../support/random.js";
import { plainRow, randomEntry } from "./random-trees.js";

test.after(removeTempDirs);

/** The lines of a random session file: entries from randomEntry, archive records, orphans now and then. */
function sessionLines(seed: number): { lines: string[]; ids: string[] } {
	const pick = mulberry32(seed);
	const size = 2 + Math.floor(pick() * 150);
	const chain = [0.5, 0.75, 0.9][seed % 3] as number;
	const ids: string[] = [];
	const lines = [
		JSON.stringify({ type: "session", version: 3, id: `s${seed}`, timestamp: "2026-01-01T00:00:00.000Z", cwd: "/x" }),
	];
	for (let i = 0; i < size; i++) {
		const id = `n${i}`;
		const r = pick();
		// Below the last entry (a chain), below any earlier one (a fork), a new root, below an id
		// no entry has (an orphan, which a lenient open keeps as a root) or below a later entry
		// (the open's parent is then not the one the entry names).
		const parentId =
			i === 0 || r < 0.03
				? null
				: r < 0.05 && seed % 4 === 0
					? `missing${i}`
					: r < 0.07 && seed % 4 === 1
						? `n${i + 1 + Math.floor(pick() * 5)}`
						: r < chain
							? (ids[i - 1] as string)
							: (ids[Math.floor(pick() * i)] as string);
		let entry: SessionEntry = randomEntry(id, parentId, pick);
		if (pick() < 0.04 && i > 0) {
			// A branch archived (or brought back): its target and everything below are put away.
			const targetId = ids[Math.floor(pick() * i)] as string;
			entry = {
				...entry,
				type: "custom",
				customType: ARCHIVE_CUSTOM_TYPE,
				data: { targetId, archived: pick() < 0.8 },
			} as unknown as SessionEntry;
			delete (entry as { message?: unknown }).message;
		}
		ids.push(id);
		lines.push(JSON.stringify(entry));
	}
	return { lines, ids };
}

/** The random session of `seed` (see sessionLines) written to `dir/name.jsonl` and opened leniently. */
async function randomSession(dir: string, name: string, seed: number): Promise<{ session: Session; ids: string[] }> {
	const { lines, ids } = sessionLines(seed);
	const file = join(dir, `${name}.jsonl`);
	writeFileSync(file, `${lines.join("\n")}\n`);
	return { session: await Session.open(file, { lenient: true }), ids };
}

/** A layout in plain values: its rows, the active path in its order, the leaf's row, what is shown. */
function plain(layout: TreeLayout, ids: readonly string[]): unknown {
	return {
		rows: layout.rows.map(plainRow),
		active: [...layout.active],
		leafShownAt: layout.leafShownAt,
		shown: ids.filter((id) => layout.shown.has(id)),
	};
}

test("a layout drawn once is the indexed layout (random sessions, filters, leaves, archived, orphans)", async () => {
	const dir = tempDir();
	let cases = 0;
	let walked = 0;
	let refused = 0;
	for (let seed = 1; seed <= 300; seed++) {
		const { session, ids } = await randomSession(dir, `s${seed}`, seed);
		const pick = mulberry32(seed * 7919);
		for (let step = 0; step < 6; step++) {
			const roots: SessionTreeNode[] = session.getTree();
			// Mostly ids of the session, sometimes one it does not have.
			const leafId = pick() < 0.1 ? "nowhere" : (ids[Math.floor(pick() * ids.length)] as string);
			const filters = [undefined, "default", "no-tools", "user-only", "labeled-only", "all"] as const;
			const filter = filters[Math.floor(pick() * filters.length)];
			const archived: "show" | "hide" | undefined = pick() < 0.2 ? (pick() < 0.5 ? "show" : "hide") : undefined;
			const options: TreeLayoutOptions = { leafId, ...(filter ? { filter } : {}), ...(archived ? { archived } : {}) };
			const what = `seed ${seed}, leaf ${leafId}, ${filter}, ${archived}`;
			const once = layoutTree(roots, options);
			const indexed = layoutTree(roots, { ...options, index: {} });
			assert.deepEqual(plain(once, ids), plain(indexed, ids), what);
			cases++;
			if (leafPath(roots, leafId, false)) walked++;
			else refused++;
		}
	}
	// Not vacuous: most layouts took the walk, and some (orphans on the path) the index.
	assert.ok(walked > cases * 0.6, `walked ${walked} of ${cases}`);
	assert.ok(refused > 20, `refused ${refused} of ${cases}`);
});

test("a layout's activePath, where it gives one, marks the rows its active ids do, read top to bottom (random sessions, depths, folds)", async (t) => {
	const dir = tempDir();
	let given = 0;
	let checked = 0;
	for (let seed = 1; seed <= 500; seed++) {
		const { session, ids } = await randomSession(dir, `p${seed}`, seed);
		const pick = mulberry32(seed * 104729);
		for (let step = 0; step < 6; step++) {
			const roots: SessionTreeNode[] = session.getTree();
			const leafId = ids[Math.floor(pick() * ids.length)] as string;
			const filter = pick() < 0.15 ? "default" : undefined;
			const depth = pick() < 0.3 ? Math.floor(pick() * 6) : undefined;
			const fold = pick() < 0.15;
			const options: TreeLayoutOptions = {
				leafId,
				...(filter ? { filter } : {}),
				...(depth !== undefined ? { depth } : {}),
				...(fold ? { fold, foldLimit: 4 } : {}),
			};
			const what = `seed ${seed}, leaf ${leafId}, ${filter}, depth ${depth}, fold ${fold}`;
			const layout = layoutTree(roots, options);
			const path = layout.activePath;
			if (path === undefined) continue;
			given++;
			assert.ok(!fold, `${what}: no path given with folds (a folded run hides path nodes)`);
			// As tree-text.ts reads it: a row is on the path when it is the path's next node.
			let next = 0;
			for (const row of layout.rows) {
				if (row.kind !== "entry") continue;
				const byNode: boolean = row.node === path[next];
				if (byNode) next++;
				assert.equal(byNode, layout.active.has(viewId(row.node)), `${what}: row ${viewId(row.node)}`);
				checked++;
			}
		}
	}
	// Not vacuous: paths were given, and rows checked against them.
	t.diagnostic(`${given} layouts gave their path, ${checked} rows checked`);
	assert.ok(given > 100, `paths given in ${given} layouts`);
	assert.ok(checked > 1_000, `${checked} rows checked`);
});

test("views that are not a session's nodes are laid out through the index", () => {
	// Two views with the same id: the index keeps the later; a walk would find the first.
	const entry = (id: string, parentId: string | null) =>
		({
			type: "message",
			id,
			parentId,
			timestamp: "2026-01-01T00:00:00.000Z",
			message: { role: "user", content: id },
		}) as unknown as SessionEntry;
	const roots: SessionTreeNode[] = [
		{ entry: entry("a", null), children: [{ entry: entry("b", "a"), children: [] }] },
		{ entry: entry("c", null), children: [{ entry: entry("d", "c"), children: [] }] },
	];
	assert.equal(leafPath(roots, "d", false), undefined);
	const once = layoutTree(roots, { leafId: "d" });
	assert.deepEqual([...once.active], ["d", "c"]);
	assert.equal(once.leafShownAt, "d");
	assert.equal(viewId(roots[1] as SessionTreeNode), "c");
});
