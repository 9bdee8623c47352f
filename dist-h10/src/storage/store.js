/**
 * The storage contract. The session facade talks only to this, so a database can sit behind
 * it as well as a file. A store keeps one session's records in order and never interprets
 * them (that is the core reducer's job); it only parses and encodes.
 *
 * Every operation is asynchronous. Writes are compare-and-append: the caller says at which
 * position it believes the stream ends; if others appended since, the store appends nothing
 * and hands back what they appended, the caller applies it and tries again. Positions are
 * opaque strings that only the store which issued them interprets. What a store can do beyond
 * the required operations is declared in {@link StoreCapabilities}, never guessed.
 *
 * docs/architecture.md maps each operation onto files and onto SQL; `session-tree/testing`
 * holds the conformance suite every store must pass.
 */
export {};
//# sourceMappingURL=store.js.map