/**
 * The conformance suites for `node:test`: {@link storeConformance} (the storage contract,
 * {@link SessionStore}, and the session facade on it) and {@link collectionConformance} (the
 * collection contract, {@link SessionCollection}). Each is a thin call into the binding
 * (node-binding.ts) with the cases (cases/) and a context made from the target (contexts.ts).
 */

import type { SessionCollection, SessionStore } from "../storage/store.js";
import { COLLECTION_CASES, STORE_CASES } from "./cases/index.js";
import {
	type CollectionConformanceTarget,
	type ConformanceTarget,
	collectionCaseContext,
	storeCaseContext,
} from "./contexts.js";
import { bindCases, type NodeBinding } from "./node-binding.js";

/**
 * Registers the conformance suite of `name` with `node:test`: a `describe` block of tests that
 * each make their own sessions through `target`. Run the test file with `node --test`.
 *
 * What it checks, beyond each operation's TSDoc in {@link SessionStore}:
 * - records come back as the JSON text that was written, key order included (a database must
 *   keep the text, e.g. PostgreSQL `json` or `text`, not `jsonb`);
 * - positions are used only with the store object that issued them, and stay valid across
 *   `close` until a `replace`; any position from before a replace is stale for ever;
 * - `derive(header)` names the new session by its header: deriving again with the same header
 *   gives a store of the same session (that is how the suite reopens a fork);
 * - capabilities are honest: no envelopes and no `source` without `lazyBodies`, a `readTail`
 *   that returns a tail for a large session with `tailReads`;
 * - errors are `SessionTreeError`s, checked by their `code` (not their class).
 */
export function storeConformance(name: string, target: ConformanceTarget): void {
	bindCases(name, STORE_CASES, {
		context: storeCaseContext(target),
		...hooks(target),
	});
}

/**
 * Registers the conformance suite of the collection contract ({@link SessionCollection}) with
 * `node:test`, as {@link storeConformance} does for stores: a `describe` block of tests that
 * each take a collection from `target` and make their own sessions in it. Cases needing a
 * capability the collection does not declare (`listing`, `search`, `remove`) are skipped.
 *
 * What it checks, beyond each operation's TSDoc in {@link SessionCollection}:
 * - `sessionFor(header)` names the session by its header, and `list` gives each session
 *   created once, at the location its store has, which `open` takes;
 * - a header id that would leave the collection (`../x`, a path, 300 characters) is refused
 *   with INVALID_ARGUMENT, or names a session the collection lists, opens and removes;
 * - `remove` deletes the session whole, for every store object of it; a session that does not
 *   exist gets FILE_NOT_FOUND, one of another collection INVALID_ARGUMENT;
 * - creates and removes of one session at once: one wins, the others get FILE_EXISTS or
 *   FILE_NOT_FOUND;
 * - `searchText` finds a superset of the sessions holding the text, never a removed one.
 *
 * @example
 * ```ts
 * collectionConformance("MyCollection", { newCollection: () => new MyCollection(crypto.randomUUID()) });
 * ```
 */
export function collectionConformance(name: string, target: CollectionConformanceTarget): void {
	bindCases(name, COLLECTION_CASES, {
		context: collectionCaseContext(target),
		...hooks(target),
	});
}

/** A target's hooks and time limit, for the binding. */
function hooks(target: ConformanceTarget | CollectionConformanceTarget): Omit<NodeBinding<unknown>, "context"> {
	const binding: Omit<NodeBinding<unknown>, "context"> = { timeout: target.timeout };
	// Bound, not copied: a target's hooks may use `this`.
	if (target.setup) binding.setup = () => target.setup?.();
	if (target.cleanup) binding.cleanup = () => target.cleanup?.();
	return binding;
}
