/** Sessions as a collection: choosing, summarising and searching them through their stores and the reducer. */
export { collectionAt, selectCollection } from "./discover.js";
export { CatalogSession, listSessions, readListed, readSession, SkippedFile } from "./read.js";
export { compileQuery, InvalidPattern, makeSnippet, newestFirst, searchSession, searchSessions, } from "./search.js";
export { summarizeSession, summarizeSessions, } from "./summary.js";
//# sourceMappingURL=index.js.map