/**
 * The context check of an imported session (see `checkToolPairing` in src/core/tool-pairing.ts):
 * what a provider would refuse in the context at the import's leaf. On imports it is the
 * importer's job to leave none of it where the source had the result, so every import reports it.
 */

import { buildContextEntries } from "../core/context.js";
import { loadTree } from "../core/load.js";
import type { RawRecord } from "../core/records.js";
import { checkToolPairing, type ToolPairingReport } from "../core/tool-pairing.js";

/**
 * The tool pairing of the context at the leaf of a session made of `records` (the header
 * first, as `sessionRecords` gives them): read by the core's reducer as a session would read
 * them, leniently (an import's records are well formed; nothing here may fail an import).
 * Only the leaf's branch is read: the records from the leaf (`leafId`, the last entry when
 * undefined) back to the root, so that a wide import (200,000 regenerations under one node)
 * costs one backward scan, not a second tree beside the one being written.
 */
export function toolPairingOfRecords(
	records: readonly RawRecord[],
	name: string,
	leafId?: string | null,
): ToolPairingReport {
	const [header, ...rest] = records;
	if (header === undefined) return checkToolPairing([]);
	const branch: RawRecord[] = [];
	// Importers write a parent before its children, so the branch is found scanning back from
	// the leaf (one pass, no index of ids); a parent written after its child is looked up by id.
	let at = rest.length - 1;
	const isEntry = (record: RawRecord) => record.type !== "leaf" && typeof record.id === "string";
	let want: string | null = leafId === undefined ? null : leafId;
	if (leafId === undefined) {
		while (at >= 0 && !isEntry(rest[at] as RawRecord)) at--;
		want = at >= 0 ? String((rest[at] as RawRecord).id) : null;
	}
	let byId: Map<unknown, RawRecord> | undefined;
	while (want !== null) {
		while (at >= 0 && (rest[at] as RawRecord).id !== want) at--;
		let record = rest[at];
		if (record === undefined) {
			// Not before its child: looked up by id instead (a source written in another order).
			byId ??= new Map(rest.filter(isEntry).map((each) => [each.id, each]));
			record = byId.get(want);
			if (record === undefined || branch.length > rest.length) break; // a loop of parent links
			at = rest.indexOf(record);
		}
		branch.push(record);
		at--; // a parent lies strictly before its child (a record naming itself ends the branch)
		want = typeof record.parentId === "string" ? record.parentId : null;
	}
	branch.push(header);
	branch.reverse();
	const { tree } = loadTree(
		branch.map((record, i) => ({ line: i + 1, record })),
		{ lenient: true, file: name },
	);
	return checkToolPairing(buildContextEntries(tree.getBranch()));
}
