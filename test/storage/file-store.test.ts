import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { FileSessionStore, isSessionTreeError, readFileLines, Session } from "../../src/index.js";

const dir = mkdtempSync(join(tmpdir(), "st-store-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(dir, `f${++n}.jsonl`);

describe("readFileLines", () => {
	test("splits only on \\n, across chunk boundaries, keeping multi-byte characters whole", () => {
		const file = fresh();
		// Lines longer than the 1 MiB chunk, with 4-byte characters straddling chunk edges.
		const long = "😀".repeat(300_000); // 1.2 MB
		const lines = ["a\u2028b\rc", long, "", "é", `${long}x`];
		writeFileSync(file, `${lines.join("\n")}\n`);
		const read = [...readFileLines(file)];
		assert.deepEqual(
			read.map((l) => l.text),
			lines,
		);
		assert.deepEqual(
			read.map((l) => l.line),
			[1, 2, 3, 4, 5],
		);
	});

	test("drops a byte-order mark and returns a last line without newline", () => {
		const file = fresh();
		writeFileSync(file, '\ufeff{}\n{"a":1}');
		assert.deepEqual(
			[...readFileLines(file)].map((l) => l.text),
			["{}", '{"a":1}'],
		);
	});

	test("a missing file is FILE_NOT_FOUND naming the file", () => {
		const file = join(dir, "nope.jsonl");
		assert.throws(
			() => [...readFileLines(file)],
			(e: unknown) => isSessionTreeError(e, "FILE_NOT_FOUND") && e.message.includes(file),
		);
	});
});

describe("FileSessionStore", () => {
	test("creates owner-only files and refuses to overwrite", () => {
		const file = join(dir, "sub", "dir", "s.jsonl");
		const store = new FileSessionStore(file);
		store.create({ type: "session", version: 3, id: "x", timestamp: "t", cwd: "/" });
		assert.equal(statSync(file).mode & 0o777, 0o600);
		assert.throws(
			() => store.create({ type: "session" }),
			(e: unknown) => isSessionTreeError(e, "FILE_EXISTS"),
		);
	});

	test("each append adds exactly its lines at the end and leaves the rest byte for byte", () => {
		const s = Session.create({ dir, cwd: "/p" });
		const file = s.file as string;
		let before = readFileSync(file);
		for (let i = 0; i < 20; i++) {
			const id = s.appendMessage({ role: "user", content: `m${i}`, timestamp: i });
			const after = readFileSync(file);
			assert.deepEqual(after.subarray(0, before.length), before, "prefix unchanged");
			const added = after.subarray(before.length).toString("utf8");
			assert.equal(added.split("\n").length, 2, "one line");
			assert.equal(JSON.parse(added).id, id);
			before = after;
		}
	});

	test("CRLF line ends, blank lines and a BOM still load", () => {
		const s = Session.create({ dir, cwd: "/p" });
		s.appendMessage({ role: "user", content: "hi", timestamp: 1 });
		const file = s.file as string;
		const text = readFileSync(file, "utf8");
		writeFileSync(file, `\ufeff${text.split("\n").join("\r\n")}\n\n  \n`);
		const reopened = Session.open(file);
		assert.equal(reopened.entryCount, 1);
		assert.equal(reopened.buildSessionContext().messages.length, 1);
	});

	test("a default file name follows pi's layout and naming", () => {
		const agentDir = join(dir, "agent");
		const s = Session.create({ agentDir, cwd: "/home/me/proj", now: () => new Date("2026-03-04T05:06:07.089Z") });
		const file = s.file as string;
		assert.equal(
			file,
			join(agentDir, "sessions", "--home-me-proj--", `2026-03-04T05-06-07-089Z_${s.getSessionId()}.jsonl`),
		);
		assert.match(s.getSessionId(), /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
	});

	test("a session id that would leave the directory is refused", () => {
		assert.throws(
			() => Session.create({ dir, id: "../../etc/x" }),
			(e: unknown) => isSessionTreeError(e, "INVALID_ARGUMENT"),
		);
	});
});
