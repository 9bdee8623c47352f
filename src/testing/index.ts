/**
 * `session-tree/testing`: the conformance suites of the storage contract, for `node:test` or
 * any runner. Every store, ours or yours, passes the store suite by handing it a factory of
 * stores, and every collection the collection suite by handing it a factory of collections:
 *
 * @example
 * ```ts
 * // my-store.test.ts, run with `node --test`
 * import { collectionConformance, storeConformance } from "session-tree/testing";
 * import { MyCollection, MyStore } from "./my-store.js";
 *
 * storeConformance("MyStore", {
 *   newStore: () => new MyStore(crypto.randomUUID()),
 *   sameSession: (store) => new MyStore(store.location),
 * });
 * collectionConformance("MyCollection", { newCollection: () => new MyCollection() });
 * ```
 *
 * The cases are data ({@link STORE_CASES}, {@link COLLECTION_CASES}): another runner runs
 * each case's `run` with a context from {@link storeCaseContext} or
 * {@link collectionCaseContext}, skipping a case whose `needs` the context `lacks`.
 * @packageDocumentation
 */

export { COLLECTION_CASES, STORE_CASES } from "./cases/index.js";
export type {
	CaseContext,
	CollectionCase,
	CollectionCaseContext,
	CollectionNeed,
	ConformanceCase,
	CreatedSession,
	StoreCase,
	StoreCaseContext,
	StoreNeed,
} from "./cases/types.js";
export { collectionConformance, storeConformance } from "./conformance.js";
export {
	type CollectionConformanceTarget,
	type ConformanceTarget,
	collectionCaseContext,
	storeCaseContext,
} from "./contexts.js";
export { type Recorded, RecordingStore } from "./helpers.js";
