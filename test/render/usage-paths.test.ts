/**
 * `PathTotals` (render/usage.ts): the totals of root-to-entry paths kept by their last entry, as
 * the page's context panel asks them on each leaf change. On random trees of messages (replies
 * with and without usage, with and without a cost, other roles, entries that are no message),
 * paths asked in a random order must give the figures summed here directly over each path's
 * entries, in path order (the expectation, written apart from usage.ts's own loop).
 */

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { PathTotals } from "../../src/render/usage.js";

interface Step {
	id: string;
	type: string;
	entry: { type: string; message?: unknown };
}

const step = fc.oneof(
	fc.record({
		type: fc.constant("message"),
		role: fc.constantFrom("assistant", "user", "toolResult"),
		usage: fc.option(
			fc.record({
				input: fc.nat(1000),
				output: fc.nat(1000),
				cacheRead: fc.nat(10),
				cacheWrite: fc.nat(10),
				cost: fc.constantFrom(0, 0.001, 0.25, 1.5),
			}),
			{ nil: undefined },
		),
	}),
	fc.record({ type: fc.constantFrom("label", "model_change") }),
);

/** The expectation: each figure summed over the path's replies, in order. */
function summed(path: readonly Step[]) {
	const out = { replies: 0, reported: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, costReported: 0 };
	for (const { entry } of path) {
		const message = entry.message as
			| {
					role: string;
					usage?: { input: number; output: number; cacheRead: number; cacheWrite: number; cost: { total: number } };
			  }
			| undefined;
		if (entry.type !== "message" || message?.role !== "assistant") continue;
		out.replies++;
		const usage = message.usage;
		if (!usage || usage.input + usage.output + usage.cacheRead + usage.cacheWrite === 0) continue;
		out.reported++;
		out.input += usage.input;
		out.output += usage.output;
		out.cacheRead += usage.cacheRead;
		out.cacheWrite += usage.cacheWrite;
		if (usage.cost.total > 0) {
			out.cost += usage.cost.total;
			out.costReported++;
		}
	}
	return out;
}

describe("PathTotals", () => {
	test("every path's totals, asked in any order, as summed over its entries (property)", () => {
		fc.assert(
			fc.property(
				fc.array(fc.tuple(step, fc.nat()), { minLength: 1, maxLength: 60 }),
				fc.array(fc.nat(), { minLength: 1, maxLength: 30 }),
				(made, asks) => {
					// Entry i's parent is an earlier entry (or none): a random tree.
					const steps: Step[] = [];
					const parents: number[] = [];
					made.forEach(([kind, pick], i) => {
						const id = `e${i}`;
						parents.push(i === 0 || pick % 5 === 0 ? -1 : pick % i);
						if (kind.type !== "message") steps.push({ id, type: kind.type, entry: { type: kind.type } });
						else {
							const { role, usage } = kind as { role: string; usage?: Record<string, number> };
							const message =
								usage === undefined
									? { role }
									: { role, usage: { ...usage, totalTokens: 0, cost: { total: usage.cost } } };
							steps.push({ id, type: "message", entry: { type: "message", message } });
						}
					});
					const pathTo = (i: number): Step[] => {
						const path: Step[] = [];
						for (let at = i; at !== -1; at = parents[at] as number) path.unshift(steps[at] as Step);
						return path;
					};
					const totals = new PathTotals();
					for (const ask of asks) {
						const path = pathTo(ask % steps.length);
						assert.deepEqual({ ...totals.of(path) }, summed(path));
					}
				},
			),
			{ numRuns: 300 },
		);
	});
});
