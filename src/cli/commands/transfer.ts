/** `session-tree copy` and `session-tree prune`: sessions between stores, and old ones out of a store. */

import { mkdirSync, statSync } from "node:fs";
import { copyLocation, type PruneRule, pruneCandidates } from "../../catalog/transfer.js";
import { countOf, sanitize } from "../../render/preview.js";
import { collectionAt, schemeOf } from "../../storage/locations.js";
import { CliError, type CommandHandler, requiredPositional, stringValue, UsageError } from "../args.js";
import { jsonLine } from "../json.js";

/** True for a path (or `file:` URL) that is a directory now. */
function isDirectory(location: string): boolean {
	const path = location.startsWith("file:") ? new URL(location) : location;
	return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}

/** A plain path that is not a session file (`*.jsonl`) and does not exist yet is a directory to make. */
function prepareTarget(target: string): void {
	if (schemeOf(target) !== undefined || target.endsWith(".jsonl")) return;
	if (statSync(target, { throwIfNoEntry: false }) === undefined) mkdirSync(target, { recursive: true, mode: 0o700 });
}

/** Runs `session-tree copy`; its name, options and help are in the registry (src/cli/registry.ts). */
export const copyCommand: CommandHandler = {
	async run({ positionals, io }) {
		const source = requiredPositional(positionals, 0);
		const target = requiredPositional(positionals, 1);
		prepareTarget(target);
		let failed = 0;
		let copied = 0;
		for await (const event of copyLocation(source, target, isDirectory)) {
			if (event.kind === "copied") {
				copied++;
				io.out(`${sanitize(event.location)}\n`);
			} else if (event.kind === "completed") {
				// An interrupted copy made whole: its location is a result, as a new copy's is.
				copied++;
				io.err(`session-tree: ${sanitize(event.source)}: completed: ${countOf(event.appended, "record")} appended\n`);
				io.out(`${sanitize(event.location)}\n`);
			} else if (event.kind === "exists") {
				io.err(`session-tree: warning: ${event.source}: not copied: ${event.reason}\n`);
			} else {
				failed++;
				io.err(`session-tree: ${event.error.message}\n`);
			}
		}
		if (failed > 0) throw new CliError(`${countOf(failed, "session")} not copied (${copied} copied)`);
	},
};

/** A whole number option of at least `min`. */
function wholeNumber(text: string, option: string, min: number): number {
	if (!/^\d+$/.test(text) || Number(text) < min) {
		throw new UsageError(
			`option ${option} needs a whole number of at least ${min}, not ${JSON.stringify(text)}`,
			"prune",
		);
	}
	return Number(text);
}

/** Runs `session-tree prune`; its name, options and help are in the registry (src/cli/registry.ts). */
export const pruneCommand: CommandHandler = {
	async run({ positionals, values, io }) {
		const location = requiredPositional(positionals, 0);
		const olderThan = stringValue(values, "older-than");
		const keep = stringValue(values, "keep");
		if ((olderThan === undefined) === (keep === undefined)) {
			throw new UsageError("give either --older-than DAYS or --keep N", "prune");
		}
		const rule: PruneRule =
			olderThan !== undefined
				? { olderThanDays: wholeNumber(olderThan, "--older-than", 0) }
				: { keep: wholeNumber(keep ?? "", "--keep", 0) };
		const collection = collectionAt(location);
		try {
			const remove = collection.remove?.bind(collection);
			if (!collection.capabilities.remove || !remove) {
				throw new CliError(`${collection.location}: this store cannot delete sessions`);
			}
			const chosen = await pruneCandidates(collection, rule, new Date(), (file, format) =>
				io.err(`session-tree: warning: ${file}: another agent's file (${format}): left alone, never pruned\n`),
			);
			const dryRun = values["dry-run"] === true;
			const rows = [];
			for (const listing of chosen) {
				if (!dryRun) await remove(listing.location);
				const row = {
					location: listing.location,
					modified: listing.modified?.toISOString() ?? null,
					bytes: listing.bytes ?? null,
				};
				rows.push(row);
				if (values.json !== true) io.out(`${dryRun ? "would delete " : ""}${sanitize(listing.location)}\n`);
			}
			if (values.json === true) io.out(jsonLine(rows));
			else if (rows.length === 0) io.err("session-tree: nothing to prune\n");
		} finally {
			await collection.close?.();
		}
	},
};
