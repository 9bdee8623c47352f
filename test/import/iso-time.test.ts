/**
 * isoFromMillis formats the time of day by hand (a Date per day, not per entry): it must give
 * exactly what `new Date(Math.round(ms)).toISOString()` gives, the epoch for what Date cannot
 * hold. The expectation is Date's own formatting, computed beside it.
 */

import assert from "node:assert/strict";
import { test } from "node:test";
import { isoFromMillis } from "../../src/import/common.js";

function byDate(ms: number): string {
	const date = new Date(Math.round(ms));
	return Number.isNaN(date.getTime()) ? new Date(0).toISOString() : date.toISOString();
}

test("edge times: day and second boundaries, before 1970, years past 9999, the ends of Date's range", () => {
	const edges = [
		0,
		1,
		999,
		1000,
		59_999,
		86_399_999,
		86_400_000,
		-1,
		-999,
		-86_400_001,
		1_700_000_000_123.4,
		1_700_000_000_999.6,
		8.64e15,
		-8.64e15,
		8.64e15 + 1,
		-8.64e15 - 1,
		Number.NaN,
		Number.POSITIVE_INFINITY,
		-62_198_755_200_000,
		253_402_300_799_999,
		253_402_300_800_000,
	];
	for (const ms of edges) assert.equal(isoFromMillis(ms), byDate(ms), String(ms));
});

test("50,000 times spread over ±300 years, in and out of order", () => {
	let seed = 12345;
	const next = () => {
		seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
		return seed / 2 ** 32;
	};
	for (let i = 0; i < 50_000; i++) {
		const ms = (next() - 0.5) * 2e13 + (i % 7 === 0 ? next() : 0);
		assert.equal(isoFromMillis(ms), byDate(ms), String(ms));
	}
});
