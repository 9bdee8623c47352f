/**
 * Large SQLite appends (a copy's, an import's) written in a thread of their own. better-sqlite3
 * runs a statement in the calling thread: in the main thread, a copy parsed and encoded its next
 * records only after SQLite had inserted and indexed the last ones, on one of the two cores.
 * In the writer thread the transaction runs while the main thread goes on
 * (`appendBatches` reads the next records meanwhile).
 *
 * The thread opens its own connection for each append and closes it after, as another process
 * would (so no connection of it outlives a job, and `closeSqliteDatabases` needs nothing of it):
 * the append is the same `BEGIN IMMEDIATE` compare-and-write (compare-append.ts), serialised with every
 * other writer by SQLite's lock, and what it reports (`behind` with what others wrote, `stale`,
 * a typed error) is what the store reports in its own thread. One thread per process, started
 * on first use and not keeping the process alive; jobs run in the order they are sent.
 */

import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { SessionTreeError, type SessionTreeErrorCode } from "../../core/errors.js";
import type { IndexedRecord } from "./common.js";
import type { SqlEnd } from "./compare-append.js";

/** What the thread is asked: an append (see {@link SqliteWriter.append}). */
export interface WriterJob {
	id: number;
	file: string;
	location: string;
	name: string;
	at: SqlEnd;
	rows: readonly IndexedRecord[];
	bytes: number;
	synchronous: "NORMAL" | "FULL";
}

/** What an append did: as a compare-and-write's outcome, `behind` with the stored rows since. */
export type WriterOutcome =
	| { status: "ok"; position: string }
	| { status: "stale" }
	| { status: "behind"; rows: { seq: number; line: string }[]; position: string };

/** The thread's answer to a job. */
export type WriterAnswer =
	| { id: number; outcome: WriterOutcome }
	| {
			id: number;
			error:
				| {
						tree: true;
						code: SessionTreeErrorCode;
						message: string;
						file?: string | undefined;
						line?: number | undefined;
				  }
				| { tree: false; code: string | undefined; message: string };
	  };

/** An error the thread reported, thrown in this one: a SessionTreeError as it was, else a driver error with its code. */
export class WriterError extends Error {
	constructor(
		message: string,
		readonly code: string | undefined,
	) {
		super(message);
	}
}

/**
 * The thread's module: beside this one in `dist` (and in the tests' build); from the CLI's bundle
 * (`dist/bin`), the same file in `dist/storage/sql`, which the package ships too.
 */
function workerUrl(): URL | undefined {
	for (const path of ["./sqlite-writer-worker.js", "../storage/sql/sqlite-writer-worker.js"]) {
		const url = new URL(path, import.meta.url);
		if (existsSync(fileURLToPath(url))) return url;
	}
	return undefined;
}

/** The writer thread of this process. */
export class SqliteWriter {
	private readonly waiting = new Map<
		number,
		{ resolve: (answer: WriterAnswer) => void; reject: (error: Error) => void }
	>();
	private next = 1;

	private constructor(private readonly worker: Worker) {
		worker.on("message", (answer: WriterAnswer) => {
			const job = this.waiting.get(answer.id);
			this.waiting.delete(answer.id);
			if (this.waiting.size === 0) worker.unref();
			job?.resolve(answer);
		});
		const fail = (error: Error) => {
			if (current === this) current = undefined;
			for (const job of this.waiting.values()) job.reject(error);
			this.waiting.clear();
		};
		worker.on("error", fail);
		worker.on("exit", (code) =>
			fail(new WriterError(`the SQLite writer thread stopped (exit code ${code})`, undefined)),
		);
		worker.unref();
	}

	/** The thread, started now if it is not running; undefined when its module is not there. */
	static get(): SqliteWriter | undefined {
		if (current) return current;
		const url = workerUrl();
		if (!url) return undefined;
		try {
			current = new SqliteWriter(new Worker(url));
		} catch {
			// No thread to be had (a limit on threads, say): the store writes in its own thread.
			return undefined;
		}
		return current;
	}

	/**
	 * Appends `rows` to session `name` of `file` if it still ends at `at`, in the thread.
	 * @throws SessionTreeError as the thread's store code threw it; WriterError for the driver's
	 */
	async append(job: Omit<WriterJob, "id">): Promise<WriterOutcome> {
		const answer = await this.send({ id: this.next++, ...job });
		if ("outcome" in answer) return answer.outcome;
		const error = answer.error;
		if (!error.tree) throw new WriterError(error.message, error.code);
		// The message is formatted already (location first): only the fields are set again.
		throw Object.assign(new SessionTreeError(error.code, error.message), { file: error.file, line: error.line });
	}

	private send(job: WriterJob): Promise<WriterAnswer> {
		return new Promise((resolve, reject) => {
			this.waiting.set(job.id, { resolve, reject });
			// Alive while a job is in flight: a copy awaiting its append is not an idle process.
			this.worker.ref();
			this.worker.postMessage(job);
		});
	}
}

let current: SqliteWriter | undefined;
