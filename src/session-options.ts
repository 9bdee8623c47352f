/** The options and results of the session facade (src/session.ts). */

import type { RandomBytes } from "./core/ids.js";
import type { Durability } from "./storage/store.js";

/** Clock and randomness, replaceable for reproducible sessions (the demo, tests). */
export interface SessionEnvironment {
	/** Current time. Default `() => new Date()`. */
	now?: () => Date;
	/** Random bytes for ids. Default: Web Crypto. */
	random?: RandomBytes;
}

/** Options of {@link Session.create}. */
export interface CreateSessionOptions extends SessionEnvironment {
	/**
	 * Where to create it: a path, a `file:` URL, `memory:NAME`, or a location of a registered
	 * store scheme (see `registerStoreScheme`). Takes precedence over `file` and `dir`.
	 */
	location?: string;
	/** The agent's working directory, stored in the header. Default `process.cwd()`. */
	cwd?: string;
	/** The exact file to create. Default: `<dir>/<timestamp>_<id>.jsonl`. */
	file?: string;
	/**
	 * Directory for the new file, or a store holding many sessions (`sqlite:PATH`,
	 * `postgres://…`: the session is keyed by its id there). Default: pi's layout,
	 * `<agentDir>/sessions/--<cwd>--/`.
	 */
	dir?: string;
	/** pi's agent directory. Default `$PI_CODING_AGENT_DIR` or `~/.pi/agent`. */
	agentDir?: string;
	/** Session id. Default: a fresh UUID v7. */
	id?: string;
	/** Location of the session this one derives from. */
	parentSession?: string;
	/** How durable an acknowledged append is; default "none" (pi's behaviour). See docs/durability.md. */
	durability?: Durability;
}

/** Options of {@link Session.open}. */
export interface OpenSessionOptions extends SessionEnvironment {
	/**
	 * Load what can be loaded and report problems in {@link Session.problems} instead of
	 * throwing. Gaps (missing parents) are bridged to the previous entry in the file.
	 */
	lenient?: boolean;
	/** How durable an acknowledged append is; default "none" (pi's behaviour). See docs/durability.md. */
	durability?: Durability;
	/**
	 * Parse every line now. By default, the bulk of a large file (messages, summaries,
	 * compactions and settings changes in pi's layout; not labels, names or custom entries) is
	 * indexed by envelope at open, and each body is parsed, and checked, on first use; the
	 * active context is read at open. With `verify`, a bad body is found at open (strict:
	 * thrown; lenient: in {@link Session.problems}) instead of when first read.
	 */
	verify?: boolean;
	/**
	 * `"all"` (the default) reads the whole tree. `"context"` reads only what the leaf's context
	 * needs when the store can (a file whose active path meets a compaction with `retainedTail`,
	 * or the root, near its end, read from the end alone; a database store's active path, read
	 * by index up to such a compaction or the root): what an agent resuming a session needs. Then the
	 * header, the leaf and its context are at hand, any write reads the rest first, and other
	 * reads throw NOT_LOADED until `await session.load()`. Ignored with `lenient` or `verify`.
	 */
	load?: "all" | "context";
}

/** Options of {@link Session.fork}. */
export interface ForkOptions {
	/** Where to create the copy (any location). Default: beside this session, in the same kind of store. */
	location?: string;
	/** The exact file to create (file sessions). */
	file?: string;
	/**
	 * Directory for the new file (whatever store the source is in), or a store holding many sessions (`sqlite:PATH`,
	 * `postgres://…`). Default: beside the source, in the same kind of store.
	 */
	dir?: string;
}

/** What {@link Session.navigate} did. */
export interface NavigateResult {
	/** The leaf after navigating. */
	leafId: string | null;
	/** For a user or custom message: its text, to edit and send again. */
	editorText?: string;
	/** Id of the branch summary entry, when a summary was given. */
	summaryEntryId?: string;
}

/** Options of {@link Session.navigate}. */
export interface NavigateOptions {
	/** Leave a branch summary at the new position explaining what was left behind. */
	summary?: string;
	details?: unknown;
	fromHook?: boolean;
}

/** Options of {@link Session.refresh}. */
export interface RefreshOptions {
	/**
	 * Which leaf the session has afterwards. `"keep"` (the default): its own, as a writer
	 * wants (others' leaf moves do not move it). `"stream"`: the leaf the store now names, as
	 * a fresh open would choose it (the last persisted-leaf record's target, else the last
	 * entry), as a reader that follows the session wants (a live view, a tail).
	 */
	leaf?: "keep" | "stream";
}
