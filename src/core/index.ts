/**
 * The pure core of session-tree: entry types, ids, the in-memory tree, context building,
 * loading and migration. No I/O; usable in any JavaScript runtime.
 * @packageDocumentation
 */

export * from "./context.js";
export * from "./copy.js";
export * from "./entries.js";
export * from "./errors.js";
export * from "./id-prefix.js";
export * from "./ids.js";
export * from "./lazy.js";
export * from "./load.js";
export * from "./migrate.js";
export { MAX_NESTING, nestingPath } from "./nesting.js";
export * from "./reducer.js";
export * from "./tail.js";
export * from "./tokens.js";
export * from "./tool-pairing.js";
export * from "./tree.js";
export * from "./types.js";
