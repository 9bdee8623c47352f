/**
 * The keys of a worker's chunk (storage/line-chunks.ts): what the main thread matches a line's
 * envelope against before it uses what the worker made of the line. Every field is compared
 * exactly, in place: a key says yes only for the type, id and parent it was made of.
 */

import assert from "node:assert/strict";
import test from "node:test";
import { addKey, keyOf, type LineChunk } from "../../src/storage/line-chunks.js";

interface Key {
	type: string;
	id: string;
	parentId: string | null;
}

/** A chunk holding `keys` as the worker writes them. */
function chunkOf(keys: readonly Key[]): LineChunk {
	const parts: string[] = [];
	const ends: number[] = [];
	let length = 0;
	for (const key of keys) length = addKey(parts, ends, length, key);
	return {
		chunk: 0,
		from: 0,
		offsets: new Float64Array(keys.length),
		lengths: new Int32Array(keys.length),
		keys: parts.join(""),
		keyEnds: Int32Array.from(ends),
	};
}

test("a chunk's key matches its own line's type, id and parent, and nothing else", () => {
	// Values chosen to meet at the fields' edges: empty ids, an id starting with the parent's
	// letter, a parent id that is the next field's start, text beyond Latin-1.
	const values = ["", "p", "pp", "a", "ab", "b", "message", "p1b2", "☃", "a☃", "\u0000"];
	const keys: Key[] = [];
	for (const type of ["message", "m", ""])
		for (const id of values) for (const parentId of [null, ...values]) keys.push({ type, id, parentId });
	const chunk = chunkOf(keys);
	let mismatches = 0;
	for (const [at, key] of keys.entries()) {
		assert.ok(keyOf(chunk, at, key), JSON.stringify(key));
		// Any other key, at this line, is refused; a sample of them (every one would be 150,000 checks).
		for (let other = at % 7; other < keys.length; other += 7) {
			if (other === at) continue;
			const candidate = keys[other] as Key;
			const same = candidate.type === key.type && candidate.id === key.id && candidate.parentId === key.parentId;
			assert.equal(keyOf(chunk, at, candidate), same, `${JSON.stringify(key)} against ${JSON.stringify(candidate)}`);
			if (!same) mismatches++;
		}
	}
	assert.ok(mismatches > 10_000);
});

test("a null parent and an empty parent id are different keys", () => {
	const chunk = chunkOf([
		{ type: "message", id: "a", parentId: null },
		{ type: "message", id: "b", parentId: "" },
	]);
	assert.equal(keyOf(chunk, 0, { type: "message", id: "a", parentId: null }), true);
	assert.equal(keyOf(chunk, 0, { type: "message", id: "a", parentId: "" }), false);
	assert.equal(keyOf(chunk, 1, { type: "message", id: "b", parentId: "" }), true);
	assert.equal(keyOf(chunk, 1, { type: "message", id: "b", parentId: null }), false);
});
