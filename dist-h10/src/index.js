/**
 * session-tree: branching LLM-agent conversations in one append-only JSONL file, in pi's
 * session format (version 3).
 *
 * @example
 * ```ts
 * import { Session } from "session-tree";
 * const session = Session.create({ dir: "./sessions", cwd: process.cwd() });
 * const q = session.appendMessage({ role: "user", content: "hi", timestamp: Date.now() });
 * session.branch(q);
 * console.log(session.buildSessionContext().messages);
 * ```
 * @packageDocumentation
 */
export * from "./core/index.js";
export { Session, } from "./session.js";
export { parseLine } from "./storage/codec.js";
export { FileSessionStore, readFileLines } from "./storage/file-store.js";
export { registerStoreScheme, schemeOf, storeAt, } from "./storage/locations.js";
export { acquireLock } from "./storage/lock.js";
export { MemoryCollection, MemorySessionStore } from "./storage/memory-store.js";
export { defaultAgentDir, defaultSessionDir, sessionFileName, sessionsRoot } from "./storage/paths.js";
//# sourceMappingURL=index.js.map