/**
 * Every conformance case, as data: {@link STORE_CASES} for the store contract and the session
 * facade on it, {@link COLLECTION_CASES} for the collection contract. Run them with
 * `storeConformance` and `collectionConformance` (node:test), or loop over them with another
 * runner, giving each case a context from `storeCaseContext` or `collectionCaseContext`.
 */

import { COLLECTION_CONTRACT_CASES } from "./collection-contract.js";
import { COLLECTION_REMOVE_CASES } from "./collection-remove.js";
import { LOST_ANSWER_CASES } from "./lost-answers.js";
import { PI_FIXTURE_CASES } from "./pi-cases.js";
import { REPLACED_CASES } from "./replaced.js";
import { SESSION_FACADE_CASES } from "./session-facade.js";
import { STORE_CONTRACT_CASES } from "./store-contract.js";
import { STORE_EXTRA_CASES } from "./store-extras.js";
import type { CollectionCase, StoreCase } from "./types.js";
import { WRITER_CASES } from "./writers.js";

/** The cases of the store suite, in the order they run, grouped by their `group`. */
export const STORE_CASES: readonly StoreCase[] = Object.freeze([
	...STORE_CONTRACT_CASES,
	...STORE_EXTRA_CASES,
	...SESSION_FACADE_CASES,
	...PI_FIXTURE_CASES,
	...LOST_ANSWER_CASES,
	...WRITER_CASES,
	...REPLACED_CASES,
]);

/** The cases of the collection suite, in the order they run, grouped by their `group`. */
export const COLLECTION_CASES: readonly CollectionCase[] = Object.freeze([
	...COLLECTION_CONTRACT_CASES,
	...COLLECTION_REMOVE_CASES,
]);
