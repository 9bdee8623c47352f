/**
 * A directory tree of JSONL session files as a {@link SessionCollection}, with pi's layout:
 * one project's directory (`<agentDir>/sessions/--<cwd>--/`), every project under the sessions
 * root, or directories and files given explicitly. A directory holds the `*.jsonl` files below
 * it at any depth, so a project directory, a sessions root and an agent's dated tree
 * (`~/.codex/sessions/YYYY/MM/DD/`) all work.
 * Each session opens as a {@link FileSessionStore}.
 */

import { type Dirent, readdirSync, type Stats, statSync, unlinkSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import { SessionTreeError } from "../core/errors.js";
import type { SessionHeader } from "../core/types.js";
import { errorCode } from "../core/validate.js";
import { FileSessionStore, type FileStoreOptions } from "./file-store.js";
import { defaultSessionDir, sessionFileName, sessionsRoot } from "./paths.js";
import type { CollectionCapabilities, SessionCollection, SessionListing } from "./store.js";

const CAPABILITIES: CollectionCapabilities = Object.freeze({ listing: true, search: false, remove: true });

/** The session files under some directories (and some files given as they are). */
export class DirectoryCollection implements SessionCollection {
	readonly capabilities = CAPABILITIES;
	/** The first path, absolute: where the collection is, for messages. */
	readonly location: string;
	private readonly paths: readonly string[];
	private readonly options: FileStoreOptions;

	/**
	 * @param paths directories (the `*.jsonl` files below them, at any depth)
	 *   and files (listed as they are); a path that does not exist holds no sessions
	 * @param options how the stores of its sessions are opened
	 */
	constructor(paths: string | readonly string[], options: FileStoreOptions = {}) {
		this.paths = (typeof paths === "string" ? [paths] : paths).map((path) => resolve(path));
		this.location = this.paths[0] ?? resolve(".");
		this.options = options;
	}

	/** The sessions of the project whose working directory is `cwd`, in pi's layout. */
	static project(cwd: string, agentDir: string, options?: FileStoreOptions): DirectoryCollection {
		return new DirectoryCollection(defaultSessionDir(resolve(cwd), agentDir), options);
	}

	/** The sessions of every project under `<agentDir>/sessions/`. */
	static allProjects(agentDir: string, options?: FileStoreOptions): DirectoryCollection {
		return new DirectoryCollection(sessionsRoot(agentDir), options);
	}

	/**
	 * The sessions of a directory the user named, which must exist.
	 * @throws SessionTreeError FILE_NOT_FOUND for a missing directory, INVALID_ARGUMENT for a file
	 */
	static directory(dir: string, options?: FileStoreOptions): DirectoryCollection {
		const stats = statOrUndefined(resolve(dir));
		if (!stats) throw new SessionTreeError("FILE_NOT_FOUND", "no such directory", { file: dir });
		if (!stats.isDirectory()) {
			throw new SessionTreeError("INVALID_ARGUMENT", "not a directory (give a directory of session files)", {
				file: dir,
			});
		}
		return new DirectoryCollection(dir, options);
	}

	/** Every session file, by path, each once, with its modification time and size. */
	async *list(): AsyncIterable<SessionListing> {
		const seen = new Set<string>();
		for (const path of this.paths) {
			const stats = statOrUndefined(path);
			const files = stats?.isDirectory() ? sessionFilesUnder(path) : stats?.isFile() ? [{ path, stats }] : [];
			for (const file of files) {
				if (seen.has(file.path)) continue;
				seen.add(file.path);
				yield { location: file.path, modified: file.stats.mtime, bytes: file.stats.size };
			}
		}
	}

	open(location: string): FileSessionStore {
		return new FileSessionStore(resolve(location), this.options);
	}

	/** A file named as pi names it (`<timestamp>_<id>.jsonl`) in the collection's first directory. */
	sessionFor(header: SessionHeader): FileSessionStore {
		return new FileSessionStore(join(this.location, sessionFileName(header.timestamp, header.id)), this.options);
	}

	/**
	 * Deletes a session file this collection lists (one unlink: the file is there whole or gone).
	 * @throws SessionTreeError INVALID_ARGUMENT for a path the collection does not hold,
	 *   FILE_NOT_FOUND for a session that does not exist (as the other collections)
	 */
	async remove(location: string): Promise<void> {
		const path = resolve(location);
		if (!path.endsWith(".jsonl") || !this.holds(path)) {
			throw new SessionTreeError("INVALID_ARGUMENT", "not a session file of this collection", { file: location });
		}
		try {
			unlinkSync(path);
		} catch (error) {
			if (errorCode(error) === "ENOENT")
				throw new SessionTreeError("FILE_NOT_FOUND", "no such session", { file: path });
			throw error;
		}
	}

	/** True for a file given as it is, or one below a directory of the collection (at any depth). */
	private holds(path: string): boolean {
		return this.paths.some((root) => root === path || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`));
	}
}

/** Options of {@link sessionFilesUnder}. */
export interface WalkOptions {
	/** Files sit at most this many levels below the directory (1: in it). Default: any depth. */
	depth?: number;
	/**
	 * Which files are sessions, by their path below the directory (`/`-separated); default:
	 * every `*.jsonl`.
	 */
	accept?: (relative: string) => boolean;
	/** Leave out directories whose name starts with a dot. Default false. */
	skipHidden?: boolean;
}

/**
 * The session files under `dir` at any depth (or at most `depth` levels down), sorted by path:
 * the `*.jsonl` files, or those `accept` takes. Symbolic links to directories are followed, but
 * never into a directory the walk is already inside (by device and inode), so a link loop ends. An older `X.json` beside an
 * `X.jsonl` is left out (Gemini CLI wrote the `.jsonl` from it when it resumed the session).
 */
export function sessionFilesUnder(dir: string, options: WalkOptions = {}): Array<{ path: string; stats: Stats }> {
	const files: Array<{ path: string; stats: Stats }> = [];
	const accept = options.accept ?? ((relative: string) => relative.endsWith(".jsonl"));
	const inside = new Set<string>();
	const walk = (at: string, below: string, depth: number) => {
		const self = statOrUndefined(at);
		if (!self) return;
		const id = `${self.dev}:${self.ino}`;
		if (inside.has(id)) return;
		inside.add(id);
		const items = listDir(at);
		const present = new Set(items.map((item) => item.name));
		for (const item of items) {
			const path = join(at, item.name);
			const relative = below === "" ? item.name : `${below}/${item.name}`;
			if (isDirectory(item, path)) {
				if (depth > 1 && !(options.skipHidden && item.name.startsWith("."))) walk(path, relative, depth - 1);
				continue;
			}
			if (!accept(relative)) continue;
			if (item.name.endsWith(".json") && present.has(`${item.name}l`)) continue;
			const stats = statOrUndefined(path);
			if (stats?.isFile()) files.push({ path, stats });
		}
		inside.delete(id);
	};
	walk(dir, "", options.depth ?? Number.POSITIVE_INFINITY);
	return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function listDir(dir: string): Dirent[] {
	try {
		return readdirSync(dir, { withFileTypes: true });
	} catch {
		return [];
	}
}

/** Whether a directory entry is a directory, following symbolic links. */
function isDirectory(item: Dirent, path: string): boolean {
	if (item.isDirectory()) return true;
	return item.isSymbolicLink() && statOrUndefined(path)?.isDirectory() === true;
}

/** The stats of a path (following symbolic links), or undefined when it cannot be seen. */
function statOrUndefined(path: string): Stats | undefined {
	try {
		return statSync(path);
	} catch {
		return undefined;
	}
}
