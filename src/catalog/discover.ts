/**
 * Which sessions a collection command looks at: pi's project directory for a working directory
 * (the default), every project directory (`--all`), a directory given by the user, or a
 * collection by location (`memory:` for the sessions of this process).
 */

import { resolve } from "node:path";
import { DirectoryCollection } from "../storage/directory-collection.js";
import { collectionAt } from "../storage/locations.js";
import { defaultAgentDir } from "../storage/paths.js";
import type { SessionCollection } from "../storage/store.js";

/** Where to look. At most one of `dir` and `all`; `cwd` only without both. */
export interface SelectionOptions {
	/**
	 * A project directory or a sessions root (its *.jsonl files and those of its
	 * subdirectories), or the location of a collection such as `memory:`.
	 */
	dir?: string;
	/** Every project directory under `<agentDir>/sessions/`. */
	all?: boolean;
	/** The project whose sessions are listed (default `process.cwd()`). */
	cwd?: string;
	/** For `PI_CODING_AGENT_DIR`. Default `process.env`. */
	env?: NodeJS.ProcessEnv;
}

/** The sessions chosen, and where they were looked for. */
export interface Selection {
	/** Where the sessions were looked for (a directory may not exist for the default and `--all`). */
	root: string;
	/** How the place was chosen, for messages. */
	kind: "project" | "all" | "dir";
	collection: SessionCollection;
}

/**
 * Chooses the sessions to list or search.
 * @throws SessionTreeError for a `dir` that is missing, a file, or a location of an unknown scheme
 */
export function selectCollection(options: SelectionOptions = {}): Selection {
	if (options.dir !== undefined) {
		const collection = collectionAt(options.dir);
		return { root: collection.location, kind: "dir", collection };
	}
	const agentDir = defaultAgentDir(options.env ?? process.env);
	const collection = options.all
		? DirectoryCollection.allProjects(agentDir)
		: DirectoryCollection.project(resolve(options.cwd ?? process.cwd()), agentDir);
	return { root: collection.location, kind: options.all ? "all" : "project", collection };
}
