import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { isSessionTreeError, loadTree } from "../../src/core/index.js";
import { parseLine } from "../../src/storage/codec.js";
const headerLine = JSON.stringify({
    type: "session",
    version: 3,
    id: "sess",
    timestamp: "2026-01-01T00:00:00.000Z",
    cwd: "/",
});
const e = (id, parentId, extra = {}) => JSON.stringify({ type: "custom", customType: "t", id, parentId, timestamp: "2026-01-01T00:00:00.000Z", ...extra });
const lines = (...texts) => texts.map((text, i) => parseLine(text, i + 1, "f.jsonl"));
describe("loadTree", () => {
    test("strict: the first problem throws with file, line and a stable code", () => {
        assert.throws(() => loadTree(lines(headerLine, e("aaaaaaaa", null), "{not json"), { file: "f.jsonl" }), (err) => isSessionTreeError(err, "INVALID_JSON") && err.line === 3 && err.message.startsWith("f.jsonl:3:"));
        assert.throws(() => loadTree(lines(headerLine, "[1,2]")), (err) => isSessionTreeError(err, "INVALID_JSON") && err.line === 2);
        assert.throws(() => loadTree(lines(headerLine, JSON.stringify({ type: "message", parentId: null }))), (err) => isSessionTreeError(err, "INVALID_RECORD") && err.line === 2);
    });
    test("header problems: strict throws; lenient makes up a header and keeps a first-line entry", () => {
        assert.throws(() => loadTree([]), (err) => isSessionTreeError(err, "EMPTY_FILE"));
        assert.throws(() => loadTree(lines(e("aaaaaaaa", null))), (err) => isSessionTreeError(err, "INVALID_HEADER") && err.line === 1);
        assert.throws(() => loadTree(lines("garbage")), (err) => isSessionTreeError(err, "INVALID_HEADER"));
        const v9 = JSON.stringify({ type: "session", version: 9, id: "x", timestamp: "t", cwd: "/" });
        assert.throws(() => loadTree(lines(v9), { lenient: true }), (err) => isSessionTreeError(err, "UNSUPPORTED_VERSION"));
        const headless = loadTree(lines(e("aaaaaaaa", null), e("bbbbbbbb", "aaaaaaaa")), { lenient: true });
        assert.equal(headless.tree.size, 2);
        assert.equal(headless.tree.header.id, "recovered-session");
        assert.deepEqual(headless.problems.map((p) => [p.code, p.line]), [["INVALID_HEADER", 1]]);
        const garbage = loadTree(lines("garbage", e("aaaaaaaa", null)), { lenient: true });
        assert.equal(garbage.tree.size, 1);
    });
    test("lenient: bad lines are skipped and reported", () => {
        const { tree, problems } = loadTree(lines(headerLine, e("aaaaaaaa", null), "{torn", e("bbbbbbbb", "aaaaaaaa")), {
            lenient: true,
        });
        assert.equal(tree.size, 2);
        assert.deepEqual(problems.map((p) => [p.code, p.line]), [["INVALID_JSON", 3]]);
    });
    test("parent cycles: strict throws; lenient cuts the cycle and terminates", () => {
        const self = lines(headerLine, e("aaaaaaaa", "aaaaaaaa"));
        assert.throws(() => loadTree(self), (err) => isSessionTreeError(err, "PARENT_CYCLE") && err.line === 2);
        const longer = lines(headerLine, e("aaaaaaaa", "cccccccc"), e("bbbbbbbb", "aaaaaaaa"), e("cccccccc", "bbbbbbbb"));
        assert.throws(() => loadTree(longer), (err) => isSessionTreeError(err, "PARENT_CYCLE"));
        const { tree, problems } = loadTree(longer, { lenient: true });
        assert.deepEqual(problems.map((p) => p.code), ["PARENT_CYCLE"]);
        assert.deepEqual(tree.getBranch().map((x) => x.id), ["aaaaaaaa", "bbbbbbbb", "cccccccc"]);
    });
    test("a parent later in the file is fine when there is no cycle", () => {
        const { tree } = loadTree(lines(headerLine, e("bbbbbbbb", "aaaaaaaa"), e("aaaaaaaa", null)));
        assert.deepEqual(tree.getBranch("bbbbbbbb").map((x) => x.id), ["aaaaaaaa", "bbbbbbbb"]);
    });
    test("duplicate ids: strict throws; lenient drops an exact copy and renames a different entry", () => {
        const dup = lines(headerLine, e("aaaaaaaa", null), e("aaaaaaaa", null), e("aaaaaaaa", null, { data: 2 }));
        assert.throws(() => loadTree(dup), (err) => isSessionTreeError(err, "DUPLICATE_ID") && err.line === 3);
        const { tree, problems } = loadTree(dup, { lenient: true });
        assert.equal(tree.size, 2);
        assert.deepEqual(problems.map((p) => [p.code, p.line]), [
            ["DUPLICATE_ID", 3],
            ["DUPLICATE_ID", 4],
        ]);
    });
    test("the last leaf record sets the leaf; a later entry overrides it; unknown types are kept", () => {
        const leaf = (id, target) => JSON.stringify({ type: "leaf", id, parentId: target, timestamp: "2026-01-01T00:00:00.000Z", targetId: target });
        const base = [headerLine, e("aaaaaaaa", null), e("bbbbbbbb", "aaaaaaaa")];
        assert.equal(loadTree(lines(...base, leaf("11111111", "aaaaaaaa"))).tree.getLeafId(), "aaaaaaaa");
        assert.equal(loadTree(lines(...base, leaf("11111111", null))).tree.getLeafId(), null);
        const after = loadTree(lines(...base, leaf("11111111", "aaaaaaaa"), e("cccccccc", "11111111")));
        assert.equal(after.tree.getLeafId(), "cccccccc");
        assert.deepEqual(after.tree.getBranch().map((x) => x.id), ["aaaaaaaa", "cccccccc"]);
        const future = JSON.stringify({
            type: "future_thing",
            id: "dddddddd",
            parentId: "bbbbbbbb",
            timestamp: "2026-01-01T00:00:00.000Z",
            extra: [1],
        });
        const { tree } = loadTree(lines(...base, future));
        assert.deepEqual(tree.getEntry("dddddddd"), JSON.parse(future));
    });
});
//# sourceMappingURL=load.test.js.map