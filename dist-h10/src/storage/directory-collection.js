/**
 * A directory tree of JSONL session files as a {@link SessionCollection}, with pi's layout:
 * one project's directory (`<agentDir>/sessions/--<cwd>--/`), every project under the sessions
 * root, or directories and files given explicitly. A directory holds its `*.jsonl` files and
 * those of its direct subdirectories, so a project directory and a sessions root both work.
 * Each session opens as a {@link FileSessionStore}.
 */
import { readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { SessionTreeError } from "../core/errors.js";
import { FileSessionStore } from "./file-store.js";
import { defaultSessionDir, sessionsRoot } from "./paths.js";
const CAPABILITIES = Object.freeze({ listing: true, search: false });
/** The session files under some directories (and some files given as they are). */
export class DirectoryCollection {
    capabilities = CAPABILITIES;
    /** The first path, absolute: where the collection is, for messages. */
    location;
    paths;
    options;
    /**
     * @param paths directories (their `*.jsonl` files and those of their direct subdirectories)
     *   and files (listed as they are); a path that does not exist holds no sessions
     * @param options how the stores of its sessions are opened
     */
    constructor(paths, options = {}) {
        this.paths = (typeof paths === "string" ? [paths] : paths).map((path) => resolve(path));
        this.location = this.paths[0] ?? resolve(".");
        this.options = options;
    }
    /** The sessions of the project whose working directory is `cwd`, in pi's layout. */
    static project(cwd, agentDir, options) {
        return new DirectoryCollection(defaultSessionDir(resolve(cwd), agentDir), options);
    }
    /** The sessions of every project under `<agentDir>/sessions/`. */
    static allProjects(agentDir, options) {
        return new DirectoryCollection(sessionsRoot(agentDir), options);
    }
    /**
     * The sessions of a directory the user named, which must exist.
     * @throws SessionTreeError FILE_NOT_FOUND for a missing directory, INVALID_ARGUMENT for a file
     */
    static directory(dir, options) {
        const stats = statOrUndefined(resolve(dir));
        if (!stats)
            throw new SessionTreeError("FILE_NOT_FOUND", "no such directory", { file: dir });
        if (!stats.isDirectory()) {
            throw new SessionTreeError("INVALID_ARGUMENT", "not a directory (give a directory of session files)", {
                file: dir,
            });
        }
        return new DirectoryCollection(dir, options);
    }
    /** Every session file, by path, each once, with its modification time and size. */
    async *list() {
        const seen = new Set();
        for (const path of this.paths) {
            const stats = statOrUndefined(path);
            const files = stats?.isDirectory() ? sessionFilesIn(path) : stats?.isFile() ? [{ path, stats }] : [];
            for (const file of files) {
                if (seen.has(file.path))
                    continue;
                seen.add(file.path);
                yield { location: file.path, modified: file.stats.mtime, bytes: file.stats.size };
            }
        }
    }
    open(location) {
        return new FileSessionStore(resolve(location), this.options);
    }
}
/** The *.jsonl files directly in `dir` and in its direct subdirectories, sorted by path. */
function sessionFilesIn(dir) {
    const files = [];
    const addFile = (path, item) => {
        if (!item.name.endsWith(".jsonl"))
            return;
        const stats = statOrUndefined(path);
        if (stats?.isFile())
            files.push({ path, stats });
    };
    for (const item of listDir(dir)) {
        const path = join(dir, item.name);
        if (isDirectory(item, path)) {
            for (const inner of listDir(path))
                addFile(join(path, inner.name), inner);
        }
        else {
            addFile(path, item);
        }
    }
    return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
function listDir(dir) {
    try {
        return readdirSync(dir, { withFileTypes: true });
    }
    catch {
        return [];
    }
}
/** Whether a directory entry is a directory, following symbolic links. */
function isDirectory(item, path) {
    if (item.isDirectory())
        return true;
    return item.isSymbolicLink() && statOrUndefined(path)?.isDirectory() === true;
}
/** The stats of a path (following symbolic links), or undefined when it cannot be seen. */
function statOrUndefined(path) {
    try {
        return statSync(path);
    }
    catch {
        return undefined;
    }
}
//# sourceMappingURL=directory-collection.js.map