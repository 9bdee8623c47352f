/**
 * `session-tree/testing`: the conformance suite of the storage contract, for `node:test`.
 * Every store, ours or yours, passes it by handing it a factory of stores:
 *
 * @example
 * ```ts
 * // my-store.test.ts, run with `node --test`
 * import { storeConformance } from "session-tree/testing";
 * import { MyStore } from "./my-store.js";
 *
 * storeConformance("MyStore", {
 *   newStore: () => new MyStore(crypto.randomUUID()),
 *   sameSession: (store) => new MyStore(store.location),
 * });
 * ```
 * @packageDocumentation
 */
export { storeConformance } from "./conformance.js";
export { RecordingStore } from "./helpers.js";
//# sourceMappingURL=index.js.map