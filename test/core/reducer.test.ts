/**
 * The session reducer (core/reducer.ts), the one place that interprets a record stream: applied
 * line by line it gives what `loadTree` gives; each problem kind under strict and lenient
 * policy; what other writers appended (`applyOthers`); linear linking; window mode; and
 * migration of v1 and v2 streams record by record.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { SessionTreeError } from "../../src/core/errors.js";
import { isSessionTreeError, loadTree, migrateRecords, type SessionTree, settleStream } from "../../src/core/index.js";
import type { ParsedLine, RawRecord } from "../../src/core/records.js";
import { type LoadProblem, type ReducerOptions, SessionReducer } from "../../src/core/reducer.js";
import type { SessionHeader } from "../../src/core/types.js";
import { parseLine } from "../../src/storage/codec.js";
import { FileSessionStore } from "../../src/storage/file-store.js";
import { fixtureFile, fixtureNames } from "../support/fixtures.js";

const FILE = "f.jsonl";
const T = "2026-01-01T00:00:00.000Z";
const HEADER: SessionHeader = { type: "session", version: 3, id: "sess", timestamp: T, cwd: "/" };

const entry = (id: string, parentId: string | null, extra: RawRecord = {}): RawRecord => ({
	type: "custom",
	customType: "t",
	id,
	parentId,
	timestamp: T,
	...extra,
});
const message = (id: string, parentId: string | null, role: unknown = "user"): RawRecord => ({
	type: "message",
	id,
	parentId,
	timestamp: T,
	message: { role, content: `text of ${id}`, timestamp: 1 },
});
const leaf = (id: string, targetId: string | null): RawRecord => ({
	type: "leaf",
	id,
	parentId: targetId,
	timestamp: T,
	targetId,
});

/** Lines as the codec parses them (1-based numbers), from records or raw texts. */
function lines(...items: Array<RawRecord | string>): ParsedLine[] {
	return items.map((item, i) => parseLine(typeof item === "string" ? item : JSON.stringify(item), i + 1, FILE));
}
const withHeader = (...items: Array<RawRecord | string>) => lines(HEADER as unknown as RawRecord, ...items);

/** A torn last line, as the file store reports it. */
const torn = (line: number): ParsedLine => ({
	line,
	error: new SessionTreeError("TORN_TAIL", "the last line is an incomplete record", { file: FILE, line }),
	torn: true,
});

/** Everything observable of a tree (flattened: deep chains are too deep for JSON). */
function stateOf(tree: SessionTree): unknown {
	return {
		header: tree.header,
		entries: tree.getEntries(),
		parents: tree.nodesInOrder().map((node) => [node.id, tree.getParentId(node.id)]),
		leaf: tree.getLeafId(),
		labels: [...tree.getLabels()],
		name: tree.getSessionName(),
		rows: tree.flatten().map((row) => [row.entry.id, row.depth, row.label]),
	};
}

/** The outcome of reading a stream: its state, problems and leaf, or the error it threw. */
type Outcome =
	| {
			state: unknown;
			problems: LoadProblem[];
			fromVersion: number;
			leafRecordId: string | undefined;
			leafRecords: [string, string | null][];
	  }
	| { throws: { code: string; line: number | undefined; message: string } };

function outcome(
	read: () => {
		tree: SessionTree;
		problems: LoadProblem[];
		fromVersion: number;
		leafRecordId: string | undefined;
		leafRecords: Map<string, string | null>;
	},
): Outcome {
	try {
		const result = read();
		return {
			state: stateOf(result.tree),
			problems: JSON.parse(JSON.stringify(result.problems)),
			fromVersion: result.fromVersion,
			leafRecordId: result.leafRecordId,
			leafRecords: [...result.leafRecords],
		};
	} catch (error) {
		assert.ok(isSessionTreeError(error), String(error));
		return { throws: { code: error.code, line: error.line, message: error.message } };
	}
}

/**
 * The reducer fed one line at a time, settled after every `settleEvery` lines (and at the
 * end), then asked for the leaf: what a session catching up line by line would hold.
 */
function lineByLine(parsed: readonly ParsedLine[], options: ReducerOptions, settleEvery: number) {
	const reducer = new SessionReducer(options);
	parsed.forEach((line, i) => {
		reducer.apply(line);
		if ((i + 1) % settleEvery === 0 && reducer.started) reducer.settle();
	});
	const { reducer: _, ...result } = settleStream(reducer);
	return result;
}

/** Non-blank lines of a file, parsed by the codec. */
function fileLines(file: string): ParsedLine[] {
	const out: ParsedLine[] = [];
	readFileSync(file, "utf8")
		.split("\n")
		.forEach((text, i) => {
			if (text.trim() !== "") out.push(parseLine(text, i + 1, file));
		});
	return out;
}

/** Asserts that `run` throws a SessionTreeError with this code and line. */
function throwsCode(run: () => unknown, code: string, line?: number): void {
	assert.throws(run, (error: unknown) => {
		assert.ok(isSessionTreeError(error), String(error));
		assert.equal(error.code, code, error.message);
		if (line !== undefined) assert.equal(error.line, line, error.message);
		return true;
	});
}

const codes = (problems: readonly LoadProblem[]) => problems.map((p) => [p.code, p.line]);

describe("the reducer applied line by line equals loadTree", () => {
	for (const name of fixtureNames()) {
		test(`pi fixture ${name}: parsed lines, settled after every line, every 7 lines, once`, () => {
			const file = fixtureFile(name);
			for (const lenient of [false, true]) {
				const options = { lenient, file };
				const batch = outcome(() => loadTree(fileLines(file), options));
				for (const every of [1, 7, Number.POSITIVE_INFINITY]) {
					assert.deepEqual(
						outcome(() => lineByLine(fileLines(file), options, every)),
						batch,
						`${lenient ? "lenient" : "strict"}, settled every ${every}`,
					);
				}
			}
		});

		test(`pi fixture ${name}: the file store's lines (envelopes, lazy bodies)`, async () => {
			const file = fixtureFile(name);
			for (const lenient of [false, true]) {
				const stores = [new FileSessionStore(file), new FileSessionStore(file)] as const;
				const a = await stores[0].read();
				const b = await stores[1].read();
				const batch = outcome(() => loadTree(a.lines, { lenient, file, source: a.source }));
				const incremental = outcome(() => lineByLine(b.lines, { lenient, file, source: b.source }, 1));
				assert.deepEqual(incremental, batch, lenient ? "lenient" : "strict");
				// And what the store read means what the codec's lines mean.
				assert.deepEqual(
					outcome(() => loadTree(fileLines(file), { lenient, file })),
					batch,
				);
				for (const store of stores) await store.close();
			}
		});
	}

	test("a stream with every kind of record and problem, lenient: the same problems, tree and leaf", () => {
		// Fresh lines for every read: the reducer owns the records it is given (it renames clashes in place).
		const stream = () =>
			withHeader(
				entry("aaaaaaaa", null),
				entry("bbbbbbbb", "aaaaaaaa", { type: "label", targetId: "aaaaaaaa", label: "start" }),
				"{torn",
				entry("cccccccc", "bbbbbbbb"),
				entry("cccccccc", "bbbbbbbb"),
				entry("cccccccc", "bbbbbbbb", { data: 2 }),
				entry("dddddddd", "nowhere"),
				{ type: "custom", parentId: null, timestamp: T },
				message("eeeeeeee", "dddddddd", null),
				leaf("11111111", "aaaaaaaa"),
				entry("ffffffff", "11111111"),
				entry("gggggggg", "hhhhhhhh"),
				entry("hhhhhhhh", "ffffffff"),
				entry("iiiiiiii", "jjjjjjjj"),
				entry("jjjjjjjj", "iiiiiiii"),
				{ type: "session_info", id: "kkkkkkkk", parentId: "jjjjjjjj", timestamp: T, name: " named " },
				leaf("22222222", "gggggggg"),
			);
		const batch = outcome(() => loadTree(stream(), { lenient: true, file: FILE }));
		assert.ok(!("throws" in batch));
		assert.deepEqual(
			batch.problems.map((p) => p.code),
			[
				"INVALID_JSON",
				"DUPLICATE_ID",
				"DUPLICATE_ID",
				"INVALID_RECORD",
				"INVALID_RECORD",
				"MISSING_PARENT",
				"PARENT_CYCLE",
			],
		);
		assert.deepEqual(
			outcome(() => lineByLine(stream(), { lenient: true, file: FILE }, Number.POSITIVE_INFINITY)),
			batch,
		);
		// Settling after every line links a parent named before it arrives as missing: only one settle per batch
		// may hold forward references. Without them, every settle cadence agrees (a missing parent is
		// reported when its entry is settled, so the problems come in another order).
		const byLine = (read: Outcome) => {
			if ("throws" in read) return read;
			const problems = [...read.problems].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
			return { ...read, problems };
		};
		const noForward = () => stream().filter((line) => ![13, 14, 15, 16].includes(line.line));
		const once = byLine(outcome(() => loadTree(noForward(), { lenient: true, file: FILE })));
		for (const every of [1, 2, 5]) {
			assert.deepEqual(
				byLine(outcome(() => lineByLine(noForward(), { lenient: true, file: FILE }, every))),
				once,
				`every ${every}`,
			);
		}
	});
});

describe("strict and lenient policy, problem by problem", () => {
	test("invalid header: strict throws at line 1; lenient makes one up and keeps a first-line entry", () => {
		throwsCode(() => loadTree(lines(entry("aaaaaaaa", null))), "INVALID_HEADER", 1);
		throwsCode(() => loadTree(lines("garbage", entry("aaaaaaaa", null))), "INVALID_HEADER", 1);
		throwsCode(() => loadTree(lines({ ...HEADER, id: "" } as unknown as RawRecord)), "INVALID_HEADER", 1);
		throwsCode(() => loadTree(lines({ ...HEADER, version: "3" } as unknown as RawRecord)), "INVALID_HEADER", 1);
		const { tree, problems } = loadTree(lines(entry("aaaaaaaa", null), entry("bbbbbbbb", "aaaaaaaa")), {
			lenient: true,
		});
		assert.deepEqual(codes(problems), [["INVALID_HEADER", 1]]);
		assert.match(problems[0]?.message ?? "", /a header was made up/);
		assert.equal(tree.header.id, "recovered-session");
		assert.equal(tree.header.version, 3);
		assert.equal(tree.header.timestamp, T, "the first entry's time");
		assert.deepEqual(
			tree.getBranch().map((e) => e.id),
			["aaaaaaaa", "bbbbbbbb"],
		);
		const garbage = loadTree(lines("garbage", entry("aaaaaaaa", null)), { lenient: true });
		assert.deepEqual(
			garbage.tree.getEntries().map((e) => e.id),
			["aaaaaaaa"],
		);
		assert.deepEqual(codes(garbage.problems), [["INVALID_HEADER", 1]]);
		// Nothing applied yet: no tree.
		const reducer = new SessionReducer();
		assert.equal(reducer.started, false);
		throwsCode(() => reducer.tree, "EMPTY_FILE");
	});

	test("unsupported version: thrown under either policy", () => {
		const v9 = { ...HEADER, version: 9 } as unknown as RawRecord;
		for (const lenient of [false, true]) {
			throwsCode(() => loadTree(lines(v9, entry("aaaaaaaa", null)), { lenient }), "UNSUPPORTED_VERSION", 1);
		}
	});

	test("bad JSON: strict throws naming the line; lenient skips the line", () => {
		const stream = withHeader(entry("aaaaaaaa", null), "{not json", entry("bbbbbbbb", "aaaaaaaa"));
		assert.throws(
			() => loadTree(stream, { file: FILE }),
			(error: unknown) =>
				isSessionTreeError(error, "INVALID_JSON") && error.line === 3 && error.message.startsWith(`${FILE}:3: `),
		);
		const { tree, problems } = loadTree(stream, { lenient: true, file: FILE });
		assert.deepEqual(codes(problems), [["INVALID_JSON", 3]]);
		assert.match(problems[0]?.message ?? "", /; skipped$/);
		assert.doesNotMatch(problems[0]?.message ?? "", /f\.jsonl:3/, "the location is in the problem, not the message");
		assert.equal(tree.size, 2);
		assert.equal(tree.getParentId("bbbbbbbb"), "aaaaaaaa");
	});

	test("records glued on one line: strict throws; lenient keeps every whole record", () => {
		const glued = JSON.stringify(entry("bbbbbbbb", "aaaaaaaa")) + JSON.stringify(entry("cccccccc", "bbbbbbbb"));
		const stream = withHeader(entry("aaaaaaaa", null), glued, entry("dddddddd", "cccccccc"));
		assert.equal(stream[2]?.salvaged?.length, 2);
		throwsCode(() => loadTree(stream), "GLUED_RECORDS", 3);
		const { tree, problems } = loadTree(stream, { lenient: true });
		assert.deepEqual(codes(problems), [["GLUED_RECORDS", 3]]);
		assert.match(problems[0]?.message ?? "", /kept 2 whole record\(s\)/);
		assert.deepEqual(
			tree.getBranch().map((e) => e.id),
			["aaaaaaaa", "bbbbbbbb", "cccccccc", "dddddddd"],
		);
		// A torn record glued to a whole one: the whole one is kept.
		const half =
			JSON.stringify(entry("bbbbbbbb", "aaaaaaaa")).slice(0, 30) + JSON.stringify(entry("cccccccc", "aaaaaaaa"));
		const partly = loadTree(withHeader(entry("aaaaaaaa", null), half), { lenient: true });
		assert.deepEqual(
			partly.tree.getEntries().map((e) => e.id),
			["aaaaaaaa", "cccccccc"],
		);
		assert.deepEqual(codes(partly.problems), [["GLUED_RECORDS", 3]]);
		// A line of NUL bytes: nothing to keep.
		const nul = loadTree(withHeader(entry("aaaaaaaa", null), "\0\0\0\0"), { lenient: true });
		assert.deepEqual(codes(nul.problems), [["NUL_PADDING", 3]]);
		assert.match(nul.problems[0]?.message ?? "", /; skipped$/);
		throwsCode(() => loadTree(withHeader(entry("aaaaaaaa", null), "\0\0\0\0")), "NUL_PADDING", 3);
	});

	test("shape errors: strict throws INVALID_RECORD; lenient leaves the record out", () => {
		const bad: RawRecord[] = [
			{ id: "bbbbbbbb", parentId: null, timestamp: T },
			{ type: "custom", parentId: null, timestamp: T },
			{ type: "custom", id: "bbbbbbbb", parentId: 7, timestamp: T },
			{ type: "custom", id: "bbbbbbbb", parentId: null },
			{ ...HEADER } as unknown as RawRecord,
			leaf("bbbbbbbb", 5 as unknown as string),
		];
		for (const record of bad) {
			const stream = withHeader(entry("aaaaaaaa", null), record);
			throwsCode(() => loadTree(stream), "INVALID_RECORD", 3);
			const { tree, problems, leafRecords } = loadTree(stream, { lenient: true });
			assert.deepEqual(codes(problems), [["INVALID_RECORD", 3]], JSON.stringify(record));
			assert.equal(tree.size, 1, JSON.stringify(record));
			assert.equal(leafRecords.size, 0);
			assert.equal(tree.getLeafId(), "aaaaaaaa");
		}
	});

	test("content errors: strict throws INVALID_RECORD; lenient keeps the entry in the tree", () => {
		const bad: RawRecord[] = [
			message("bbbbbbbb", "aaaaaaaa", null),
			{ type: "message", id: "bbbbbbbb", parentId: "aaaaaaaa", timestamp: T },
			{ type: "compaction", id: "bbbbbbbb", parentId: "aaaaaaaa", timestamp: T, firstKeptEntryId: "aaaaaaaa" },
		];
		for (const record of bad) {
			const stream = withHeader(entry("aaaaaaaa", null), record, entry("cccccccc", "bbbbbbbb"));
			throwsCode(() => loadTree(stream), "INVALID_RECORD", 3);
			const { tree, problems } = loadTree(stream, { lenient: true });
			assert.deepEqual(codes(problems), [["INVALID_RECORD", 3]], JSON.stringify(record));
			// A compaction without a summary still gives its (empty) summary message, as in pi.
			const action =
				record.type === "compaction"
					? /has no string summary; kept in the tree and in the context, as pi reads it/
					: /kept in the tree, left out of the context/;
			assert.match(problems[0]?.message ?? "", action);
			assert.deepEqual(
				tree.getBranch().map((e) => e.id),
				["aaaaaaaa", "bbbbbbbb", "cccccccc"],
			);
		}
	});

	test("duplicate ids: an exact copy is skipped, a clash gets a fresh id (strict throws either)", () => {
		const copy = withHeader(entry("aaaaaaaa", null), entry("bbbbbbbb", "aaaaaaaa"), entry("bbbbbbbb", "aaaaaaaa"));
		throwsCode(() => loadTree(copy), "DUPLICATE_ID", 4);
		const skipped = loadTree(copy, { lenient: true });
		assert.deepEqual(codes(skipped.problems), [["DUPLICATE_ID", 4]]);
		assert.equal(skipped.problems[0]?.entryId, "bbbbbbbb");
		assert.match(skipped.problems[0]?.message ?? "", /repeats line 3; the copy is skipped/);
		assert.equal(skipped.tree.size, 2);
		assert.equal(skipped.tree.getLeafId(), "bbbbbbbb");

		// Fresh lines for every read: a lenient read renames the clashing record in place.
		const clash = () =>
			withHeader(
				entry("aaaaaaaa", null),
				entry("bbbbbbbb", "aaaaaaaa"),
				entry("bbbbbbbb", "aaaaaaaa", { data: "other" }),
				entry("cccccccc", "bbbbbbbb"),
			);
		throwsCode(() => loadTree(clash()), "DUPLICATE_ID", 4);
		const renamed = loadTree(clash(), { lenient: true });
		assert.deepEqual(codes(renamed.problems), [["DUPLICATE_ID", 4]]);
		const fresh = renamed.problems[0]?.message.match(/is given id (\S+)$/)?.[1];
		assert.ok(fresh && fresh !== "bbbbbbbb", renamed.problems[0]?.message);
		assert.equal(renamed.tree.size, 4);
		assert.deepEqual(renamed.tree.getEntry(fresh), entry(fresh, "aaaaaaaa", { data: "other" }));
		// The id keeps meaning the first entry that had it.
		assert.equal(renamed.tree.getParentId("cccccccc"), "bbbbbbbb");
		assert.equal(renamed.tree.getEntry("bbbbbbbb")?.parentId, "aaaaaaaa");
		assert.ok(!("data" in (renamed.tree.getEntry("bbbbbbbb") ?? {})));
		// The fresh id is stable: the same stream gives the same one.
		assert.equal(loadTree(clash(), { lenient: true }).problems[0]?.message, renamed.problems[0]?.message);
	});

	test("a missing parent: strict throws; lenient bridges to the previous entry (a first entry stays a root)", () => {
		const stream = withHeader(
			entry("aaaaaaaa", "gone0000"),
			entry("bbbbbbbb", "aaaaaaaa"),
			entry("cccccccc", "gone1111"),
		);
		throwsCode(() => loadTree(stream), "MISSING_PARENT", 2);
		const { tree, problems } = loadTree(stream, { lenient: true });
		assert.deepEqual(codes(problems), [
			["MISSING_PARENT", 2],
			["MISSING_PARENT", 4],
		]);
		assert.match(problems[0]?.message ?? "", /kept as a root$/);
		assert.match(problems[1]?.message ?? "", /bridged to the previous entry bbbbbbbb$/);
		assert.equal(tree.getParentId("aaaaaaaa"), null);
		assert.equal(tree.getParentId("cccccccc"), "bbbbbbbb");
		// The entry itself still names the parent it names in the file.
		assert.equal(tree.getEntry("cccccccc")?.parentId, "gone1111");
		assert.deepEqual(
			tree.getBranch().map((e) => e.id),
			["aaaaaaaa", "bbbbbbbb", "cccccccc"],
		);
	});

	test("a parent later in the stream: linked under either policy, no problem", () => {
		const stream = withHeader(entry("cccccccc", "bbbbbbbb"), entry("bbbbbbbb", "aaaaaaaa"), entry("aaaaaaaa", null));
		for (const lenient of [false, true]) {
			const { tree, problems } = loadTree(stream, { lenient });
			assert.deepEqual(problems, []);
			assert.deepEqual(
				tree.getBranch("cccccccc").map((e) => e.id),
				["aaaaaaaa", "bbbbbbbb", "cccccccc"],
			);
			assert.equal(tree.getLeafId(), "aaaaaaaa", "the last entry of the stream");
		}
	});

	test("a cycle: strict throws; lenient cuts it at an entry whose parent is later", () => {
		const stream = withHeader(
			entry("rootroot", null),
			entry("aaaaaaaa", "cccccccc"),
			entry("bbbbbbbb", "aaaaaaaa"),
			entry("cccccccc", "bbbbbbbb"),
			entry("dddddddd", "cccccccc"),
		);
		throwsCode(() => loadTree(stream), "PARENT_CYCLE", 3);
		const { tree, problems } = loadTree(stream, { lenient: true });
		assert.deepEqual(codes(problems), [["PARENT_CYCLE", 3]]);
		assert.equal(problems[0]?.entryId, "aaaaaaaa");
		assert.match(problems[0]?.message ?? "", /a cycle of 3\); it is kept as a root$/);
		assert.deepEqual(
			tree.getBranch("dddddddd").map((e) => e.id),
			["aaaaaaaa", "bbbbbbbb", "cccccccc", "dddddddd"],
		);
		assert.deepEqual(
			tree.getChildren(null).map((e) => e.id),
			["rootroot", "aaaaaaaa"],
		);
		throwsCode(() => loadTree(withHeader(entry("aaaaaaaa", "aaaaaaaa"))), "PARENT_CYCLE", 2);
	});

	test("a leaf record naming a missing entry: strict throws; lenient takes the last entry", () => {
		const stream = withHeader(entry("aaaaaaaa", null), entry("bbbbbbbb", "aaaaaaaa"), leaf("11111111", "gone0000"));
		throwsCode(() => loadTree(stream), "ENTRY_NOT_FOUND");
		const reducer = new SessionReducer();
		for (const line of stream) reducer.apply(line);
		reducer.settle();
		throwsCode(() => reducer.streamLeaf(), "ENTRY_NOT_FOUND");
		const { tree, problems, leafRecordId } = loadTree(stream, { lenient: true });
		assert.deepEqual(
			problems.map((p) => p.code),
			["ENTRY_NOT_FOUND"],
		);
		assert.match(problems[0]?.message ?? "", /the last entry is the leaf instead$/);
		assert.equal(tree.getLeafId(), "bbbbbbbb");
		assert.equal(leafRecordId, undefined);
		// Through a chain of leaf records, to an entry and to null.
		const chain = loadTree(
			withHeader(
				entry("aaaaaaaa", null),
				entry("bbbbbbbb", "aaaaaaaa"),
				leaf("11111111", "aaaaaaaa"),
				leaf("22222222", "11111111"),
			),
		);
		assert.equal(chain.tree.getLeafId(), "aaaaaaaa");
		assert.equal(chain.leafRecordId, "22222222");
		const reset = loadTree(withHeader(entry("aaaaaaaa", null), leaf("11111111", null)));
		assert.equal(reset.tree.getLeafId(), null);
		assert.equal(reset.leafRecordId, "11111111");
	});

	test("a torn last line: reported, never fatal, left out", () => {
		const stream = [...withHeader(entry("aaaaaaaa", null), entry("bbbbbbbb", "aaaaaaaa")), torn(4)];
		for (const lenient of [false, true]) {
			const { tree, problems } = loadTree(stream, { lenient, file: FILE });
			assert.deepEqual(codes(problems), [["TORN_TAIL", 4]]);
			assert.match(problems[0]?.message ?? "", /left out \(an append that never completed\)$/);
			assert.equal(tree.size, 2);
			assert.equal(tree.getLeafId(), "bbbbbbbb");
		}
		// A file that is only a torn line has no header.
		assert.throws(
			() => loadTree([torn(1)]),
			(error: unknown) => isSessionTreeError(error, "EMPTY_FILE") && /only an incomplete line/.test(error.message),
		);
	});
});

describe("applyOthers: what other writers appended", () => {
	const base = () => {
		const reducer = new SessionReducer({ file: FILE }); // strict
		for (const line of withHeader(
			entry("aaaaaaaa", null),
			entry("bbbbbbbb", "aaaaaaaa"),
			entry("cccccccc", "aaaaaaaa"),
		)) {
			reducer.apply(line);
		}
		reducer.settle();
		reducer.tree.setLeaf(reducer.streamLeaf().leafId);
		return reducer;
	};
	/** Their lines, numbered after the base stream's four. */
	const theirs = (...items: Array<RawRecord | string>) =>
		items.map((item, i) => parseLine(typeof item === "string" ? item : JSON.stringify(item), 5 + i, FILE));

	test("never throws under strict policy: every problem is recorded, the leaf stays", () => {
		const reducer = base();
		assert.equal(reducer.tree.getLeafId(), "cccccccc");
		const batch = [
			...theirs(
				entry("bbbbbbbb", "aaaaaaaa", { data: "clash" }),
				entry("cccccccc", "aaaaaaaa"),
				"{not json",
				{ type: "custom", parentId: null, timestamp: T },
				message("dddddddd", "cccccccc", null),
				entry("eeeeeeee", "gone0000"),
				entry("ffffffff", "gggggggg"),
				entry("gggggggg", "ffffffff"),
				leaf("11111111", "aaaaaaaa"),
			),
			torn(14),
		];
		reducer.applyOthers(batch);
		assert.deepEqual(codes(reducer.problems), [
			["DUPLICATE_ID", 5],
			["DUPLICATE_ID", 6],
			["INVALID_JSON", 7],
			["INVALID_RECORD", 8],
			["INVALID_RECORD", 9],
			["TORN_TAIL", 14],
			// Found when the batch is linked, after every line was applied.
			["MISSING_PARENT", 10],
			["PARENT_CYCLE", 11],
		]);
		assert.equal(reducer.tree.getLeafId(), "cccccccc", "their leaf record does not move this session's leaf");
		assert.equal(reducer.tree.size, 3 + 1 + 1 + 1 + 2, "the clash renamed, the copy and the bad lines left out");
		assert.equal(reducer.tree.getParentId("dddddddd"), "cccccccc");
		assert.equal(reducer.tree.getParentId("eeeeeeee"), "dddddddd", "bridged: the previous entry of the stream");
		assert.equal(reducer.leafRecords.get("11111111"), "aaaaaaaa");
		// Back to strict for what this session itself applies.
		throwsCode(() => reducer.apply(parseLine("{not json", 15, FILE)), "INVALID_JSON", 15);
	});

	test("links references forward within the batch, and to what was there before", () => {
		const reducer = base();
		reducer.applyOthers(
			theirs(entry("ffffffff", "eeeeeeee"), entry("eeeeeeee", "dddddddd"), entry("dddddddd", "bbbbbbbb")),
		);
		assert.deepEqual(reducer.problems, []);
		assert.deepEqual(
			reducer.tree.getBranch("ffffffff").map((e) => e.id),
			["aaaaaaaa", "bbbbbbbb", "dddddddd", "eeeeeeee", "ffffffff"],
		);
		assert.equal(reducer.tree.getLeafId(), "cccccccc");
		// A later batch hangs off entries of an earlier one; an entry naming a leaf record hangs off its target.
		reducer.applyOthers(theirs(leaf("11111111", "eeeeeeee"), entry("99999999", "11111111")));
		assert.equal(reducer.tree.getParentId("99999999"), "eeeeeeee");
		assert.deepEqual(
			reducer.tree.getChildren("bbbbbbbb").map((e) => e.id),
			["dddddddd"],
		);
		assert.deepEqual(reducer.problems, []);
		assert.equal(reducer.tree.getLeafId(), "cccccccc");
	});

	test("the same lines read whole by a lenient reader give the same tree", () => {
		const reducer = base();
		const batch = theirs(entry("dddddddd", "cccccccc"), "{not json", entry("eeeeeeee", "dddddddd"));
		reducer.applyOthers(batch);
		const whole = loadTree(
			[...withHeader(entry("aaaaaaaa", null), entry("bbbbbbbb", "aaaaaaaa"), entry("cccccccc", "aaaaaaaa")), ...batch],
			{ lenient: true, file: FILE },
		);
		whole.tree.setLeaf("cccccccc");
		assert.deepEqual(stateOf(reducer.tree), stateOf(whole.tree));
		assert.deepEqual(reducer.problems, whole.problems);
	});
});

describe("settle is linear", () => {
	const N = 200_000;
	const hex = (i: number) => i.toString(16).padStart(8, "0");
	/** Lines built directly (no JSON): the cost measured is the reducer's. */
	const record = (line: number, id: string, parentId: string | null): ParsedLine => ({
		line,
		record: { type: "custom", customType: "t", id, parentId, timestamp: T },
	});
	/** A quadratic settle would take minutes at this size; a linear one well under a second or two. */
	const budget = 3000;

	/** Applies and settles `parsed` (built beforehand), timed; then the leaf the stream names. */
	function reduce(parsed: readonly ParsedLine[], options: ReducerOptions = {}, settleEvery = Number.POSITIVE_INFINITY) {
		const reducer = SessionReducer.fresh(HEADER, options);
		const start = performance.now();
		parsed.forEach((line, i) => {
			reducer.apply(line);
			if ((i + 1) % settleEvery === 0) reducer.settle();
		});
		reducer.settle();
		const ms = performance.now() - start;
		assert.ok(ms < budget, `${parsed.length} lines, settled every ${settleEvery}: ${Math.round(ms)} ms`);
		reducer.tree.setLeaf(reducer.streamLeaf().leafId);
		return reducer;
	}

	function chain(reverse: boolean): ParsedLine[] {
		return Array.from({ length: N }, (_, k) => {
			const i = reverse ? N - 1 - k : k;
			return record(k + 2, hex(i), i === 0 ? null : hex(i - 1));
		});
	}

	test("a 200,000-deep chain in file order, settled once and after every entry", () => {
		for (const every of [Number.POSITIVE_INFINITY, 1]) {
			const reducer = reduce(chain(false), {}, every);
			assert.equal(reducer.tree.getBranch().length, N);
			assert.equal(reducer.tree.getLeafId(), hex(N - 1));
		}
	});

	test("a 200,000-deep chain written leaf first (every parent later in the stream)", () => {
		const reducer = reduce(chain(true));
		assert.deepEqual(reducer.problems, []);
		assert.equal(reducer.tree.getBranch(hex(N - 1)).length, N);
		assert.equal(reducer.tree.getLeafId(), hex(0));
	});

	test("a 200,000-long cycle: one cut, lenient", () => {
		const ring = Array.from({ length: N }, (_, i) => record(i + 2, hex(i), hex((i + 1) % N)));
		const reducer = reduce(ring, { lenient: true });
		assert.deepEqual(
			reducer.problems.map((p) => p.code),
			["PARENT_CYCLE"],
		);
		assert.equal(reducer.tree.getChildren(null).length, 1);
		assert.equal(reducer.tree.getBranch(hex(1)).length, N);
	});

	test("a node with 200,000 children (parent first, and parent last), settled once and after every entry", () => {
		for (const parentLast of [false, true]) {
			const children = Array.from({ length: N }, (_, i) => record(i + 3, hex(i + 1), "root0000"));
			const parsed = parentLast
				? [...children, record(N + 3, "root0000", null)]
				: [record(2, "root0000", null), ...children];
			// With the parent last, settling before it arrives would report every child: settle once.
			for (const every of parentLast ? [Number.POSITIVE_INFINITY] : [Number.POSITIVE_INFINITY, 1]) {
				const reducer = reduce(parsed, {}, every);
				assert.deepEqual(reducer.problems, []);
				assert.equal(reducer.tree.getChildren("root0000").length, N);
				assert.equal(reducer.tree.getChildren(null).length, 1);
			}
		}
	});
});

describe("window mode", () => {
	const window = (records: RawRecord[], options: ReducerOptions = {}) => {
		const reducer = SessionReducer.fresh(HEADER, { ...options, window: true });
		for (const record of records) reducer.applyRecord(record, 0);
		reducer.settle();
		return reducer;
	};

	test("parents before the window are not problems: the entries are listed in outside", () => {
		const records = [message("m1", "before1"), message("m2", "m1"), message("x1", "before2"), message("m3", "m2")];
		const reducer = window(records);
		assert.deepEqual(reducer.problems, []);
		assert.deepEqual([...reducer.outside].sort(), ["m1", "x1"]);
		assert.deepEqual(
			reducer.tree.getChildren(null).map((e) => e.id),
			["m1", "x1"],
		);
		assert.deepEqual(reducer.streamLeaf(), { leafId: "m3", leafRecordId: undefined });
		// The same records as a whole stream: strict throws, lenient bridges.
		const whole = SessionReducer.fresh(HEADER);
		for (const record of records) whole.applyRecord(record, 0);
		throwsCode(() => whole.settle(), "MISSING_PARENT");
	});

	test("a leaf record naming an entry before the window is returned as it is", () => {
		const reducer = window([message("m1", "before1"), leaf("l1", "before0"), leaf("l2", "l1")]);
		assert.deepEqual(reducer.streamLeaf(), { leafId: "before0", leafRecordId: "l2" });
		assert.deepEqual(reducer.problems, []);
	});

	test("other problems in a window are still problems", () => {
		throwsCode(() => window([message("m1", "before"), message("m1", "before")]), "DUPLICATE_ID");
		throwsCode(() => window([message("a", "b"), message("b", "a")]), "PARENT_CYCLE");
	});

	test("fresh: a new session's state from its own header", () => {
		const reducer = SessionReducer.fresh(HEADER);
		assert.equal(reducer.started, true);
		assert.equal(reducer.tree.size, 0);
		assert.equal(reducer.tree.header, HEADER);
		assert.equal(reducer.fromVersion, 3);
		reducer.settle();
		assert.deepEqual(reducer.streamLeaf(), { leafId: null, leafRecordId: undefined });
	});
});

describe("v1 and v2 streams migrated record by record", () => {
	const raw = (file: string): RawRecord[] =>
		readFileSync(file, "utf8")
			.split("\n")
			.filter((text) => text.trim() !== "")
			.map((text) => JSON.parse(text) as RawRecord);

	/** The tree of records migrated as a whole array (`migrateRecords`), then read as v3. */
	function wholeArray(records: RawRecord[], lenient: boolean) {
		const [header, ...entries] = structuredClone(records) as [RawRecord, ...RawRecord[]];
		const from = migrateRecords(header, entries);
		const { tree, problems } = loadTree(lines(header, ...entries), { lenient });
		return { from, header, entries, tree, problems };
	}

	/** The reducer given the raw lines, migrating each record as it comes. */
	function recordByRecord(records: RawRecord[], lenient = false) {
		return lineByLine(lines(...structuredClone(records)), { lenient }, 1);
	}

	/** Lenient for streams whose migrated records have problems (pi's migration leaves them). */
	function check(records: RawRecord[], version: number, lenient = false): void {
		const whole = wholeArray(records, lenient);
		const stream = recordByRecord(records, lenient);
		assert.deepEqual(stream.problems, whole.problems);
		assert.equal(whole.from, version);
		assert.equal(stream.fromVersion, version);
		assert.equal(stream.tree.header.version, 3);
		assert.deepEqual(stream.tree.header, whole.header);
		assert.deepEqual(stream.tree.getEntries(), whole.entries, "the same records as migrateRecords");
		assert.deepEqual(stateOf(stream.tree), stateOf(whole.tree));
	}

	for (const [name, version] of [
		["legacy-v1", 1],
		["legacy-v2", 2],
	] as const) {
		test(`pi fixture ${name}`, () => {
			const records = raw(fixtureFile(name));
			check(records, version);
			// Migrated ids are stable: reading twice gives the same ids.
			assert.deepEqual(
				recordByRecord(records)
					.tree.getEntries()
					.map((e) => e.id),
				recordByRecord(records)
					.tree.getEntries()
					.map((e) => e.id),
			);
		});
	}

	test("v1 compactions: kept index before, at, after the compaction and the header; hookMessage roles", () => {
		const v1Header: RawRecord = { type: "session", id: "v1-session", timestamp: T, cwd: "/" };
		const v1 = (type: string, extra: RawRecord = {}): RawRecord => ({ type, timestamp: T, ...extra });
		const text = (role: string, content: string) => v1("message", { message: { role, content, timestamp: 1 } });
		const records = [
			v1Header,
			text("user", "one"),
			text("hookMessage", "two"),
			v1("compaction", { summary: "s1", firstKeptEntryIndex: 1, tokensBefore: 1 }),
			text("user", "three"),
			v1("compaction", { summary: "s2", firstKeptEntryIndex: 5, tokensBefore: 1 }),
			v1("compaction", { summary: "s3", firstKeptEntryIndex: 9, tokensBefore: 1 }),
			v1("compaction", { summary: "s4", firstKeptEntryIndex: 0, tokensBefore: 1 }),
			text("user", "four"),
		];
		check(records, 1, true);
		const read = recordByRecord(records, true);
		// Compactions left without a kept entry (as pi's migration leaves them) are no damage: pi
		// then keeps nothing before them, and so does the context here; strict reads them too.
		assert.deepEqual(codes(read.problems), []);
		assert.equal(recordByRecord(records).tree.size, read.tree.size);
		const entries = read.tree.getEntries() as unknown as RawRecord[];
		assert.equal(entries[2]?.firstKeptEntryId, entries[0]?.id);
		assert.equal(entries[4]?.firstKeptEntryId, entries[4]?.id, "the compaction itself");
		assert.equal("firstKeptEntryId" in (entries[5] ?? {}), false, "an entry after the compaction: no id yet");
		assert.equal("firstKeptEntryId" in (entries[6] ?? {}), false, "the header");
		assert.equal((entries[1]?.message as RawRecord | undefined)?.role, "custom");
		assert.deepEqual(
			entries.map((e) => e.parentId),
			[null, ...entries.slice(0, -1).map((e) => e.id)],
		);
	});
});
