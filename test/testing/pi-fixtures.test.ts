/**
 * The pi fixtures embedded in src/testing/pi-fixtures.ts (so the conformance suite needs no
 * files when installed) are exact copies of test/fixtures/pi-v3. To refresh them, see
 * test/testing/embed-pi-fixtures.ts.
 */

import assert from "node:assert/strict";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { PI_CASES } from "../../src/testing/pi-fixtures.js";
import { fixtureDir } from "../support/fixtures.js";
import { EMBEDDED_CASES } from "./embed-pi-fixtures.js";

describe("the pi fixtures embedded for the conformance suite", () => {
	test("are the cases embed-pi-fixtures.ts lists, in its order", () => {
		assert.deepEqual(
			PI_CASES.map((piCase) => piCase.name),
			[...EMBEDDED_CASES],
		);
	});

	for (const piCase of PI_CASES) {
		test(`${piCase.name} equals the fixture files`, () => {
			const jsonl = join(fixtureDir, `${piCase.name}.jsonl`);
			const expected = join(fixtureDir, `${piCase.name}.expected.json`);
			assert.ok(statSync(jsonl).size + statSync(expected).size < 60_000, "a small case");
			assert.ok(piCase.jsonl === readFileSync(jsonl, "utf8"), `${piCase.name}.jsonl differs from the embedded copy`);
			assert.deepEqual(piCase.expected, JSON.parse(readFileSync(expected, "utf8")));
		});
	}
});
