/**
 * The PostgreSQL store when the network or the server fails (issue 29 item 8, issue 30 item 4),
 * through a real TCP proxy (test/support/tcp-proxy.ts): answers lost after the commit, statements
 * lost before it, a server that stops answering (library and CLI), a statement past its time
 * limit, and backends the server terminates under the pool. docs/durability.md, "Lost answers
 * and time limits". Skips without a server (see test/support/postgres.ts).
 */

import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { isSessionTreeError, Session } from "../../src/index.js";
import { PostgresSessionStore, parsePostgresUrl, readPostgresBackup } from "../../src/storage/sql/postgres-store.js";
import { chain, newHeader } from "../../src/testing/helpers.js";
import { BIN, REPO } from "../cli/helpers.js";
import { userMessage } from "../support/messages.js";
import { postgresServer, query, type TestSchema, testSchema } from "../support/postgres.js";
import { PgProxy } from "../support/tcp-proxy.js";

/** The append statement (its SQL starts so; see postgres-rows.ts). */
const APPEND = /^WITH current AS/;
const COMMIT = /^COMMIT/;
/** Short limits, so that a silent server fails a command within seconds. */
const SHORT = "connect_timeout=2&query_timeout=2000&statement_timeout=1500";

/** The error `work` rejects with, which must be a SessionTreeError with `code`. */
async function rejects(work: () => Promise<unknown>, code: string): Promise<Error> {
	try {
		await work();
	} catch (error) {
		assert.ok(isSessionTreeError(error), String(error));
		assert.equal(error.code, code, error.message);
		return error;
	}
	assert.fail(`expected ${code}`);
}

/** Runs the built CLI with a message on stdin; killed (SIGKILL) if it runs longer than `ms`. */
function cliWithin(
	args: string[],
	ms: number,
): Promise<{ code: number | null; signal: string | null; stderr: string }> {
	const child = spawn(process.execPath, [BIN, ...args], {
		stdio: ["pipe", "ignore", "pipe"],
		timeout: ms,
		killSignal: "SIGKILL",
	});
	let stderr = "";
	child.stderr.on("data", (chunk: Buffer) => {
		stderr += chunk.toString("utf8");
	});
	child.stdin.on("error", () => {});
	child.stdin.end(`${JSON.stringify({ role: "user", content: "hi" })}\n`);
	return new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stderr })));
}

/**
 * Terminates the backends of `application_name` `app` on `server` (waiting until they are gone) from a child
 * process, this process blocked meanwhile: its pool learns of it only when it next reads the
 * socket, as after a server restart. Returns how many there were.
 */
function terminateNow(server: string, app: string): number {
	const script = `const pg = await import("pg");
const client = new pg.default.Client(${JSON.stringify(server)});
await client.connect();
const result = await client.query("SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE application_name = $1", [${JSON.stringify(app)}]);
await client.end();
process.stdout.write(String(result.rowCount));`;
	return Number(execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: REPO, encoding: "utf8" }));
}

/** `url` with more query parameters. */
function withParams(url: string, params: string): string {
	const hash = url.indexOf("#");
	const base = hash < 0 ? url : url.slice(0, hash);
	return `${base}${base.includes("?") ? "&" : "?"}${params}${hash < 0 ? "" : url.slice(hash)}`;
}

describe("limits in the location (no server needed)", () => {
	test("defaults, values from the query (connect_timeout in seconds), removed from the connection string", () => {
		assert.deepEqual(parsePostgresUrl("postgres://h/db").limits, {
			connectMs: 10_000,
			statementMs: 30_000,
			idleInTransactionMs: 30_000,
			queryMs: 40_000,
		});
		const url = parsePostgresUrl(
			"postgres://u:pw@h/db?connect_timeout=3&sslmode=disable&statement_timeout=0&query_timeout=2500&idle_in_transaction_session_timeout=700&schema=x#s",
		);
		assert.deepEqual(url.limits, { connectMs: 3000, statementMs: 0, idleInTransactionMs: 700, queryMs: 2500 });
		assert.equal(url.connectionString, "postgres://u:pw@h/db?sslmode=disable");
		assert.equal(url.schema, "x");
	});

	test("a limit that is not a whole number is refused, naming it, without the password", async () => {
		for (const bad of ["query_timeout=", "query_timeout=-1", "statement_timeout=1.5", "connect_timeout=10s"]) {
			const error = await rejects(
				async () => parsePostgresUrl(`postgres://u:s3cret@h/db?${bad}#s`),
				"INVALID_ARGUMENT",
			);
			assert.match(error.message, new RegExp(bad.slice(0, bad.indexOf("="))));
			assert.ok(!error.message.includes("s3cret"), error.message);
		}
	});
});

const server = await postgresServer();
if ("skip" in server) {
	test("PostgreSQL faults", { skip: server.skip }, () => {});
} else {
	const pg = server.url;
	const db: TestSchema = testSchema(pg, "faults");
	const target = new URL(pg);
	let proxy: PgProxy;
	before(async () => {
		proxy = await PgProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
	});
	after(() => proxy.close());

	/** How many records of session `name` hold `text` (read directly, not through the proxy). */
	const copiesOf = async (name: string, text: string): Promise<number> => {
		const rows = await query<{ n: string }>(
			pg,
			`SELECT count(*) AS n FROM "${db.schema}".records WHERE session = $1 AND strpos(line, $2) > 0`,
			[name, JSON.stringify(text)],
		);
		return Number(rows[0]?.n);
	};

	describe("answers lost after the commit", () => {
		test("appends whose answers are cut after the commit, retried by their caller: no failed call stored, no message twice", async () => {
			proxy.passThrough();
			const session = await Session.create({ location: proxy.via(db.url), cwd: "/faults" });
			const name = parsePostgresUrl(session.location).name ?? "";
			const cutsBefore = proxy.cuts;
			const N = 24;
			let failures = 0;
			for (let i = 0; i < N; i++) {
				const text = `message ${i}`;
				// Every third append loses its answer; so does, now and then, the store's own second try.
				if (i % 3 === 0) proxy.cutAfterAnswer(APPEND, i % 9 === 0 ? 2 : 1);
				for (let attempt = 0; ; attempt++) {
					assert.ok(attempt < 5, `${text}: still failing after 5 tries`);
					try {
						await session.appendMessage(userMessage(text, i));
						break;
					} catch (error) {
						failures++;
						// The caller retries, as a caller would: only right if the failed call stored nothing.
						assert.equal(await copiesOf(name, text), 0, `a failed call stored ${text}: ${String(error)}`);
					}
				}
			}
			proxy.passThrough();
			assert.ok(proxy.cuts - cutsBefore >= N / 3, `answers were lost (${proxy.cuts - cutsBefore} cuts)`);
			for (let i = 0; i < N; i++) assert.equal(await copiesOf(name, `message ${i}`), 1, `message ${i} is stored once`);
			const reopened = await Session.open(db.session(name));
			assert.equal(reopened.entryCount, N);
			assert.deepEqual(
				reopened.getBranch().map((entry) => entry.type === "message" && entry.message.content),
				Array.from({ length: N }, (_, i) => `message ${i}`),
				"one chain, in order",
			);
			assert.equal(failures, 0, "every lost answer was resolved before the call answered");
		});

		test("store.append: a lost answer is ok at the right position; a statement lost before the server is sent again", async () => {
			proxy.passThrough();
			const direct = db.session(randomUUID());
			const store = new PostgresSessionStore(proxy.via(direct));
			const p0 = await store.create(newHeader());
			proxy.cutAfterAnswer(APPEND);
			const first = chain(2, null, "cut after");
			const a = await store.append(first, p0);
			assert.equal(a.status, "ok");
			assert.equal(proxy.cuts > 0, true);
			proxy.cutBefore(APPEND);
			const second = chain(1, first[1]?.id ?? null, "cut before");
			const b = await store.append(second, a.status === "ok" ? a.position : p0);
			assert.equal(b.status, "ok", "sent again on a new connection");
			const read = await new PostgresSessionStore(direct).read();
			assert.equal(read.lines.length, 4, "the header and three records, none twice");
			assert.equal(b.status === "ok" && b.position, read.position);
		});

		test("create and replace whose COMMIT answers are lost: done once, no FILE_EXISTS, the backup kept", async () => {
			proxy.passThrough();
			const header = newHeader();
			const location = db.session(header.id);
			const store = new PostgresSessionStore(proxy.via(location));
			proxy.cutAfterAnswer(COMMIT);
			const p = await store.create(header);
			assert.equal((await new PostgresSessionStore(location).read()).lines.length, 1);
			const records = chain(3, null, "to replace");
			const appended = await store.append(records, p);
			assert.equal(appended.status, "ok");
			proxy.cutAfterAnswer(COMMIT);
			const replaced = await store.replace(
				[header, ...records.slice(0, 2)],
				appended.status === "ok" ? appended.position : p,
			);
			assert.equal(replaced.status, "ok");
			assert.equal((await new PostgresSessionStore(location).read()).lines.length, 3);
			if (replaced.status === "ok") {
				assert.equal((await readPostgresBackup(replaced.backup.replace(proxy.via(pg), pg))).length, 4);
				assert.equal((await store.append(chain(1, records[1]?.id ?? null), replaced.position)).status, "ok");
			}
		});

		test("a lost answer and no server to ask: IO_ERROR saying that whether it was stored is unknown", async () => {
			const lone = await PgProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
			const store = new PostgresSessionStore(withParams(lone.via(db.session(randomUUID())), SHORT));
			const p = await store.create(newHeader());
			lone.cutAfterAnswer(APPEND);
			lone.onCut = () => void lone.close();
			const error = await rejects(() => store.append(chain(1, null), p), "IO_ERROR");
			assert.match(error.message, /could not be asked whether it took effect/);
		});
	});

	describe("a server that stops answering", () => {
		test("a store: IO_ERROR naming the limit and the location (password masked), within seconds", async () => {
			proxy.passThrough();
			const location = withParams(proxy.via(db.session(randomUUID())), SHORT).replace(
				"://postgres@",
				"://postgres:s3cret@",
			);
			const store = new PostgresSessionStore(location);
			await store.create(newHeader());
			proxy.silent();
			const started = Date.now();
			const error = await rejects(() => store.read(), "IO_ERROR");
			assert.ok(Date.now() - started < 10_000, `answered after ${Date.now() - started} ms`);
			assert.match(error.message, /did not answer within 2000 ms \(query_timeout/);
			assert.match(error.message, /postgres:\*\*\*@/);
			assert.ok(!error.message.includes("s3cret"), error.message);
			const write = await rejects(() => store.append(chain(1, null), "0:1"), "IO_ERROR");
			assert.match(write.message, /whether it took effect/, "a write sent and unanswered: its fate is unknown");
			proxy.silent({ handshake: false });
			const unreached = new PostgresSessionStore(withParams(proxy.via(db.session(randomUUID())), SHORT));
			const connect = await rejects(() => unreached.exists(), "IO_ERROR");
			assert.match(connect.message, /cannot connect to 127\.0\.0\.1:\d+: no answer within 2 s \(connect_timeout/);
			proxy.passThrough();
		});

		test("the CLI: tree, ls and append exit 1 with the message, well within 15 s", async () => {
			proxy.passThrough();
			const base = withParams(proxy.via(db.url), SHORT);
			const session = await Session.create({ location: base, cwd: "/silent" });
			await session.appendMessage(userMessage("hello", 1));
			proxy.silent();
			try {
				for (const args of [
					["tree", session.location],
					["ls", base],
					["append", session.location],
				]) {
					const started = Date.now();
					const run = await cliWithin(args, 15_000);
					assert.notEqual(run.signal, "SIGKILL", `session-tree ${args[0]} still running after 15 s`);
					assert.equal(run.code, 1, `${args[0]}: ${run.stderr}`);
					assert.match(run.stderr, /did not answer within 2000 ms|cannot connect/, `${args[0]}: ${run.stderr}`);
					process.stdout.write(
						`# ${args[0]} against a silent server: exit ${run.code} after ${Date.now() - started} ms\n`,
					);
				}
			} finally {
				proxy.passThrough();
			}
		});
	});

	test("a statement past statement_timeout: IO_ERROR naming the limit", async () => {
		const location = withParams(db.session(randomUUID()), "statement_timeout=300");
		const store = new PostgresSessionStore(location, { lock: { timeoutMs: 5000 } });
		const p = await store.create(newHeader());
		const { Client } = await import("pg");
		const holder = new Client({ connectionString: pg });
		await holder.connect();
		try {
			await holder.query("BEGIN");
			await holder.query(`SELECT 1 FROM "${db.schema}".sessions WHERE name = $1 FOR UPDATE`, [
				parsePostgresUrl(location).name,
			]);
			const error = await rejects(() => store.append(chain(1, null), p), "IO_ERROR");
			assert.match(error.message, /longer than statement_timeout=300 ms and was cancelled/);
		} finally {
			await holder.query("ROLLBACK");
			await holder.end();
		}
		assert.equal((await store.append(chain(1, null), p)).status, "ok", "nothing was stored; the connection is usable");
	});

	test("a fork's copies and a replace of many records get time beyond the limits, 1 ms a record", async () => {
		const name = randomUUID();
		const store = new PostgresSessionStore(withParams(db.session(name), "statement_timeout=100&query_timeout=200"));
		const header = newHeader();
		const p = await store.create(header);
		const records = chain(10_000, null, "x".repeat(500));
		const appended = await store.append(records, p);
		assert.equal(appended.status, "ok", "10,000 records in one append: 10 s more");
		if (appended.status !== "ok") return;
		const replaced = await store.replace([header, ...records.slice(0, 9_000)], appended.position);
		assert.equal(replaced.status, "ok", "a replace copying 10,000 records and inserting 9,000: 19 s more");
		// Read with the default limits: a read gets no more time for its size.
		assert.equal((await new PostgresSessionStore(db.session(name)).read()).lines.length, 9_001);
	});

	describe("connections that died in the pool", () => {
		test("backends terminated by the server: the next operations succeed, reads and writes", async () => {
			const app = `st_faults_${process.pid}`;
			const location = withParams(db.session(randomUUID()), `application_name=${app}`);
			const store = new PostgresSessionStore(location);
			let p = await store.create(newHeader());
			for (let round = 0; round < 5; round++) {
				// From another process, while this one's event loop waits: the pool cannot have heard of it yet.
				const killed = terminateNow(pg, app);
				assert.ok(killed > 0, "the pool's connection was there to terminate");
				assert.equal(await store.exists(), true, `round ${round}: exists`);
				const appended = await store.append(chain(1, null, `round ${round}`), p);
				assert.equal(appended.status, "ok", `round ${round}: append`);
				if (appended.status === "ok") p = appended.position;
			}
			assert.equal((await store.read()).lines.length, 6);
		});

		test("connections cut under an idle pool: the next read and append succeed", async () => {
			proxy.passThrough();
			const store = new PostgresSessionStore(proxy.via(db.session(randomUUID())));
			let p = await store.create(newHeader());
			for (let round = 0; round < 3; round++) {
				proxy.cutAll();
				assert.equal((await store.read()).lines.length, 1 + round, `round ${round}: read`);
				proxy.cutAll();
				const appended = await store.append(chain(1, null, `round ${round}`), p);
				assert.equal(appended.status, "ok", `round ${round}: append`);
				if (appended.status === "ok") p = appended.position;
			}
		});
	});
}
