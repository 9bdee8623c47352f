/**
 * The catalog index for the collection commands: `ls --agents`, `search --agents` and
 * `search TEXT DIR` open the index in the user's cache and bring it up to date with what they
 * look at before they read it (docs/cli.md, "The index"). The first build shows a progress bar
 * on a terminal. Where the index cannot be used (better-sqlite3 is not installed, the cache
 * directory cannot be written), the command reads every session as `--scan` does: the answer
 * is the same, only slower.
 */

import { agentPlaces } from "../../catalog/agents.js";
import {
	agentSources,
	CatalogIndex,
	type IndexedSession,
	type IndexRefresh,
	type IndexSource,
} from "../../catalog/catalog-index/index.js";
import type { SessionSummary } from "../../catalog/summary.js";
import { createProgress } from "../../render/progress.js";

/** An index brought up to date with some sources, and what the refresh found. */
export interface FreshIndex {
	index: CatalogIndex;
	refresh: IndexRefresh;
	source: IndexSource;
}

/**
 * Opens the index and refreshes it from `source` (progress on stderr on a terminal); undefined
 * when the index cannot be used.
 */
export async function freshIndex(source: IndexSource): Promise<FreshIndex | undefined> {
	let index: CatalogIndex;
	try {
		index = await CatalogIndex.open({ env: process.env });
	} catch {
		return undefined;
	}
	const progress = createProgress(process.stderr, { label: "indexing sessions" });
	try {
		const refresh = await index.refresh([source], { onProgress: (done, total) => progress.update(done, total) });
		return { index, refresh, source };
	} catch (error) {
		index.close();
		throw error;
	} finally {
		progress.finish();
	}
}

/** The agents' default places as the index's source (see `agentSources`). */
export function agentsSource(): IndexSource {
	return agentSources(process.env)[0] as IndexSource;
}

/** Where the agents' sessions are, for messages. */
export function agentsRoot(): string {
	return agentPlaces(process.env)
		.map((place) => place.root)
		.join(", ");
}

/** An indexed session as `ls` shows it. */
export function summaryOf(session: IndexedSession): SessionSummary {
	return {
		file: session.location,
		id: session.id,
		cwd: session.cwd,
		name: session.name,
		firstMessage: session.firstMessage,
		modified: session.modified,
		lastActivity: session.lastActivity,
		created: session.created,
		entries: session.entries,
		branches: session.branches,
		bytes: session.bytes,
		parentSession: session.parentSession,
		warnings: session.warnings,
	};
}
