/**
 * The `node:test` binding of the conformance cases: one `describe` block per suite, one per
 * group (in the order the cases name them), one test per case. A case whose `needs` the
 * backend lacks is skipped with the reason its context gives. The only module of the suites
 * that imports a test runner.
 */

import { after, before, describe, test } from "node:test";
import type { CaseContext, ConformanceCase } from "./cases/types.js";

/** How {@link bindCases} runs a list of cases. */
export interface NodeBinding<Context> {
	/** What every case is given. */
	context: Context;
	/** Runs once before the suite's tests. */
	setup?(): void | Promise<void>;
	/** Runs once after them, whether they passed or not. */
	cleanup?(): void | Promise<void>;
	/** Time limit of each test in milliseconds. Default 60,000. */
	timeout?: number;
}

/**
 * Registers `cases` with `node:test` under a `describe` block named `name`: a block per
 * group, a test per case, each with the binding's time limit.
 */
export function bindCases<Context extends CaseContext<Need>, Need extends string>(
	name: string,
	cases: readonly ConformanceCase<Context, Need>[],
	binding: NodeBinding<Context>,
): void {
	const timeout = binding.timeout ?? 60_000;
	const { context } = binding;
	const groups = new Map<string, ConformanceCase<Context, Need>[]>();
	for (const item of cases) {
		const group = groups.get(item.group);
		if (group) group.push(item);
		else groups.set(item.group, [item]);
	}
	describe(name, () => {
		if (binding.setup) before(() => binding.setup?.());
		if (binding.cleanup) after(() => binding.cleanup?.());
		for (const [group, members] of groups) {
			describe(group, () => {
				for (const item of members) {
					test(item.name, { timeout }, async (t) => {
						// Capabilities are known only once a store or collection exists (after
						// setup), so the skip is decided when the test runs, not when it is registered.
						const lacking = item.needs === undefined ? undefined : await context.lacks(item.needs);
						if (lacking !== undefined) {
							t.skip(lacking);
							return;
						}
						await item.run(context);
					});
				}
			});
		}
	});
}
