/**
 * Session URLs with a unique prefix of the session id (`sqlite:DB#0195b`), as entry ids take
 * one; an ambiguous prefix lists the candidates; a store URL without `#ID` lists what the store
 * holds. Against a real SQLite file (better-sqlite3) through the built CLI, PostgreSQL where
 * SESSION_TREE_PG_URL names a server, and the memory store in process.
 *
 * The session ids are chosen (Session.create's `id`) so that the prefixes are known by
 * construction: two share "0195aaaa", one starts "0195bbbb".
 */

import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { resolveSessionPrefix } from "../../src/catalog/session-location.js";
import { isSessionTreeError } from "../../src/core/errors.js";
import { Session } from "../../src/index.js";
import { postgresServer, testSchema } from "../support/postgres.js";
import { SQLITE_SKIP } from "../support/sqlite.js";
import { cli, removeTempDirs, tempDir } from "./helpers.js";

after(removeTempDirs);

const A1 = "0195aaaa-0000-7000-8000-000000000001";
const A2 = "0195aaaa-0000-7000-8000-000000000002";
const B = "0195bbbb-0000-7000-8000-000000000003";

/** Three sessions in the store at `base` (a database URL), each with one user message naming it. */
async function fill(base: string): Promise<void> {
	for (const id of [A1, A2, B]) {
		const session = await Session.create({ dir: base, id, cwd: "/p" });
		await session.appendMessage({ role: "user", content: `hello from ${id}`, timestamp: 1 });
		await session.close();
	}
}

/** The checks every database store must pass, `base` being its URL (as the CLI is given it). */
async function prefixChecks(base: string, cwd?: string): Promise<void> {
	const options = cwd === undefined ? {} : { cwd };
	const unique = await cli(["ctx", `${base}#0195b`], options);
	assert.equal(unique.code, 0, unique.stderr);
	assert.match(unique.stdout, new RegExp(`user: hello from ${B}`));

	const exact = await cli(["ctx", `${base}#${A2}`], options);
	assert.equal(exact.code, 0, exact.stderr);
	assert.match(exact.stdout, new RegExp(`hello from ${A2}`));

	const ambiguous = await cli(["tree", `${base}#0195a`], options);
	assert.equal(ambiguous.code, 1);
	assert.equal(ambiguous.stdout, "");
	assert.match(ambiguous.stderr, new RegExp(`0195a is ambiguous: it starts 2 ids: ${A1}, ${A2}\\n$`));

	const none = await cli(["tree", `${base}#0196`], options);
	assert.equal(none.code, 1);
	assert.match(
		none.stderr,
		/no session id starts with 0196 \(the store holds 3 sessions: session-tree ls .* lists them\)/,
	);

	const bare = await cli(["tree", base], options);
	assert.equal(bare.code, 1);
	assert.equal(bare.stdout, "");
	assert.match(
		bare.stderr,
		/names no session; name one as .*#ID \(a unique prefix of the id is enough\)\. It holds 3 sessions:/,
	);
	for (const id of [A1, A2, B]) assert.match(bare.stderr, new RegExp(`\\n  \\S+#${id}`));

	// A write through a prefix goes to that session, and only to it.
	const appended = await cli(["append", `${base}#0195bb`], {
		...options,
		input: `${JSON.stringify({ role: "user", content: "appended by prefix", timestamp: 2 })}\n`,
	});
	assert.equal(appended.code, 0, appended.stderr);
	const after = await cli(["ctx", `${base}#${B}`], options);
	assert.match(after.stdout, /2\. \S+ user: appended by prefix/);
	const other = await cli(["ctx", `${base}#${A1}`], options);
	assert.doesNotMatch(other.stdout, /appended by prefix/);
}

describe("session id prefixes in sqlite: URLs", { skip: SQLITE_SKIP }, () => {
	test("a unique prefix opens the session, for reads and writes; ambiguous and unknown ones are refused", async () => {
		const dir = tempDir();
		await fill(`sqlite:${dir}/a.db`);
		await prefixChecks(`sqlite:${dir}/a.db`);
	});

	test("a relative database path, as the issue typed it (sqlite:./a.db#PREFIX)", async () => {
		const dir = tempDir();
		await fill(`sqlite:${dir}/a.db`);
		const result = await cli(["tree", "sqlite:./a.db#0195bbbb"], { cwd: dir });
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stdout, new RegExp(`user: hello from ${B}`));
		const bare = await cli(["tree", "sqlite:./a.db"], { cwd: dir });
		assert.match(bare.stderr, /^session-tree: sqlite:\.\/a\.db: names no session; name one as sqlite:\.\/a\.db#ID/);
	});

	test("a store of many sessions lists the newest 10 and points to ls for the rest", async () => {
		const dir = tempDir();
		const base = `sqlite:${dir}/many.db`;
		for (let i = 0; i < 12; i++) {
			const session = await Session.create({
				dir: base,
				id: `0195cccc-0000-7000-8000-0000000000${String(i).padStart(2, "0")}`,
			});
			await session.close();
		}
		const bare = await cli(["info", base]);
		assert.equal(bare.code, 1);
		const listed = bare.stderr.split("\n").filter((line) => /^ {2}sqlite:.*#0195cccc/.test(line));
		assert.equal(listed.length, 10);
		assert.match(
			bare.stderr,
			new RegExp(`It holds 12 sessions:[\\s\\S]*  … and 2 more \\(session-tree ls ${base} lists them all\\)\\n$`),
		);
	});

	test("an empty database and a missing one say no such session (nothing to list)", async () => {
		const dir = tempDir();
		const missing = await cli(["tree", `sqlite:${dir}/none.db#0195`]);
		assert.equal(missing.code, 1);
		assert.match(missing.stderr, /no such session/);
		const bare = await cli(["tree", `sqlite:${dir}/none.db`]);
		assert.equal(bare.code, 1);
		assert.match(bare.stderr, /names no session, and the store holds none/);
	});
});

describe("session id prefixes in the REPL's load", { skip: SQLITE_SKIP }, () => {
	test("load sqlite:DB#PREFIX opens the one session; an ambiguous prefix is an error naming both", async () => {
		const dir = tempDir();
		await fill(`sqlite:${dir}/a.db`);
		const result = await cli(["repl"], {
			input: `load sqlite:${dir}/a.db#0195b\nctx\nload sqlite:${dir}/a.db#0195a\n`,
			env: { SESSION_TREE_HISTORY: "" },
		});
		assert.match(result.stdout, new RegExp(`sqlite:${dir}/a\\.db#${B}: 1 entry, leaf`));
		assert.match(result.stdout, new RegExp(`user: hello from ${B}`));
		assert.match(result.stderr, new RegExp(`0195a is ambiguous: it starts 2 ids: ${A1}, ${A2}`));
	});
});

describe("session id prefixes in process (memory:, and the codes)", () => {
	test("memory:PREFIX resolves to the one memory session it starts; ambiguity has AMBIGUOUS_ID", async () => {
		for (const name of ["u23c-prefix-one", "u23c-prefix-two", "u23c-other"]) {
			const session = await Session.create({ location: `memory:${name}` });
			await session.close();
		}
		assert.equal(await resolveSessionPrefix("memory:u23c-o"), "memory:u23c-other");
		await assert.rejects(resolveSessionPrefix("memory:u23c-prefix"), (error) => {
			assert.ok(isSessionTreeError(error, "AMBIGUOUS_ID"));
			assert.match(error.message, /u23c-prefix is ambiguous: it starts 2 ids: u23c-prefix-one, u23c-prefix-two/);
			return true;
		});
		await assert.rejects(resolveSessionPrefix("memory:u23c-zz"), (error) =>
			isSessionTreeError(error, "FILE_NOT_FOUND"),
		);
		// A plain path is not a store of many sessions: nothing to resolve.
		assert.equal(await resolveSessionPrefix("./some/file.jsonl"), undefined);
	});

	test("the codes of a sqlite store: INVALID_ARGUMENT without #ID, FILE_NOT_FOUND for no match", {
		skip: SQLITE_SKIP,
	}, async () => {
		const dir = tempDir();
		await fill(`sqlite:${dir}/a.db`);
		assert.equal(await resolveSessionPrefix(`sqlite:${dir}/a.db#0195b`), `sqlite:${dir}/a.db#${B}`);
		await assert.rejects(resolveSessionPrefix(`sqlite:${dir}/a.db`), (error) =>
			isSessionTreeError(error, "INVALID_ARGUMENT"),
		);
		await assert.rejects(resolveSessionPrefix(`sqlite:${dir}/a.db#x`), (error) =>
			isSessionTreeError(error, "FILE_NOT_FOUND"),
		);
		await assert.rejects(resolveSessionPrefix(`sqlite:${dir}/a.db#0195a`), (error) =>
			isSessionTreeError(error, "AMBIGUOUS_ID"),
		);
	});
});

describe("session id prefixes in postgres:// URLs", async () => {
	const server = await postgresServer();
	test("the same checks as for SQLite", { skip: "skip" in server ? server.skip : false }, async () => {
		if (!("url" in server)) return;
		const schema = testSchema(server.url, "u23c_prefix");
		await fill(schema.url);
		await prefixChecks(schema.url);
	});
});
