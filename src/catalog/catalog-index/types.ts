/** The shapes of the catalog index's API (docs/serve.md, "The index"). */

import type { SessionCollection } from "../../storage/store.js";
import type { Agent } from "../agents.js";
import type { SkippedSession } from "../summary.js";

/** What the index reads: a collection, and for each listed location the agent it belongs to. */
export interface IndexSource {
	/** Stable name of the source, e.g. "agents", a directory path, "sqlite:/x.db", "postgres://…" (password masked). */
	name: string;
	collection: SessionCollection;
	/** The agent a listed location belongs to; null for a place that is no agent's (a STORE argument). */
	agentOf(location: string): Agent | null;
	/** Whether sessions of this source may be written (pi files, sqlite/postgres stores: true; other agents' files: false). */
	writable(location: string): boolean;
}

/** One session as the index keeps it. */
export interface IndexedSession {
	/** Stable key for URLs: the first 16 hex digits of sha256(location). The same after the index is deleted and rebuilt. */
	key: string;
	/** Absolute file path or store URL (as `SessionListing.location`). */
	location: string;
	/** {@link IndexSource.name}. */
	source: string;
	agent: Agent | null;
	writable: boolean;
	id: string;
	cwd: string;
	name: string | null;
	/** The first real prompt (injected text skipped, as `SessionSummary.firstMessage`). */
	firstMessage: string | null;
	/** name ?? firstMessage (one line) ?? `Session ${id}`. */
	title: string;
	entries: number;
	branches: number;
	bytes: number;
	/** As the listing says (file mtime / row's last append). */
	modified: Date;
	lastActivity: Date;
	created: Date | null;
	leafId: string | null;
	parentSession: string | null;
	/** Problems that did not stop the session from being read (as `SessionSummary.warnings`). */
	warnings: string[];
}

/** What a {@link CatalogIndex.refresh} did. */
export interface IndexRefresh {
	/** Sessions the sources listed. */
	sessions: number;
	/** Read whole for the first time. */
	added: number;
	/** Read whole again (changed other than by growing, or grown in a way an append cannot be). */
	changed: number;
	/** Read from where the last read ended (a pi file that only grew). */
	appended: number;
	/** Dropped: no longer listed. */
	removed: number;
	/** Not read: same size and time as before. */
	unchanged: number;
	/** Listed sessions that are not sessions or cannot be read, with the reason. */
	skipped: SkippedSession[];
	ms: number;
}
