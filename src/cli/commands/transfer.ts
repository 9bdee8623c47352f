/** `session-tree copy` and `session-tree prune`: sessions between stores, and old ones out of a store. */

import { mkdirSync, statSync } from "node:fs";
import { copyLocation, type PruneRule, pruneCandidates } from "../../catalog/transfer.js";
import { countOf, sanitize } from "../../render/preview.js";
import { collectionAt, schemeOf } from "../../storage/locations.js";
import { CliError, type CommandHandler, requiredPositional, UsageError, wholeNumberOption } from "../args.js";
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

/** Runs `session-tree copy`; its name, options and help are in its spec (src/cli/specs/stores.ts). */
export const copyCommand: CommandHandler = {
	async run({ positionals, values, io }) {
		const source = requiredPositional(positionals, 0);
		const target = requiredPositional(positionals, 1);
		prepareTarget(target);
		let failed = 0;
		let copied = 0;
		const update = values.update === true;
		for await (const event of copyLocation(source, target, isDirectory, { update })) {
			if (event.kind === "copied") {
				copied++;
				io.out(`${sanitize(event.location)}\n`);
			} else if (event.kind === "completed") {
				// An interrupted copy made whole: its location is a result, as a new copy's is.
				copied++;
				io.err(`session-tree: ${sanitize(event.source)}: completed: ${countOf(event.appended, "record")} appended\n`);
				io.out(`${sanitize(event.location)}\n`);
			} else if (event.kind === "updated") {
				copied++;
				const leaf = event.leafMoved ? " (the last one moves its leaf to the source's)" : "";
				io.err(
					`session-tree: ${sanitize(event.source)}: updated: ${countOf(event.appended, "record")} appended${leaf}\n`,
				);
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

/** Runs `session-tree prune`; its name, options and help are in its spec (src/cli/specs/stores.ts). */
export const pruneCommand: CommandHandler = {
	async run({ positionals, values, io }) {
		const location = requiredPositional(positionals, 0);
		if ((values["older-than"] === undefined) === (values.keep === undefined)) {
			throw new UsageError("give either --older-than DAYS or --keep N", "prune");
		}
		const olderThanDays = wholeNumberOption(values, "older-than", 0, "prune");
		// Without --older-than, --keep is given (checked above).
		const rule: PruneRule =
			olderThanDays !== undefined ? { olderThanDays } : { keep: wholeNumberOption(values, "keep", 0, "prune") ?? 0 };
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
