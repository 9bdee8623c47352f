/**
 * What the index keeps of one session, read through the collection's store and the catalog's
 * reader (read.ts, summary.ts): the summary `ls` shows, the leaf, and every entry with its
 * parent, role and searchable texts (the texts search.ts matches). A pi file that only grew is
 * read from where the last read ended (the file store's `readSince`: complete lines only, a
 * partial last line left for next time) and its new entries added, when they are plain appends
 * the reducer would take without a word: fresh ids, parents already there, well-formed. Any
 * other growth is read whole again.
 */

import { createHash } from "node:crypto";
import type { RawRecord } from "../../core/records.js";
import { SEARCHED_TYPES, searchableTexts } from "../../core/search-text.js";
import { CURRENT_SESSION_VERSION } from "../../core/types.js";
import { entryContentError, entryShapeError } from "../../core/validate.js";
import { startsAsPiSession } from "../../storage/lines.js";
import type { SessionListing } from "../../storage/store.js";
import { type CatalogSession, readListed } from "../read.js";
import { Activity, activityOf, summarizeWith, timesOf } from "../summary.js";
import type { EntryRow, NewSessionRow, SessionRow } from "./tables.js";
import type { IndexSource } from "./types.js";

/** Entries whose bodies are parsed at once (bounds the memory a large session takes). */
const BATCH = 4096;

/** Entry types an append may add without a whole read (others, e.g. `session_info`, change more than the tree). */
const APPENDABLE = new Set([
	"message",
	"custom_message",
	"custom",
	"model_change",
	"thinking_level_change",
	"compaction",
	"branch_summary",
	"label",
]);

/** The stable key of a location: the first 16 hex digits of its sha256. */
export function sessionKey(location: string): string {
	return createHash("sha256").update(location).digest("hex").slice(0, 16);
}

/** The columns every row has, from the listing and its source. */
function listedColumns(source: IndexSource, listing: SessionListing) {
	return {
		key: sessionKey(listing.location),
		location: listing.location,
		source: source.name,
		agent: source.agentOf(listing.location),
		writable: source.writable(listing.location) ? 1 : 0,
		listed_bytes: listing.bytes ?? 0,
		listed_ms: listing.modified?.getTime() ?? 0,
	};
}

/** The row of a session that is not one (or cannot be read). */
export function skippedRow(source: IndexSource, listing: SessionListing, reason: string): NewSessionRow {
	return {
		...listedColumns(source, listing),
		skipped: reason,
		id: null,
		cwd: null,
		name: null,
		first_message: null,
		entries: null,
		branches: null,
		modified_ms: null,
		activity_ms: null,
		last_activity_ms: null,
		created_ms: null,
		leaf_id: null,
		parent_session: null,
		warnings: null,
		position: null,
		next_seq: 0,
	};
}

/**
 * The longest run of bodies parsed without letting the event loop turn (ms): a server that
 * builds its index answers meanwhile (the bench's 100,000-entry session's bodies take 1–1.5 s).
 */
const YIELD_MS = 50;

/** The entries of a session in stream order, their searchable texts parsed in batches. */
async function entriesOf(session: CatalogSession): Promise<EntryRow[]> {
	const nodes = session.nodes;
	const rows: EntryRow[] = nodes.map((node) => ({
		entryId: node.id,
		parentId: node.parent?.id ?? null,
		role: node.role ?? node.type,
		timestamp: node.timestamp,
		texts: null,
	}));
	const searched = nodes.flatMap((node, i) => (SEARCHED_TYPES.has(node.type) ? [i] : []));
	let turned = performance.now();
	for (let from = 0; from < searched.length; from += BATCH) {
		if (performance.now() - turned > YIELD_MS) {
			await new Promise((resolve) => setImmediate(resolve));
			turned = performance.now();
		}
		const batch = searched.slice(from, from + BATCH);
		const entries = session.entries(batch.map((i) => nodes[i] as (typeof nodes)[number]));
		batch.forEach((i, k) => {
			const searchable = searchableTexts(entries[k] as object);
			if (!searchable) return;
			const row = rows[i] as EntryRow;
			row.role = searchable.role;
			row.texts = searchable.texts;
		});
	}
	return rows;
}

/**
 * Reads a session whole: its row and entries.
 * @throws SkippedFile for a session that is not one or cannot be read
 */
export async function readWhole(
	source: IndexSource,
	listing: SessionListing,
): Promise<{ row: NewSessionRow; entries: EntryRow[] }> {
	const { value, position, fromVersion } = await readListed(source.collection, listing, async (session) => {
		const activity = activityOf(session);
		return { summary: summarizeWith(session, activity), activity, entries: await entriesOf(session), session };
	});
	const { summary, activity, entries, session } = value;
	const agent = source.agentOf(listing.location);
	// Only a pi file read cleanly may be read on from its position later (see the module comment).
	const appendable =
		fromVersion === CURRENT_SESSION_VERSION &&
		summary.warnings.length === 0 &&
		(agent === null || agent === "pi") &&
		startsAsPiSession(listing.location);
	return {
		row: {
			...listedColumns(source, listing),
			skipped: null,
			id: summary.id,
			cwd: summary.cwd,
			name: summary.name,
			first_message: summary.firstMessage,
			entries: summary.entries,
			branches: summary.branches,
			modified_ms: summary.modified.getTime(),
			activity_ms: activity.last,
			last_activity_ms: summary.lastActivity.getTime(),
			created_ms: summary.created?.getTime() ?? null,
			leaf_id: session.tree.getLeafId(),
			parent_session: summary.parentSession,
			warnings: summary.warnings.length > 0 ? JSON.stringify(summary.warnings) : null,
			position: appendable ? position : null,
			next_seq: entries.length,
		},
		entries,
	};
}

/**
 * Reads what was appended to a pi file since the row's position, and the row and entries to
 * add; undefined when the session must be read whole instead (replaced, shrunk, or grown by
 * anything but plain appends).
 */
export async function readAppended(
	source: IndexSource,
	listing: SessionListing,
	row: SessionRow,
	linksOf: (sid: number) => { ids: Set<string>; parents: Set<string> },
): Promise<{ row: NewSessionRow; entries: EntryRow[] } | undefined> {
	if (row.position === null || row.skipped !== null) return undefined;
	const store = source.collection.open(listing.location);
	let read: Awaited<ReturnType<typeof store.readSince>>;
	try {
		read = await store.readSince(row.position);
	} catch {
		return undefined;
	} finally {
		await store.close();
	}
	if (!read) return undefined;
	const { ids, parents } = linksOf(row.sid);
	const activity = new Activity();
	activity.firstMessage = row.first_message ?? "";
	activity.last = row.activity_ms ?? 0;
	let leaf = row.leaf_id;
	let branches = row.branches ?? 0;
	const entries: EntryRow[] = [];
	for (const line of read.lines) {
		const record = line.record;
		if (!record || line.error || line.torn || line.salvaged) return undefined;
		if (entryShapeError(record) !== undefined || entryContentError(record) !== undefined) return undefined;
		const id = record.id as string;
		if (ids.has(id)) return undefined;
		if (record.type === "leaf") {
			// A persisted leaf (pi's navigate): the leaf moves to an entry already there.
			const target = record.targetId as string | null;
			if (target !== null && !ids.has(target)) return undefined;
			leaf = target;
			continue;
		}
		const parent = record.parentId as string | null;
		if (!APPENDABLE.has(record.type as string) || (parent !== null && !ids.has(parent))) return undefined;
		if (record.type === "label" && !ids.has(record.targetId as string)) return undefined;
		// A new entry is a leaf; its parent stops being one unless it had children already.
		if (parent === null || parents.has(parent)) branches++;
		ids.add(id);
		if (parent !== null) parents.add(parent);
		leaf = id;
		if (record.type === "message") activity.add(record);
		entries.push(entryRowOf(record, id, parent));
	}
	const { sid: _sid, ...kept } = row;
	const created = row.created_ms === null ? null : new Date(row.created_ms);
	const listed = listing.modified ?? new Date(0);
	const { lastActivity, modified } = timesOf(activity.last, created, listed);
	return {
		row: {
			...kept,
			...listedColumns(source, listing),
			first_message: activity.firstMessage || null,
			entries: (row.entries ?? 0) + entries.length,
			branches,
			modified_ms: modified.getTime(),
			activity_ms: activity.last,
			last_activity_ms: lastActivity.getTime(),
			leaf_id: leaf,
			position: read.position,
			next_seq: row.next_seq + entries.length,
		},
		entries,
	};
}

function entryRowOf(record: RawRecord, id: string, parentId: string | null): EntryRow {
	const searchable = SEARCHED_TYPES.has(record.type as string) ? searchableTexts(record) : undefined;
	const message = record.message as { role?: unknown } | undefined;
	const role =
		searchable?.role ?? (record.type === "message" && typeof message?.role === "string" ? message.role : record.type);
	return {
		entryId: id,
		parentId,
		role: String(role),
		timestamp: typeof record.timestamp === "string" ? record.timestamp : null,
		texts: searchable?.texts ?? null,
	};
}
