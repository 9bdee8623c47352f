/**
 * Which session files a collection command looks at: pi's project directory for a working
 * directory (the default), every project directory (`--all`), or a directory given by the user.
 */

import { type Dirent, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { SessionTreeError } from "../core/errors.js";
import { defaultAgentDir, defaultSessionDir, sessionsRoot } from "../storage/paths.js";

/** Where to look. At most one of `dir` and `all`; `cwd` only without both. */
export interface SelectionOptions {
	/** A project directory or a sessions root: its *.jsonl files and those of its subdirectories. */
	dir?: string;
	/** Every project directory under `<agentDir>/sessions/`. */
	all?: boolean;
	/** The project whose sessions are listed (default `process.cwd()`). */
	cwd?: string;
	/** For `PI_CODING_AGENT_DIR`. Default `process.env`. */
	env?: NodeJS.ProcessEnv;
}

/** The files found, and the directory they were looked for in. */
export interface Selection {
	/** The directory that was searched (it may not exist for the default and `--all`). */
	root: string;
	/** How the directory was chosen, for messages. */
	kind: "project" | "all" | "dir";
	/** Absolute paths of the *.jsonl files, sorted. */
	files: string[];
}

/**
 * Finds the session files to list or search.
 * @throws SessionTreeError FILE_NOT_FOUND for a `dir` that does not exist, INVALID_ARGUMENT for one that is a file
 */
export function selectSessionFiles(options: SelectionOptions = {}): Selection {
	const env = options.env ?? process.env;
	if (options.dir !== undefined) {
		const root = resolve(options.dir);
		let isDirectory: boolean;
		try {
			isDirectory = statSync(root).isDirectory();
		} catch {
			throw new SessionTreeError("FILE_NOT_FOUND", "no such directory", { file: options.dir });
		}
		if (!isDirectory) {
			throw new SessionTreeError("INVALID_ARGUMENT", "not a directory (give a directory of session files)", {
				file: options.dir,
			});
		}
		return { root, kind: "dir", files: sessionFilesIn(root) };
	}
	const agentDir = defaultAgentDir(env);
	if (options.all) {
		const root = resolve(sessionsRoot(agentDir));
		return { root, kind: "all", files: sessionFilesIn(root) };
	}
	const root = resolve(defaultSessionDir(resolve(options.cwd ?? process.cwd()), agentDir));
	return { root, kind: "project", files: sessionFilesIn(root) };
}

/** The *.jsonl files directly in `dir` and in its direct subdirectories; none if `dir` is missing. */
export function sessionFilesIn(dir: string): string[] {
	const files: string[] = [];
	for (const item of listDir(dir)) {
		const path = join(dir, item.name);
		const kind = kindOf(item, path);
		if (kind === "file" && item.name.endsWith(".jsonl")) files.push(path);
		else if (kind === "dir") {
			for (const inner of listDir(path)) {
				const innerPath = join(path, inner.name);
				if (inner.name.endsWith(".jsonl") && kindOf(inner, innerPath) === "file") files.push(innerPath);
			}
		}
	}
	return files.sort();
}

function listDir(dir: string): Dirent[] {
	try {
		return readdirSync(dir, { withFileTypes: true });
	} catch {
		return [];
	}
}

/** A directory entry's kind, following symbolic links. */
function kindOf(item: Dirent, path: string): "file" | "dir" | "other" {
	if (item.isFile()) return "file";
	if (item.isDirectory()) return "dir";
	if (item.isSymbolicLink()) {
		try {
			const stats = statSync(path);
			return stats.isFile() ? "file" : stats.isDirectory() ? "dir" : "other";
		} catch {
			return "other";
		}
	}
	return "other";
}
