/**
 * What makes `session-tree tree` of a large session fast (issue 28) gives what the plain ways
 * give: prefixes clipped by the layout (`maxIndent`) are `clipPrefix` of the whole ones, the
 * text in pieces is the text in one string, and the one-pass preview of ASCII text is the
 * preview the regular expressions make.
 */

import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import type { SessionEntry, SessionTreeNode } from "../../src/core/types.js";
import { oneLine, sanitize } from "../../src/render/preview.js";
import { clipPrefix, layoutTree } from "../../src/render/tree-layout.js";
import { renderTree, renderTreeBytes, renderTreePieces } from "../../src/render/tree-text.js";

let next = 0;

function node(parent: SessionTreeNode | undefined, text: string, label?: string): SessionTreeNode {
	next++;
	const id = next.toString(16).padStart(8, "0");
	const entry = {
		type: "message",
		id,
		parentId: parent ? parent.entry.id : null,
		timestamp: new Date(1_750_000_000_000 + next * 1000).toISOString(),
		message: { role: next % 2 === 0 ? "assistant" : "user", content: [{ type: "text", text }], timestamp: next },
	} as unknown as SessionEntry;
	const made: SessionTreeNode = { entry, children: [] };
	if (label !== undefined) made.label = label;
	parent?.children.push(made);
	return made;
}

/**
 * A staircase of `forks` nested forks (each a short side branch and the way on, every other one
 * with three children) with a straight run of `run` entries at the bottom: deep prefixes.
 */
function staircase(forks: number, run: number): { roots: SessionTreeNode[]; leafId: string } {
	const root = node(undefined, "the root\nof it all");
	let at = root;
	for (let i = 0; i < forks; i++) {
		node(at, `side ${i}`);
		if (i % 2 === 1) node(node(at, `another side ${i}`), "below it", i % 4 === 1 ? "a label" : undefined);
		at = node(at, `way on ${i}\twith a tab`);
	}
	for (let i = 0; i < run; i++) at = node(at, `step ${i} ${"x".repeat(i % 90)}`);
	return { roots: [root], leafId: at.entry.id };
}

test("prefixes clipped by the layout are clipPrefix of the whole ones, whatever the options", () => {
	const { roots, leafId } = staircase(40, 30);
	const variants = [{}, { fold: true }, { depth: 25 }, { fold: true, foldLimit: 4, depth: 60 }];
	for (const options of variants) {
		const whole = layoutTree(roots, { leafId, ...options });
		assert.ok(
			whole.rows.some((row) => row.prefix.length > 64),
			"some prefixes are longer than the clip",
		);
		for (const maxIndent of [0, 1, 4, 7, 16, 64, 500]) {
			const clipped = layoutTree(roots, { leafId, ...options, maxIndent });
			assert.deepEqual(
				clipped.rows.map((row) => row.prefix),
				whole.rows.map((row) => clipPrefix(row.prefix, maxIndent)),
				`${JSON.stringify(options)}, maxIndent ${maxIndent}`,
			);
			assert.deepEqual(
				clipped.rows.map((row) => ({ ...row, prefix: "" })),
				whole.rows.map((row) => ({ ...row, prefix: "" })),
			);
			assert.equal(clipped.leafShownAt, whole.leafShownAt);
		}
	}
});

test("the text in pieces is the text in one string, each piece whole lines", () => {
	const { roots, leafId } = staircase(30, 5000);
	for (const options of [{ leafId }, { leafId, sessionName: "named", width: 70 }, { leafId, depth: 3 }]) {
		const pieces = renderTreePieces(roots, options);
		assert.equal(pieces.join(""), renderTree(roots, options));
		for (const piece of pieces) assert.ok(piece.endsWith("\n"));
		if (options.depth === undefined) assert.ok(pieces.length > 1, "more than one piece");
	}
	assert.deepEqual(renderTreePieces([], {}), ["(empty)\n"]);
});

test("the text as bytes is the text's UTF-8, piece for piece", () => {
	// The staircase's rows draw box characters and the leaf's arrow: text outside Latin-1.
	const { roots, leafId } = staircase(30, 5000);
	for (const options of [{ leafId }, { leafId, sessionName: "named « ☃ »", width: 70 }]) {
		const pieces = renderTreePieces(roots, options);
		const bytes = renderTreeBytes(roots, options);
		assert.equal(bytes.length, pieces.length);
		assert.ok(
			pieces.some((piece) => Buffer.byteLength(piece) > piece.length),
			"text beyond ASCII",
		);
		for (const [i, piece] of bytes.entries())
			assert.deepEqual(Buffer.from(piece), Buffer.from(pieces[i] as string, "utf8"));
	}
	assert.deepEqual(
		renderTreeBytes([], {}).map((piece) => Buffer.from(piece).toString()),
		["(empty)\n"],
	);
});

test("the preview in one pass is the one the regular expressions and the segmenter make (property)", () => {
	// The general path of oneLine as it was before the one-pass one: sanitize, collapse, trim,
	// cut by grapheme clusters; read in growing prefixes up to the budget.
	const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
	const reference = (text: string, max: number): string => {
		const budget = Math.max(16, max * 16);
		for (let size = Math.min(budget, Math.max(64, max * 4)); ; size = Math.min(budget, size * 4)) {
			const whole = text.length <= size;
			const clean = sanitize(whole ? text : text.slice(0, size))
				.replace(/\s+/g, " ")
				.trim();
			const clusters = [...segmenter.segment(clean)].map((part) => part.segment);
			if (clusters.length > max) return `${clusters.slice(0, max).join("").trimEnd()}…`;
			if (whole) return clean;
			if (size >= budget) return `${clean.trimEnd()}…`;
		}
	};
	const ascii = ["a", "bc", " ", "  ", "\n", "\r\n", "\t", "\u0000", "\u001b[2J", "\u007f", "x y", "~"];
	const wider = ["中", "é", "“", "\u00a0", "\u0085", "\u2028", "\u3000", "\u200e", "\u202e", "\ufeff", "\u061c"];
	const joining = ["e\u0301", "👍", "\u200d", "\ud800", "\u1100\u1161"];
	for (const pool of [ascii, [...ascii, ...wider], [...ascii, ...wider, ...joining]]) {
		fc.assert(
			fc.property(
				fc.array(fc.constantFrom(...pool), { maxLength: 400 }),
				fc.integer({ min: 0, max: 30 }),
				fc.nat(40),
				(parts, max, lead) => {
					const text = " ".repeat(lead) + parts.join("");
					assert.equal(oneLine(text, max), reference(text, max));
				},
			),
			{ numRuns: 2000 },
		);
	}
	// Past the budget with nothing decided: cut there.
	assert.equal(oneLine(`a${" ".repeat(2000)}b`, 10), "a…");
	assert.equal(oneLine(`${"\n".repeat(2000)}b`, 10), "…");
	assert.equal(oneLine(`a \u200eb\u200e c\u00a0\u00a0d`, 10), "a b c d");
});
