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
 */
export function toolPairingOfRecords(records: readonly RawRecord[], name: string): ToolPairingReport {
	const { tree } = loadTree(
		records.map((record, i) => ({ line: i + 1, record })),
		{ lenient: true, file: name },
	);
	return checkToolPairing(buildContextEntries(tree.getBranch()));
}
