/**
 * The terminal width of text (src/render/text-width.ts) without the segmenter where no character
 * joins a cluster (`JOINS`): the premise (such text has one grapheme cluster per code unit, as
 * `Intl.Segmenter` cuts it) and the widths, held to a reference made here the slow way (every
 * cluster found by the segmenter, escape sequences taken out first), on random texts drawn from
 * characters of every kind the views meet: ASCII, Latin, box drawing, CJK, emoji (one code unit
 * and astral), combining marks, joiners, variation selectors, invisibles, controls and colours.
 */

import assert from "node:assert/strict";
import { test } from "node:test";
import {
	displayWidth,
	fittingLength,
	graphemeWidth,
	JOINS,
	JOINS_BY_POINT,
	segmentGraphemes,
	stripAnsi,
	truncateToWidth,
} from "../../src/render/text-width.js";
import { mulberry32 } from "../support/random.js";

/** Pieces random texts are made of (a colour is one piece). */
const PIECES = [
	"a",
	"Z",
	" ",
	"é",
	"ß",
	"─",
	"│",
	"•",
	"←",
	"…",
	"日",
	"語",
	"✅",
	"⏎",
	"😀",
	"🚀",
	"🤖",
	"🧪",
	"🫠",
	"👍🏽",
	"👩\u200d💻",
	"🏳\ufe0f\u200d🌈",
	"\u{1f3fb}",
	"\u{e0067}",
	"𝕏",
	"\u{110bd}",
	"\u{11f02}",
	"🇫🇷",
	"e\u0301",
	"\u200b",
	"\u200d",
	"\ufe0f",
	"\u00ad",
	"\t",
	"가",
	"\u1100\u1161",
	"\u001b[1m",
	"\u001b[0m",
	"\u001b[38;5;244m",
];

function randomText(pick: () => number, length: number): string {
	let text = "";
	for (let i = 0; i < length; i++) text += PIECES[Math.floor(pick() * PIECES.length)];
	return text;
}

/** The escape sequences among {@link PIECES}. */
const ESCAPES = PIECES.filter((piece) => piece.startsWith("\u001b"));

/**
 * The width the slow way: every cluster the segmenter finds in each run of text between escape
 * sequences (which keep clusters apart, as on a terminal: text-width.ts's `measure`).
 */
function referenceWidth(text: string): number {
	let width = 0;
	for (const run of runsBetweenEscapes(text))
		for (const { segment } of segmentGraphemes(run)) width += graphemeWidth(segment);
	return width;
}

/** The runs of text between its escape sequences. */
function runsBetweenEscapes(text: string): string[] {
	let runs = [text];
	for (const sequence of ESCAPES) runs = runs.flatMap((run) => run.split(sequence));
	return runs;
}

test("text without a character that joins has one grapheme cluster per code unit", () => {
	const pick = mulberry32(7);
	let checked = 0;
	for (let run = 0; run < 2000; run++) {
		const text = stripAnsi(randomText(pick, 1 + Math.floor(pick() * 12)));
		if (JOINS.test(text)) continue;
		checked++;
		const clusters = [...segmentGraphemes(text)].map(({ segment }) => segment);
		assert.deepEqual(clusters, [...text.split("")], JSON.stringify(text));
	}
	assert.ok(checked > 100, `${checked} texts without a joining character`);
});

test("text without a character that joins when walked by code points has one grapheme cluster per code point", () => {
	// JOINS_BY_POINT leaves out the astral pictographs (🚀, 🤖…): alone, each is a cluster.
	const pick = mulberry32(13);
	let checked = 0;
	let pictographs = 0;
	for (let run = 0; run < 4000; run++) {
		const text = stripAnsi(randomText(pick, 1 + Math.floor(pick() * 12)));
		if (JOINS_BY_POINT.test(text)) continue;
		checked++;
		if (/[\u{1f300}-\u{1faff}]/u.test(text)) pictographs++;
		const clusters = [...segmentGraphemes(text)].map(({ segment }) => segment);
		assert.deepEqual(clusters, [...text], JSON.stringify(text));
	}
	assert.ok(checked > 100 && pictographs > 50, `${checked} texts, ${pictographs} with a pictograph`);
});

test("fittingLength: the longest head of whole clusters that fits, as the segmenter's clusters and widths say", () => {
	const pick = mulberry32(17);
	for (let run = 0; run < 3000; run++) {
		const text = stripAnsi(randomText(pick, Math.floor(pick() * 16)));
		const columns = Math.floor(pick() * 14);
		let expected = 0;
		let used = 0;
		for (const { segment, index } of segmentGraphemes(text)) {
			used += graphemeWidth(segment);
			if (used > columns) break;
			expected = index + segment.length;
		}
		assert.equal(fittingLength(text, columns), expected, `${JSON.stringify(text)} in ${columns}`);
	}
});

test("displayWidth and truncateToWidth agree with the segmenter's clusters, with or without joining characters", () => {
	const pick = mulberry32(11);
	for (let run = 0; run < 3000; run++) {
		const text = randomText(pick, Math.floor(pick() * 16));
		const width = referenceWidth(text);
		assert.equal(displayWidth(text), width, JSON.stringify(text));
		const columns = Math.floor(pick() * 12);
		const cut = truncateToWidth(text, columns);
		assert.ok(displayWidth(cut) <= columns, `${JSON.stringify(cut)} in ${columns} columns`);
		if (width <= columns) assert.equal(cut, columns <= 0 ? "" : text);
		else {
			// A cut ends with `…` (and a reset where colours were cut) after a prefix of whole clusters.
			const head = stripAnsi(cut).replace(/…$/, "");
			// Escape sequences keep clusters apart (as in referenceWidth): a prepended character
			// before one does not join what follows it.
			const clusters = runsBetweenEscapes(text).flatMap((run) =>
				[...segmentGraphemes(run)].map(({ segment }) => segment),
			);
			let prefix = "";
			for (const cluster of clusters) {
				if (prefix.length >= head.length) break;
				prefix += cluster;
			}
			assert.ok(prefix.trimEnd() === head || prefix === head, `${JSON.stringify(text)} cut to ${JSON.stringify(cut)}`);
		}
	}
});
