/**
 * One measurement of the per-store benchmark (bench/stores.ts) in a fresh process, so that
 * driver loading, connections and caches belong to it alone.
 *
 *   node bench/data/.build/bench/store-child.js '<json StoreTask>'
 *
 * Prints one line of JSON (a {@link StoreMeasurement}) on stdout. Nothing else is printed there.
 * The database work of the benchmark (imports included) happens here, never in the parent.
 */

import { createHash } from "node:crypto";
import { rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { compileQuery, searchSessions } from "../src/catalog/search.js";
import { copyLocation, copySession } from "../src/catalog/transfer.js";
import { collectionAt, Session, schemeOf, storeAt } from "../src/index.js";
import { readAllRecords } from "../src/storage/batches.js";
import { maxRss, messagesToAppend } from "./shared.js";

export type StoreTask =
	/** Can the store of `collection` be reached (a query on `probe`, a session that need not exist)? */
	| { op: "ping"; collection: string; probe: string }
	/**
	 * Makes `location` hold a copy of the JSONL `file`: kept when it holds `records` records
	 * (`bytes` bytes as JSONL) already, else removed from `collection` and copied anew.
	 */
	| {
			op: "import";
			file: string;
			location: string;
			collection: string;
			records: number;
			bytes: number;
			force?: boolean;
	  }
	/** Makes `collection` hold a copy of every session of the directory `dir`, and nothing else. */
	| { op: "import-collection"; dir: string; collection: string; sessions: number; bytes: number; force?: boolean }
	/**
	 * A new session in `dir` (a directory or a database collection) with `durability`, then
	 * `count` awaited appends; the session is deleted afterwards.
	 */
	| { op: "append"; dir: string; count: number; durability: "none" | "fsync" }
	/**
	 * Session.open(location, { load }) + buildSessionContext() (with `tree`, getTree() between
	 * them: a full open's walk of every node). `probe` warms the connection first.
	 */
	| { op: "resume"; location: string; load: "context" | "all"; probe: string; tree?: boolean }
	/** searchSessions(collectionAt(collection), compileQuery({ pattern }), { scan }). */
	| { op: "search"; collection: string; pattern: string; scan: boolean; probe?: string };

export interface StoreMeasurement {
	/** Milliseconds of the timed part. */
	ms?: number;
	/** Milliseconds of the untimed warm-up: loading the driver and a first query (databases). */
	connectMs?: number;
	/** resume: sha256 of JSON.stringify({ messages, thinkingLevel, model }); search: of the sorted hit ids. */
	hash?: string;
	messages?: number;
	/** search: hits, sessions with a hit, sessions listed, sessions skipped. */
	hits?: number;
	hitSessions?: number;
	sessions?: number;
	skipped?: number;
	/** import: whether the copy already there was kept; the location written. */
	reused?: boolean;
	location?: string;
	/** import: why an existing copy was replaced. */
	reason?: string;
	/** resume with `tree`: the nodes getTree() gave. */
	nodes?: number;
	/** Peak resident set size of the process, bytes. */
	maxRss: number;
	error?: string;
}

/** The nodes of a tree, walked without recursion. */
function countNodes(roots: readonly { children: readonly unknown[] }[]): number {
	let count = 0;
	const stack = [...roots];
	for (let node = stack.pop(); node; node = stack.pop()) {
		count++;
		for (const child of node.children) stack.push(child as { children: readonly unknown[] });
	}
	return count;
}

function sha256(text: string): string {
	return createHash("sha256").update(text).digest("hex");
}

function isDirectory(path: string): boolean {
	try {
		return statSync(path).isDirectory();
	} catch {
		return false;
	}
}

/** A database location (not a path or file: URL). */
function isDatabase(location: string): boolean {
	const scheme = schemeOf(location);
	return scheme !== undefined && scheme !== "file" && scheme !== "memory";
}

/** Loads the driver and runs a first query: what a long-running process has done already. */
async function warmUp(probe: string | undefined): Promise<number | undefined> {
	if (!probe) return undefined;
	const t0 = performance.now();
	const store = storeAt(probe);
	await store.exists();
	await store.close();
	return performance.now() - t0;
}

/** The listing of `location` in `collection`, if the collection lists it. */
async function listingOf(collection: string, location: string): Promise<{ bytes?: number } | undefined> {
	for await (const listing of collectionAt(collection).list()) {
		if (listing.location === location) return listing;
	}
	return undefined;
}

async function measure(task: StoreTask): Promise<StoreMeasurement> {
	const result: StoreMeasurement = { maxRss: 0 };
	if (task.op === "ping") {
		const t0 = performance.now();
		const collection = collectionAt(task.collection);
		const store = storeAt(task.probe);
		await store.exists();
		await store.close();
		result.ms = performance.now() - t0;
		result.location = `${collection.location} (search index: ${collection.capabilities.search ? "yes" : "no"})`;
	} else if (task.op === "import") {
		const store = storeAt(task.location);
		const location = store.location;
		result.location = location;
		if (await store.exists()) {
			if (!task.force) {
				// The listing's size of a JSONL copy, where the store keeps it; else count the records.
				const listing = await listingOf(task.collection, location);
				if (listing?.bytes !== undefined) {
					if (listing.bytes === task.bytes) result.reused = true;
					else result.reason = `it holds ${listing.bytes} bytes of JSONL, the file ${task.bytes}`;
				} else {
					const records = (await readAllRecords(store)).length;
					if (records === task.records) result.reused = true;
					else result.reason = `it holds ${records} records, the file ${task.records}`;
				}
			} else result.reason = "asked to import again";
			if (!result.reused) await collectionAt(task.collection).remove?.(location);
		}
		await store.close();
		if (!result.reused) {
			const t0 = performance.now();
			result.location = await copySession(storeAt(task.file), { location: task.location });
			result.ms = performance.now() - t0;
		}
	} else if (task.op === "import-collection") {
		const collection = collectionAt(task.collection);
		const listed: Array<{ location: string; bytes?: number }> = [];
		for await (const listing of collection.list()) listed.push(listing);
		const bytes = listed.reduce((sum, listing) => sum + (listing.bytes ?? Number.NaN), 0);
		if (!task.force && listed.length === task.sessions && (Number.isNaN(bytes) || bytes === task.bytes)) {
			result.reused = true;
		} else {
			if (task.force) result.reason = "asked to import again";
			else if (listed.length > 0) {
				result.reason = `it holds ${listed.length} sessions (${bytes} bytes), the directory ${task.sessions} (${task.bytes} bytes)`;
			}
			for (const listing of listed) await collection.remove?.(listing.location);
			await collection.close?.();
			const t0 = performance.now();
			const failures: string[] = [];
			let copied = 0;
			for await (const event of copyLocation(task.dir, task.collection, isDirectory)) {
				if (event.kind === "copied" || event.kind === "completed" || event.kind === "updated") copied++;
				else failures.push(`${event.source}: ${event.kind === "failed" ? event.error.message : event.reason}`);
			}
			result.ms = performance.now() - t0;
			result.sessions = copied;
			if (failures.length > 0) result.error = `${failures.length} sessions not copied; first: ${failures[0]}`;
		}
		await collection.close?.();
		result.location = collection.location;
	} else if (task.op === "append") {
		const database = isDatabase(task.dir);
		const messages = messagesToAppend(task.count);
		// By location, not `dir`: Session.create gives `durability` to the store of a location only.
		const location = database
			? `${task.dir}#bench-append-${process.pid}`
			: join(task.dir, `append-${process.pid}.jsonl`);
		const t = performance.now();
		const session = await Session.create({ location, durability: task.durability });
		result.connectMs = performance.now() - t;
		result.location = session.location;
		try {
			const t0 = performance.now();
			for (const message of messages) await session.appendMessage(message);
			result.ms = performance.now() - t0;
			await session.close();
		} finally {
			if (database) await collectionAt(task.dir).remove?.(session.location);
			else if (session.file) rmSync(session.file, { force: true });
		}
	} else if (task.op === "resume") {
		result.connectMs = await warmUp(task.probe);
		const t0 = performance.now();
		const session = await Session.open(task.location, { load: task.load });
		if (task.tree) result.nodes = countNodes(session.getTree());
		const context = session.buildSessionContext();
		result.ms = performance.now() - t0;
		const { messages, thinkingLevel, model } = context;
		result.hash = sha256(JSON.stringify({ messages, thinkingLevel, model }));
		result.messages = messages.length;
		await session.close();
	} else if (task.op === "search") {
		result.connectMs = await warmUp(task.probe);
		const t0 = performance.now();
		const collection = collectionAt(task.collection);
		const found = await searchSessions(collection, compileQuery({ pattern: task.pattern }), { scan: task.scan });
		result.ms = performance.now() - t0;
		await collection.close?.();
		const ids = found.hits.map((hit) => `${hit.sessionId}:${hit.entryId}`).sort();
		result.hash = sha256(ids.join("\n"));
		result.hits = found.hits.length;
		result.hitSessions = new Set(found.hits.map((hit) => hit.sessionId)).size;
		result.sessions = found.sessions;
		result.skipped = found.skipped.length;
	} else {
		throw new Error(`unknown op ${(task as { op: string }).op}`);
	}
	result.maxRss = maxRss();
	return result;
}

/** Closes the database connections the stores keep per process (modules loaded only if present). */
async function closeDatabases(): Promise<void> {
	const modules: Array<[string, string]> = [
		["../src/storage/sql/sqlite-store.js", "closeSqliteDatabases"],
		["../src/storage/sql/postgres-store.js", "closePostgresPools"],
	];
	for (const [specifier, name] of modules) {
		try {
			const module = (await import(specifier)) as Record<string, unknown>;
			const close = module[name];
			if (typeof close === "function") await (close as () => unknown)();
		} catch {
			// not built, or nothing open
		}
	}
}

function describeError(error: unknown): string {
	if (!(error instanceof Error)) return String(error);
	const code = (error as { code?: unknown }).code;
	return `${error.name}${typeof code === "string" ? ` ${code}` : ""}: ${error.message}`;
}

const task = JSON.parse(process.argv[2] ?? "{}") as StoreTask;
let out: StoreMeasurement;
try {
	out = await measure(task);
} catch (error) {
	out = { error: describeError(error), maxRss: maxRss() };
}
process.stdout.write(`${JSON.stringify(out)}\n`);
await closeDatabases();
// An idle pool or handle must not keep the process (and the benchmark) waiting.
setTimeout(() => process.exit(process.exitCode ?? 0), 3000).unref();
