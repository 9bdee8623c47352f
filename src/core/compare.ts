/**
 * Two entries of one tree side by side: where their paths from the root part, and what each
 * path holds after that point. What `compare_branches` of `session-tree mcp` answers, and the
 * ground of working with branches (comparing, carrying turns across). Pure; linear in the
 * depth of the two entries; iterative, so no depth overflows the stack.
 */

import { SessionTreeError } from "./errors.js";
import type { ReadonlySessionTree } from "./tree.js";

/** Where two paths part (see {@link compareBranches}). */
export interface BranchComparison {
	/** The last entry both paths hold; null when they share none (two roots). */
	ancestorId: string | null;
	/** Ids after the ancestor down to the first entry, root first (empty when it is the ancestor). */
	onlyA: string[];
	/** Ids after the ancestor down to the second entry, root first. */
	onlyB: string[];
}

/**
 * Ids from the root down to `id`, by the resolved parents (as `getBranch` walks), without
 * reading a body. One walk for `compareBranches` and `pick`'s ranges.
 * @throws SessionTreeError ENTRY_NOT_FOUND for an id the tree does not hold
 */
export function pathIds(tree: ReadonlySessionTree, id: string): string[] {
	if (!tree.has(id)) throw new SessionTreeError("ENTRY_NOT_FOUND", `no entry has id ${JSON.stringify(id)}`);
	const ids: string[] = [];
	const seen = new Set<string>();
	for (let at: string | null | undefined = id; at !== null && at !== undefined && !seen.has(at); ) {
		seen.add(at);
		ids.push(at);
		at = tree.getParentId(at);
	}
	return ids.reverse();
}

/**
 * The common ancestor of two entries and what each path holds after it.
 * @throws SessionTreeError ENTRY_NOT_FOUND for an id the tree does not hold
 */
export function compareBranches(tree: ReadonlySessionTree, a: string, b: string): BranchComparison {
	const pathA = pathIds(tree, a);
	const pathB = pathIds(tree, b);
	let shared = 0;
	while (shared < pathA.length && shared < pathB.length && pathA[shared] === pathB[shared]) shared++;
	return {
		ancestorId: shared === 0 ? null : (pathA[shared - 1] as string),
		onlyA: pathA.slice(shared),
		onlyB: pathB.slice(shared),
	};
}
