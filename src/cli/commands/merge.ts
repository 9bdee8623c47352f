/** `session-tree merge`: two copies of one session joined into a new session (src/catalog/merge.ts). */

import { statSync } from "node:fs";
import { type MergedSession, mergeSessions, readMerge } from "../../catalog/merge.js";
import { isCollectionLocation } from "../../catalog/transfer.js";
import type { MergeLeaf, MergeOptions, MergeReport } from "../../core/merge.js";
import { countOf, groupDigits, sanitize } from "../../render/preview.js";
import type { CopyTarget } from "../../storage/batches.js";
import { encodeRecord } from "../../storage/codec.js";
import { collectionAt, storeAt } from "../../storage/locations.js";
import { type CliIO, type CommandHandler, requiredPositional, stringValue, UsageError } from "../args.js";
import { jsonLine } from "../json.js";

/** `-o -`: the union's JSONL on stdout. */
const STDOUT_NAME = "-";

/** True for a path (or `file:` URL) that is a directory now. */
function isDirectory(location: string): boolean {
	const path = location.startsWith("file:") ? new URL(location) : location;
	return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}

/** The value of `--leaf`. */
function leafOption(values: Record<string, string | boolean | undefined>): MergeLeaf {
	const leaf = stringValue(values, "leaf") ?? "newer";
	if (leaf !== "a" && leaf !== "b" && leaf !== "newer") {
		throw new UsageError(`option --leaf takes a, b or newer, not ${JSON.stringify(leaf)}`, "merge");
	}
	return leaf;
}

/** Runs `session-tree merge`; its name, options and help are in its spec (src/cli/specs/merge.ts). */
export const mergeCommand: CommandHandler = {
	async run({ positionals, values, io }) {
		const nameA = requiredPositional(positionals, 0);
		const nameB = requiredPositional(positionals, 1);
		const out = stringValue(values, "out");
		if (out === undefined) {
			// Never a default output: writing to A (or anywhere the user did not name) would rewrite their data.
			throw new UsageError(
				"name the new session with -o OUT (a file, a session URL or a store; `-o -` prints it): merge never writes to A or B",
				"merge",
			);
		}
		const json = values.json === true;
		if (out === STDOUT_NAME && json)
			throw new UsageError("-o - prints the session on stdout: no room for --json", "merge");
		const options: MergeOptions = { leaf: leafOption(values), force: values.force === true };
		const a = storeAt(nameA);
		const b = storeAt(nameB);
		try {
			if (out === STDOUT_NAME) {
				const { records, report } = await readMerge(a, b, options);
				for (const record of records) io.out(encodeRecord(record, a.location));
				tellReport(io, report, a.location, b.location, undefined);
				return;
			}
			const target: CopyTarget = isCollectionLocation(out, isDirectory)
				? { collection: collectionAt(out) }
				: { location: out };
			try {
				const merged = await mergeSessions(a, b, target, options);
				if (json) io.out(jsonLine(jsonReport(merged, a.location, b.location)));
				else {
					tellReport(io, merged.report, a.location, b.location, merged);
					io.out(`${sanitize(merged.location)}\n`);
				}
			} finally {
				if ("collection" in target) await target.collection.close?.();
			}
		} finally {
			await a.close();
			await b.close();
		}
	},
};

/** What `--json` prints: the outcome, both copies, and the report with each conflict naming them. */
function jsonReport(merged: MergedSession, a: string, b: string): unknown {
	const { report } = merged;
	return {
		location: merged.location,
		outcome: merged.outcome,
		a,
		b,
		sessionIds: report.sessionIds,
		fromA: report.fromA,
		fromB: report.fromB,
		shared: report.shared,
		moved: report.moved,
		conflicts: report.conflicts.map((conflict) => ({ ...conflict, a, b })),
		leaf: { ...report.leaf, recordId: report.leaf.recordId ?? null },
		names: report.names
			? { a: report.names.a ?? null, b: report.names.b ?? null, merged: report.names.merged ?? null }
			: null,
		labels: report.labels.map((label) => ({
			targetId: label.targetId,
			a: label.a ?? null,
			b: label.b ?? null,
			merged: label.merged ?? null,
		})),
	};
}

/** The report on stderr: each conflict and disagreement, then one line of what the union holds. */
function tellReport(io: CliIO, report: MergeReport, a: string, b: string, merged: MergedSession | undefined): void {
	const say = (text: string) => io.err(`session-tree: ${sanitize(text)}\n`);
	for (const conflict of report.conflicts) {
		const following =
			conflict.renamedReferences > 0
				? ` (${countOf(conflict.renamedReferences, "record")} of B naming it follow it)`
				: "";
		say(
			`warning: entry ${conflict.id} differs between ${a} and ${b}: B's version is kept as ${conflict.newId}${following}`,
		);
	}
	if (report.sessionIds.a !== report.sessionIds.b) {
		say(
			`warning: merged two sessions (${report.sessionIds.a}, ${report.sessionIds.b}) as --force asked; A's header kept`,
		);
	}
	const quoted = (name: string | undefined) => (name === undefined ? "none" : JSON.stringify(name));
	if (report.names) {
		say(
			`note: the copies name the session differently: A ${quoted(report.names.a)}, B ${quoted(report.names.b)}; in effect: ${quoted(report.names.merged)}`,
		);
	}
	for (const label of report.labels) {
		say(
			`note: entry ${label.targetId} is labelled ${quoted(label.a)} in A and ${quoted(label.b)} in B; in effect: ${quoted(label.merged)}`,
		);
	}
	if (report.moved > 0) say(`note: ${countOf(report.moved, "record")} moved after its parent, which came later`);
	const why = { chosen: "as --leaf asked", newer: "the newer copy", tie: "the copies are equally new" }[
		report.leaf.reason
	];
	const leaf = report.leaf.merged ?? "before the first entry";
	say(
		`merged: ${countOf(report.fromA, "record")} of A and ${groupDigits(report.fromB)} more of B (${groupDigits(report.shared)} in both); leaf: ${leaf}, ${report.leaf.from === "a" ? "A" : "B"}'s (${why})`,
	);
	if (merged?.outcome === "already") say(`${merged.location} already holds this merge: nothing written`);
}
