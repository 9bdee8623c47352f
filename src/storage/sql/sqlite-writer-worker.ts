/**
 * The thread that writes large SQLite appends (see sqlite-writer.ts): each append as the store
 * writes it in its own thread, one `BEGIN IMMEDIATE` transaction that compares the session's end
 * with the caller's (compare-append.ts) and inserts the rows, on a connection opened for the job
 * and closed after it (opening costs a few statements against the thousands of rows of a job).
 * Jobs run one at a time, in order.
 */

import { parentPort } from "node:worker_threads";
import { SessionTreeError } from "../../core/errors.js";
import { errorCode } from "../../core/validate.js";
import { encodePosition } from "./common.js";
import { compareAndWrite } from "./compare-append.js";
import { loadDriver, openDatabase, type SqliteDatabase, statementsOf } from "./sqlite-schema.js";
import type { WriterAnswer, WriterJob } from "./sqlite-writer.js";

/** Appends the job's rows if the session still ends where the job expects. */
async function append(job: WriterJob): Promise<WriterAnswer> {
	const driver = await loadDriver(job.file);
	const db = openDatabase(driver, job.file, "write");
	if (!db) throw new SessionTreeError("FILE_NOT_FOUND", "no such session", { file: job.location });
	try {
		return write(db, job);
	} finally {
		db.close();
	}
}

function write(db: SqliteDatabase, job: WriterJob): WriterAnswer {
	const sql = statementsOf(db);
	sql.setSynchronous(job.synchronous);
	const { name, rows } = job;
	let since: { seq: number; line: string }[] | undefined;
	const outcome = db
		.transaction(() =>
			compareAndWrite(job.at, {
				end: () => {
					const row = sql.session.get(name);
					if (!row) throw new SessionTreeError("FILE_NOT_FOUND", "no such session", { file: job.location });
					return row;
				},
				write: (end) => {
					sql.insertRecords(name, end.count, rows);
					sql.appended.run(end.count + rows.length, Date.now(), job.bytes, name);
					return { status: "ok" as const, position: encodePosition(end.generation, end.count + rows.length) };
				},
				since: (count, end) => {
					// The caller parses these: the lines of a StoreRead do not cross threads as they are.
					since = sql.rowsFrom.all(name, count);
					return { lines: [], position: encodePosition(end.generation, end.count) };
				},
			}),
		)
		.immediate();
	if (outcome.status === "ok") return { id: job.id, outcome };
	if (outcome.status === "stale") return { id: job.id, outcome: { status: "stale" } };
	return { id: job.id, outcome: { status: "behind", rows: since ?? [], position: outcome.read.position } };
}

/** What a failed job answers: enough to make the same SessionTreeError, or the driver's code. */
function failure(id: number, error: unknown): WriterAnswer {
	const message = error instanceof Error ? error.message : String(error);
	if (error instanceof SessionTreeError) {
		return { id, error: { tree: true, code: error.code, message, file: error.file, line: error.line } };
	}
	const code = errorCode(error);
	return { id, error: { tree: false, code: typeof code === "string" ? code : undefined, message } };
}

parentPort?.on("message", (job: WriterJob) => {
	append(job).then(
		(answer) => parentPort?.postMessage(answer),
		(error: unknown) => parentPort?.postMessage(failure(job.id, error)),
	);
});
