/**
 * Which sessions a collection command looks at: pi's project directory for a working directory
 * (the default), every project directory (`--all`), a directory given by the user, or a
 * collection by location (`memory:` for the sessions of this process).
 */
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { SessionTreeError } from "../core/errors.js";
import { DirectoryCollection } from "../storage/directory-collection.js";
import { schemeOf } from "../storage/locations.js";
import { MemoryCollection } from "../storage/memory-store.js";
import { defaultAgentDir } from "../storage/paths.js";
/**
 * The collection a location names: `memory:` for the memory sessions of this process, else a
 * directory of session files (a path or a `file:` URL; it must exist).
 * @throws SessionTreeError FILE_NOT_FOUND or INVALID_ARGUMENT for a directory that is missing or
 *   a file, INVALID_ARGUMENT for a scheme with no collection
 */
export function collectionAt(location) {
    const scheme = schemeOf(location);
    if (scheme === undefined)
        return DirectoryCollection.directory(location);
    if (scheme === "file")
        return DirectoryCollection.directory(fileURLToPath(location));
    if (scheme === "memory") {
        if (location.length > "memory:".length) {
            throw new SessionTreeError("INVALID_ARGUMENT", "the memory collection is memory: (all memory sessions)", {
                file: location,
            });
        }
        return new MemoryCollection();
    }
    throw new SessionTreeError("INVALID_ARGUMENT", `no session collection for ${scheme}: locations (built in: a directory, memory:)`, {
        file: location,
    });
}
/**
 * Chooses the sessions to list or search.
 * @throws SessionTreeError for a `dir` that is missing, a file, or a location of an unknown scheme
 */
export function selectCollection(options = {}) {
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
//# sourceMappingURL=discover.js.map