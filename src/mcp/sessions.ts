/**
 * The sessions `session-tree mcp` answers for: those its sources list, found through the catalog
 * index (the one `serve` and `search --agents` use) and opened as `serve` opens them
 * (serve/sources.ts). A tool names a session by the index's key, or by the session's own id
 * (what an agent knows of its own session); it never names a path, so nothing outside the
 * configured stores is reached.
 */

import { statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { isSessionTreeError } from "../core/errors.js";
import type { IndexedSession, IndexSource, ServeCatalog } from "../serve/catalog.js";
import { throttledRefresh } from "../serve/catalog.js";
import { SessionOpener } from "../serve/sources.js";
import type { Session } from "../session.js";
import { badArgument } from "./reply.js";

/** Sessions kept open between calls (paging a large session's outline reads it once). */
const KEPT = 8;

/** A session kept open, and for another agent's file the size and time it was read at. */
interface Kept {
	session: Session;
	stamp: string | undefined;
}

/** Size and modification time of a file; undefined for a location that is no file (a database row). */
function fileStamp(location: string): string | undefined {
	if (!isAbsolute(location)) return undefined;
	try {
		const stat = statSync(location);
		return `${stat.size}:${stat.mtimeMs}`;
	} catch {
		return undefined;
	}
}

/** What the tools reach sessions through. */
export class McpSessions {
	readonly opener: SessionOpener;
	/** The sessions read lately, least recently used first. */
	private readonly kept = new Map<string, Kept>();
	/** Brings the index up to date, at most once a second unless forced. */
	readonly refresh: (force?: boolean) => Promise<void>;

	constructor(
		readonly catalog: ServeCatalog,
		readonly sources: readonly IndexSource[],
		/** Whether the write tools are on (`--write`). */
		readonly writable: boolean,
		/** Whether secrets are redacted in what is returned (on unless `--no-redact`). */
		readonly redact = true,
	) {
		this.opener = new SessionOpener(sources);
		this.refresh = throttledRefresh(catalog, sources, 1000);
	}

	/**
	 * The session a tool's argument names: a key of the index, or a session id.
	 * @throws McpError naming `argument` when no served session has it
	 */
	async find(ref: string, argument = "session"): Promise<IndexedSession> {
		const known = this.lookUp(ref);
		if (known) return known;
		// A session written since the last look (a fork just made, a new file): look again once.
		await this.refresh(true);
		const found = this.lookUp(ref);
		if (found) return found;
		throw badArgument(argument, `no session has key or id ${JSON.stringify(ref)} (list_sessions and search give them)`);
	}

	private lookUp(ref: string): IndexedSession | undefined {
		if (/^[0-9a-f]{16}$/.test(ref)) {
			const byKey = this.catalog.session(ref);
			if (byKey) return byKey;
		}
		return this.catalog.sessions({}).sessions.find((session) => session.id === ref);
	}

	/**
	 * The session read whole (another agent's file converted in memory, leniently), as it is
	 * now. The last few are kept open: a pi file or a store is then read only from where the last
	 * read ended (`refresh`, which reads a replaced file again whole); another agent's file is
	 * converted again only when its size or time changed.
	 */
	async read(session: IndexedSession): Promise<Session> {
		const kept = this.kept.get(session.key);
		if (kept) {
			this.kept.delete(session.key);
			if (session.writable) {
				await kept.session.refresh({ leaf: "stream" });
				this.keep(session.key, kept);
				return kept.session;
			}
			if (kept.stamp !== undefined && kept.stamp === fileStamp(session.location)) {
				this.keep(session.key, kept);
				return kept.session;
			}
			await kept.session.close().catch(() => undefined);
		}
		const stamp = session.writable ? undefined : fileStamp(session.location);
		const opened = await this.opener.read(session);
		await opened.load();
		this.keep(session.key, { session: opened, stamp });
		return opened;
	}

	private keep(key: string, kept: Kept): void {
		this.kept.set(key, kept);
		for (const [oldest, old] of this.kept) {
			if (this.kept.size <= KEPT) break;
			this.kept.delete(oldest);
			old.session.close().catch(() => undefined);
		}
	}

	/** Closes the sessions kept open and the index. */
	async close(): Promise<void> {
		const kept = [...this.kept.values()];
		this.kept.clear();
		for (const { session } of kept) await session.close().catch(() => undefined);
		this.catalog.close();
	}

	/**
	 * The session opened for a write tool.
	 * @throws McpError naming `session` for another agent's file
	 */
	async write(session: IndexedSession): Promise<Session> {
		try {
			return await this.opener.write(session);
		} catch (error) {
			if (isSessionTreeError(error, "NOT_WRITABLE"))
				throw badArgument("session", "it is another agent's file, which session-tree never writes");
			throw error;
		}
	}
}

/**
 * The full id of an entry a tool's argument names (an id or a unique prefix of one).
 * @throws McpError naming `argument` for one that names no entry or several
 */
export function entryArgument(session: Session, ref: string, argument: string): string {
	try {
		return session.resolveId(ref);
	} catch (error) {
		if (isSessionTreeError(error, "ENTRY_NOT_FOUND"))
			throw badArgument(argument, `no entry of this session has id ${JSON.stringify(ref)}`);
		if (isSessionTreeError(error, "AMBIGUOUS_ID"))
			throw badArgument(argument, `${JSON.stringify(ref)} is the start of several entry ids: give more of it`);
		throw error;
	}
}
