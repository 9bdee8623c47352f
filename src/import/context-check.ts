/**
 * The context check of an imported session (see `checkToolPairing` in src/core/tool-pairing.ts):
 * what a provider would refuse in the context at the import's leaf. On imports it is the
 * importer's job to leave none of it where the source had the result, so every import reports it.
 */

import { buildContextEntries } from "../core/context.js";
import { loadTree } from "../core/load.js";
import type { RawRecord } from "../core/migrate.js";
import { checkToolPairing, type ToolPairingReport } from "../core/tool-pairing.js";

/**
 * The tool pairing of the context at the leaf of a session made of `records` (the header
 * first, as `sessionRecords` gives them): read by the core's reducer as a session would read
 * them, leniently (an import's records are well formed; nothing here may fail an import).
 * Only the leaf's branch is read: the records from the header's leaf (`leafId`, the last entry
 * when undefined) back to the root, so that a wide import (200,000 regenerations under one
 * node) costs a map of ids, not a second tree beside the one being written.
 */
export function toolPairingOfRecords(
	records: readonly RawRecord[],
	name: string,
	leafId?: string | null,
): ToolPairingReport {
	const [header, ...rest] = records;
	if (header === undefined) return checkToolPairing([]);
	const byId = new Map<string, RawRecord>();
	let last: string | undefined;
	for (const record of rest) {
		if (record.type === "leaf" || typeof record.id !== "string") continue;
		byId.set(record.id, record);
		last = record.id;
	}
	// A loop of parent links (never in an import, but cheap to stop) ends the walk.
	const branch: RawRecord[] = [];
	const seen = new Set<string>();
	for (let id = leafId === undefined ? last : leafId; typeof id === "string" && !seen.has(id); ) {
		seen.add(id);
		const record = byId.get(id);
		if (!record) break;
		branch.push(record);
		id = typeof record.parentId === "string" ? record.parentId : undefined;
	}
	branch.push(header);
	branch.reverse();
	const { tree } = loadTree(
		branch.map((record, i) => ({ line: i + 1, record })),
		{ lenient: true, file: name },
	);
	return checkToolPairing(buildContextEntries(tree.getBranch()));
}
