/**
 * Files the commands write besides sessions (src/cli/output.ts): a page written as it is made
 * (`writeNewFileFrom`) appears whole or not at all, owner-only, never over a file that exists
 * without --force, and leaves no temporary file behind, whatever happens while it is made.
 */

import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { writeNewFile, writeNewFileFrom } from "../../src/cli/output.js";
import { isSessionTreeError } from "../../src/core/errors.js";
import { removeTempDirs, tempDir } from "./helpers.js";

after(removeTempDirs);

describe("writeNewFileFrom", () => {
	test("the parts written as they are made, in order; the file owner-only, nothing else left", async () => {
		const dir = tempDir();
		const file = join(dir, "page.html");
		let seenBeforeEnd = false;
		await writeNewFileFrom(file, false, async (write) => {
			write("<p>");
			await new Promise(setImmediate);
			write("é ✓ 😀");
			// While it is made, only the temporary file exists (a dot file beside the target).
			const names = readdirSync(dir);
			seenBeforeEnd = names.length === 1 && names[0]?.startsWith(".page.html.") === true;
			write("</p>");
		});
		assert.ok(seenBeforeEnd, "the page is not at its name before it is whole");
		assert.equal(readFileSync(file, "utf8"), "<p>é ✓ 😀</p>");
		assert.equal(statSync(file).mode & 0o777, 0o600);
		assert.deepEqual(readdirSync(dir), ["page.html"]);
	});

	test("when making the page fails: its error, no file, no temporary file", async () => {
		const dir = tempDir();
		const file = join(dir, "page.html");
		await assert.rejects(
			writeNewFileFrom(file, false, async (write) => {
				write("half a page");
				throw new Error("the session could not be read");
			}),
			/the session could not be read/,
		);
		assert.deepEqual(readdirSync(dir), []);
	});

	test("a file that exists: refused before anything is made (without force), replaced with it", async () => {
		const dir = tempDir();
		const file = join(dir, "page.html");
		writeFileSync(file, "mine");
		let made = false;
		await assert.rejects(
			writeNewFileFrom(file, false, async () => {
				made = true;
			}),
			(error) => isSessionTreeError(error) && error.code === "FILE_EXISTS",
		);
		assert.equal(made, false);
		assert.equal(readFileSync(file, "utf8"), "mine");
		await writeNewFileFrom(file, true, async (write) => write("new"));
		assert.equal(readFileSync(file, "utf8"), "new");
		assert.deepEqual(readdirSync(dir), ["page.html"]);
	});

	test("a file that appears while the page is made is not replaced (without force)", async () => {
		const dir = tempDir();
		const file = join(dir, "page.html");
		await assert.rejects(
			writeNewFileFrom(file, false, async (write) => {
				write("the page");
				writeFileSync(file, "someone else's");
			}),
			(error) => isSessionTreeError(error) && error.code === "FILE_EXISTS",
		);
		assert.equal(readFileSync(file, "utf8"), "someone else's");
		assert.deepEqual(readdirSync(dir), ["page.html"]);
	});

	test("a directory that does not exist: IO_ERROR naming the file asked for, as writeNewFile", async () => {
		const file = join(tempDir(), "missing", "page.html");
		const named = (error: unknown) =>
			isSessionTreeError(error) &&
			error.code === "IO_ERROR" &&
			error.message.includes(file) &&
			!/\.tmp/.test(error.message);
		await assert.rejects(
			writeNewFileFrom(file, false, async (write) => write("x")),
			named,
		);
		assert.throws(() => writeNewFile(file, "x", false), named);
	});
});
