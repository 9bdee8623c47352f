/**
 * The per-store section of `npm run bench`: the same operations on the JSONL file store, the
 * SQLite store and the PostgreSQL store, each measurement in a fresh child process
 * (bench/store-child.ts), the median of up to 3 runs, printed as one table with the ratio to
 * JSONL. Every store must give the same context (sha256) as the JSONL file and the same search
 * hits; anything else is printed as MISMATCH and fails the run.
 *
 * - "1,000 appends": a new session, 1,000 `await session.appendMessage(...)` one after another,
 *   with durability "none" (survives a crash of the process: no fsync; PostgreSQL commits with
 *   `synchronous_commit = off`) and "fsync" (survives a power loss once acknowledged).
 * - "resume": bench/data/s100k.jsonl and s100k-tail.jsonl (and the 1M files with --large),
 *   imported once into each database under a fixed name (cached in bench/data/stores.json),
 *   opened with `load: "context"` (a database reads the active path by index) and, for the
 *   ratio, `load: "all"`, then buildSessionContext().
 * - "search 1,000 sessions": 1,000 small generated sessions in bench/data/search1k/ (20 of them
 *   hold "zebra crossing protocol" in a user message, 20 others "a protocol for the crossing"),
 *   copied once into their own SQLite database and PostgreSQL schema; searchSessions for
 *   "crossing protocol": a scan of the directory, the databases through their full-text index,
 *   and the databases by scanning, for comparison.
 *
 * Databases: SQLite at bench/data/stores.db (search: bench/data/search1k.db); PostgreSQL at
 * $SESSION_TREE_PG_URL (default postgres://postgres@127.0.0.1:5432/test), schema
 * session_tree_bench (search: session_tree_bench_search). A store that cannot be reached is
 * skipped with the reason.
 */

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DATA_DIR, ensureFile, filesForSize, generateSession, Rng } from "./generate.js";
import { fmtMiB, fmtMs, markdownTable, median, scriptArgs } from "./shared.js";
import type { StoreMeasurement, StoreTask } from "./store-child.js";

const STORE_CHILD = join(dirname(fileURLToPath(import.meta.url)), "store-child.js");
const MiB = 2 ** 20;
const DEFAULT_PG_URL = "postgres://postgres@127.0.0.1:5432/test";
const CACHE_FILE = join(DATA_DIR, "stores.json");

/** Options of {@link runStores}. */
export interface StoresOptions {
	/** Runs per measurement (the median is reported); at most 3 are made. */
	runs: number;
	/** Also the 1M-entry files. */
	large: boolean;
	log?: (line: string) => void;
	/** Where to write the raw figures. Default bench/data/last-stores-run.json. */
	json?: string;
}

type StoreKey = "jsonl" | "sqlite" | "postgres";

interface StoreDef {
	key: StoreKey;
	label: string;
	/** Where `append` creates its sessions: a directory or a database collection. */
	appendDir: string;
	/** The collection holding the imported bench sessions (databases). */
	collection: string;
	/** The location of a bench file's session in this store. */
	resumeLocation: (name: string, file: string) => string;
	/** The collection of the 1,000 search sessions. */
	searchCollection: string;
	/** A session (need not exist) whose `exists()` loads the driver and connects, untimed. */
	probe?: string;
	searchProbe?: string;
}

/** The location with `?schema=NAME` set (replacing a schema it has). */
function withSchema(url: string, schema: string): string {
	const base = url.split("#")[0] as string;
	if (/[?&]schema=[^&]*/.test(base)) return base.replace(/([?&])schema=[^&]*/, `$1schema=${schema}`);
	return `${base}${base.includes("?") ? "&" : "?"}schema=${schema}`;
}

/** A location of a session `name` in the database of collection `base`. */
function inCollection(base: string, name: string): string {
	return `${base}#${name}`;
}

function storeDefs(tempDir: string): StoreDef[] {
	const sqliteDb = join(DATA_DIR, "stores.db");
	const sqliteSearch = join(DATA_DIR, "search1k.db");
	const pgBase = process.env.SESSION_TREE_PG_URL || DEFAULT_PG_URL;
	const pg = withSchema(pgBase, "session_tree_bench");
	const pgSearch = withSchema(pgBase, "session_tree_bench_search");
	return [
		{
			key: "jsonl",
			label: "JSONL",
			appendDir: tempDir,
			collection: tempDir,
			resumeLocation: (_name, file) => file,
			searchCollection: SEARCH_DIR,
		},
		{
			key: "sqlite",
			label: "SQLite",
			appendDir: `sqlite:${sqliteDb}`,
			collection: `sqlite:${sqliteDb}`,
			resumeLocation: (name) => inCollection(`sqlite:${sqliteDb}`, `bench-${name}`),
			searchCollection: `sqlite:${sqliteSearch}`,
			probe: inCollection(`sqlite:${sqliteDb}`, "bench-probe"),
			searchProbe: inCollection(`sqlite:${sqliteSearch}`, "bench-probe"),
		},
		{
			key: "postgres",
			label: "PostgreSQL",
			appendDir: pg,
			collection: pg,
			resumeLocation: (name) => inCollection(pg, `bench-${name}`),
			searchCollection: pgSearch,
			probe: inCollection(pg, "bench-probe"),
			searchProbe: inCollection(pgSearch, "bench-probe"),
		},
	];
}

// ---- child processes -----------------------------------------------------------------------------

function runStoreChild(
	task: StoreTask,
	timeoutMs = 20 * 60_000,
	nodeArgs: string[] = [],
	script = STORE_CHILD,
): StoreMeasurement {
	const extra = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);
	const child = spawnSync(process.execPath, [...extra, ...nodeArgs, script, JSON.stringify(task)], {
		encoding: "utf8",
		maxBuffer: 16 * MiB,
		timeout: timeoutMs,
		killSignal: "SIGKILL",
	});
	const line = child.stdout?.trim().split("\n").pop();
	if (line) {
		try {
			return JSON.parse(line) as StoreMeasurement;
		} catch {
			// fall through
		}
	}
	const why =
		child.error && (child.error as { code?: string }).code === "ETIMEDOUT"
			? `no answer within ${(timeoutMs / 1000).toFixed(0)} s`
			: child.signal
				? `killed by ${child.signal}${child.signal === "SIGKILL" ? " (out of memory?)" : ""}`
				: `exit code ${child.status}`;
	const detail = (child.stderr ?? "")
		.split("\n")
		.find((l) => /Error|heap|memory/i.test(l))
		?.trim();
	return { error: detail ? `${why}: ${detail.slice(0, 200)}` : why, maxRss: 0 };
}

/** Several measurements of one thing: the medians and the first hash and error of {@link StoreMeasurement}s. */
type Figure = Pick<
	StoreMeasurement,
	"ms" | "connectMs" | "hash" | "messages" | "hits" | "hitSessions" | "sessions" | "skipped" | "error"
> & { samples: number[]; maxRss?: number };

/** The figure of several measurements of one thing: medians, the first hash, the first error. */
function figureOf(all: StoreMeasurement[]): Figure {
	const ok = all.filter((m) => !m.error);
	const first = ok[0];
	const numbers = (pick: (m: StoreMeasurement) => number | undefined) =>
		ok.map(pick).filter((v): v is number => v !== undefined);
	const figure: Figure = {
		ms: median(numbers((m) => m.ms)),
		connectMs: median(numbers((m) => m.connectMs)),
		maxRss: median(numbers((m) => m.maxRss)),
		hash: first?.hash,
		messages: first?.messages,
		hits: first?.hits,
		hitSessions: first?.hitSessions,
		sessions: first?.sessions,
		skipped: first?.skipped,
		error: all.find((m) => m.error)?.error,
		samples: numbers((m) => m.ms),
	};
	if (new Set(ok.map((m) => m.hash)).size > 1) figure.error = "the hash differs between runs";
	return figure;
}

/**
 * Runs each task `runs` times, interleaved (a, b, c, a, b, c...) so load drifts hit every store;
 * a task that failed once is not repeated.
 */
function measureAll<K extends string>(tasks: Array<[K, StoreTask]>, runs: number): Map<K, Figure> {
	const results = new Map<K, StoreMeasurement[]>(tasks.map(([key]) => [key, []]));
	const failed = new Set<K>();
	for (let run = 0; run < runs; run++) {
		for (const [key, task] of tasks) {
			if (failed.has(key)) continue;
			const m = runStoreChild(task);
			results.get(key)?.push(m);
			if (m.error) failed.add(key);
		}
	}
	return new Map([...results].map(([key, all]) => [key, figureOf(all)]));
}

// ---- the cache of imports -----------------------------------------------------------------------------

interface CacheEntry {
	location: string;
	records?: number;
	sessions?: number;
	bytes: number;
	importMs?: number;
	importedAt: string;
}

function readCache(): Record<string, CacheEntry> {
	try {
		return JSON.parse(readFileSync(CACHE_FILE, "utf8")) as Record<string, CacheEntry>;
	} catch {
		return {};
	}
}

function writeCache(cache: Record<string, CacheEntry>): void {
	writeFileSync(CACHE_FILE, `${JSON.stringify(cache, null, "\t")}\n`);
}

// ---- the search sessions ----------------------------------------------------------------------------

const SEARCH_DIR = join(DATA_DIR, "search1k");
const SEARCH_META = join(DATA_DIR, "search1k.meta.json");
const SEARCH = {
	version: 1,
	sessions: 1000,
	entries: 40,
	seed: 31_337_000,
	phrase: "zebra crossing protocol",
	decoy: "a protocol for the crossing",
	pattern: "crossing protocol",
};
/** Sessions holding the phrase (20 of 1,000), and the decoy (20 others: both words, not the phrase). */
const planted = (i: number) => i % 50 === 7;
const decoyed = (i: number) => i % 50 === 32;

interface SearchSet {
	sessions: number;
	bytes: number;
	/** Hits a search for the pattern must give: one user message per planted session. */
	expectedHits: number;
}

function sessionFile(i: number): string {
	return join(SEARCH_DIR, `session-${String(i).padStart(4, "0")}.jsonl`);
}

/** Puts `text` in the middle of one user message of a generated session file (seeded choice). */
function plantText(file: string, text: string, rng: Rng): void {
	const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
	const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
	const users = records
		.map((record, i) => ({ record, i }))
		.filter(({ record }) => record.type === "message" && (record.message as { role?: string }).role === "user");
	const chosen = rng.pick(users);
	if (!chosen) throw new Error(`${file}: no user message to plant text in`);
	const message = chosen.record.message as { content: string | Array<{ type: string; text?: string }> };
	const insert = (body: string) => {
		const cut = body.indexOf(" ", body.length >> 1);
		return cut < 0 ? `${body} ${text}` : `${body.slice(0, cut)} ${text}${body.slice(cut)}`;
	};
	if (typeof message.content === "string") message.content = insert(message.content);
	else {
		const part = message.content.find((p) => p.type === "text" && typeof p.text === "string");
		if (part) part.text = insert(part.text as string);
		else message.content.push({ type: "text", text });
	}
	writeFileSync(file, records.map((record) => `${JSON.stringify(record)}\n`).join(""));
}

function directoryBytes(): { files: number; bytes: number } {
	if (!existsSync(SEARCH_DIR)) return { files: 0, bytes: 0 };
	const names = readdirSync(SEARCH_DIR).filter((name) => name.endsWith(".jsonl"));
	return { files: names.length, bytes: names.reduce((sum, name) => sum + statSync(join(SEARCH_DIR, name)).size, 0) };
}

/** The 1,000 search sessions in bench/data/search1k/, generated unless they are there already. */
export function ensureSearchSet(log: (line: string) => void): SearchSet {
	const expectedHits = Array.from({ length: SEARCH.sessions }, (_, i) => i).filter(planted).length;
	try {
		const meta = JSON.parse(readFileSync(SEARCH_META, "utf8")) as { params: typeof SEARCH; bytes: number };
		const now = directoryBytes();
		if (
			JSON.stringify(meta.params) === JSON.stringify(SEARCH) &&
			now.files === SEARCH.sessions &&
			now.bytes === meta.bytes
		) {
			return { sessions: SEARCH.sessions, bytes: meta.bytes, expectedHits };
		}
	} catch {
		// generate
	}
	log(`generating ${SEARCH.sessions} search sessions of ${SEARCH.entries} entries in ${SEARCH_DIR}...`);
	const started = performance.now();
	rmSync(SEARCH_DIR, { recursive: true, force: true });
	mkdirSync(SEARCH_DIR, { recursive: true });
	const rng = new Rng(SEARCH.seed);
	for (let i = 0; i < SEARCH.sessions; i++) {
		const file = sessionFile(i);
		generateSession({ file, entries: SEARCH.entries, seed: SEARCH.seed + i + 1 });
		if (planted(i)) plantText(file, SEARCH.phrase, rng);
		else if (decoyed(i)) plantText(file, SEARCH.decoy, rng);
	}
	const { bytes } = directoryBytes();
	writeFileSync(SEARCH_META, `${JSON.stringify({ params: SEARCH, bytes }, null, "\t")}\n`);
	log(`  ${(bytes / MiB).toFixed(1)} MiB, ${((performance.now() - started) / 1000).toFixed(1)} s`);
	return { sessions: SEARCH.sessions, bytes, expectedHits };
}

// ---- reporting ----------------------------------------------------------------------------------------

interface Row {
	store: string;
	figure: string;
	ms: string;
	ratio: string;
	check: string;
}

function fmtRatio(ratio: number | undefined): string {
	if (ratio === undefined || !Number.isFinite(ratio)) return "—";
	return `${ratio >= 10 ? ratio.toFixed(0) : ratio.toFixed(2)}×`;
}

function printTable(rows: Row[]): string {
	const header: Row = { store: "store", figure: "figure", ms: "ms", ratio: "vs JSONL", check: "check" };
	const keys: Array<keyof Row> = ["store", "figure", "ms", "ratio", "check"];
	return markdownTable(
		keys.map((k) => header[k]),
		rows.map((r) => keys.map((k) => r[k])),
	);
}

// ---- the run -------------------------------------------------------------------------------------------

/** Measures every store, prints the table; sets process.exitCode = 1 on a mismatch or a failure. */
export async function runStores(options: StoresOptions): Promise<void> {
	const log = options.log ?? ((line: string) => console.log(line));
	const runs = Math.max(1, Math.min(options.runs, 3));
	const started = Date.now();
	const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;
	const rows: Row[] = [];
	const notes: string[] = [];
	const raw: Record<string, unknown> = {};
	let failed = false;
	const problem = (text: string) => {
		notes.push(text);
		failed = true;
	};

	const tempDir = join(DATA_DIR, `.stores-tmp-${process.pid}`);
	mkdirSync(tempDir, { recursive: true });
	try {
		log("");
		log(`== stores: JSONL, SQLite, PostgreSQL (${runs} run${runs > 1 ? "s" : ""}, median) ==`);

		// Which stores are there.
		const stores: StoreDef[] = [];
		for (const def of storeDefs(tempDir)) {
			if (!def.probe) {
				stores.push(def);
				continue;
			}
			const ping = runStoreChild(
				{ op: "ping", collection: def.collection, probe: def.probe },
				def.key === "postgres" ? 8000 : 30_000,
			);
			if (ping.error) {
				log(`${def.label}: skipped (${ping.error})`);
				notes.push(`${def.label}: skipped (${ping.error})`);
			} else {
				log(`${def.label}: ${ping.location}, reached in ${fmtMs(ping.ms)}`);
				stores.push(def);
			}
		}
		const jsonl = stores[0] as StoreDef;
		const dbStores = stores.filter((s) => s.probe);
		const cache = readCache();

		// A row per store of one figure; the ratio is against the JSONL row, `check` says the rest.
		const addRows = (
			figure: string,
			figures: Map<StoreKey, Figure>,
			check: (store: StoreDef, f: Figure) => string,
		): void => {
			const base = figures.get("jsonl")?.ms;
			for (const store of stores) {
				const f = figures.get(store.key);
				if (!f) continue;
				if (f.error) {
					rows.push({ store: store.label, figure, ms: "fails", ratio: "—", check: "" });
					problem(`${store.label} ${figure}: ${f.error}`);
					continue;
				}
				const ratio = base !== undefined && f.ms !== undefined && base > 0 ? f.ms / base : undefined;
				rows.push({ store: store.label, figure, ms: fmtMs(f.ms), ratio: fmtRatio(ratio), check: check(store, f) });
			}
		};

		// 1. 1,000 appends to a new session, with each durability every store offers.
		const appendRaw: Record<string, unknown> = {};
		raw.appends = appendRaw;
		for (const durability of ["none", "fsync"] as const) {
			log(`\n1,000 appends to a new session, durability ${JSON.stringify(durability)} (${elapsed()})`);
			const appends = measureAll(
				stores.map((s): [StoreKey, StoreTask] => [s.key, { op: "append", dir: s.appendDir, count: 1000, durability }]),
				runs,
			);
			appendRaw[durability] = Object.fromEntries(appends);
			addRows(`1,000 appends (durability ${durability})`, appends, (s, f) =>
				f.connectMs === undefined ? "" : `create ${fmtMs(f.connectMs)} before${s.probe ? " (connect included)" : ""}`,
			);
			for (const store of stores) {
				const f = appends.get(store.key);
				log(`  ${store.label}: ${fmtMs(f?.ms)}${f?.error ? ` (fails: ${f.error})` : ""}`);
			}
		}

		// 2. Resume the bench files.
		const sizes = ["100k", ...(options.large ? ["1m"] : [])];
		const resumeRaw: Record<string, unknown> = {};
		raw.resume = resumeRaw;
		for (const size of sizes) {
			for (const bench of filesForSize(size)) {
				const { file, stats } = ensureFile(bench, log);
				const records = stats.entries + 1;
				log(
					`\nresume ${bench.name}: ${(stats.bytes / MiB).toFixed(0)} MiB, ${stats.entries.toLocaleString("en-US")} entries, ` +
						`active path ${stats.pathLength.toLocaleString("en-US")} (${elapsed()})`,
				);
				const usable: StoreDef[] = [jsonl];
				for (const store of dbStores) {
					const key = `${store.key}:${bench.name}`;
					const location = store.resumeLocation(bench.name, file);
					const cached = cache[key];
					const force = cached !== undefined && (cached.location !== location || cached.bytes !== stats.bytes);
					// copySession holds every record of the file, and its read-back, in memory: a 1M file
					// needs more heap than the default (capped below the machine's memory, so that V8 fails
					// rather than the kernel's OOM killer picking a process).
					const outcome = runStoreChild(
						{ op: "import", file, location, collection: store.collection, records, bytes: stats.bytes, force },
						90 * 60_000,
						["--max-old-space-size=12288"],
					);
					if (outcome.error) {
						log(`  ${store.label}: import failed: ${outcome.error}`);
						problem(`${store.label}: import of ${bench.name} failed: ${outcome.error}`);
						continue;
					}
					if (outcome.reused) {
						log(`  ${store.label}: ${outcome.location} (imported before, in ${fmtMs(cached?.importMs)})`);
					} else {
						const text = `${store.label}: imported ${bench.name} in ${fmtMs(outcome.ms)} (copySession, read back and compared; peak RSS ${(outcome.maxRss / MiB).toFixed(0)} MiB)${outcome.reason ? `; replaced the copy there: ${outcome.reason}` : ""}`;
						log(`  ${text}`);
						notes.push(text);
						cache[key] = {
							location: outcome.location ?? location,
							records,
							bytes: stats.bytes,
							importMs: outcome.ms,
							importedAt: new Date().toISOString(),
						};
						writeCache(cache);
					}
					usable.push(store);
				}
				const tasks: Array<[string, StoreTask]> = [];
				for (const store of usable) {
					for (const load of ["context", "all"] as const) {
						const location = store.resumeLocation(bench.name, file);
						tasks.push([`${store.key}:${load}`, { op: "resume", location, load, probe: store.probe ?? file }]);
					}
				}
				const figures = measureAll(tasks, runs);
				resumeRaw[bench.name] = Object.fromEntries(figures);
				const reference = figures.get("jsonl:context");
				const pick = (load: string) =>
					new Map(
						usable.flatMap((s): Array<[StoreKey, Figure]> => {
							const f = figures.get(`${s.key}:${load}`);
							return f ? [[s.key, f]] : [];
						}),
					);
				const checkHash = (store: StoreDef, f: Figure, load: string): string => {
					if (!reference?.hash) return f.hash ? `${f.hash.slice(0, 12)} (${f.messages} msgs)` : "—";
					if (store.key === "jsonl" && load === "context") {
						return `context ${reference.hash.slice(0, 12)} (${reference.messages} msgs)`;
					}
					if (f.hash === reference.hash) return "same context";
					const what = `${store.label} resume ${bench.name} (load: ${load}): context ${f.hash} (${f.messages} msgs), JSONL ${reference.hash} (${reference.messages} msgs)`;
					console.error(`\n!!! MISMATCH: ${what} !!!\n`);
					problem(`MISMATCH: ${what}`);
					return "**MISMATCH**";
				};
				const context = pick("context");
				const all = pick("all");
				addRows(`resume ${bench.name} (load: context)`, context, (s, f) => {
					const connect = f.connectMs !== undefined && s.probe ? `; connect ${fmtMs(f.connectMs)} before` : "";
					return `${checkHash(s, f, "context")}; peak RSS ${fmtMiB(f.maxRss)}${connect}`;
				});
				addRows(`resume ${bench.name} (load: all)`, all, (s, f) => {
					const c = context.get(s.key)?.ms;
					const ratio = c !== undefined && f.ms !== undefined && c > 0 ? `; all / context ${fmtRatio(f.ms / c)}` : "";
					return `${checkHash(s, f, "all")}; peak RSS ${fmtMiB(f.maxRss)}${ratio}`;
				});
				for (const store of usable) {
					log(
						`  ${store.label}: context ${fmtMs(context.get(store.key)?.ms)}, all ${fmtMs(all.get(store.key)?.ms)}` +
							`${context.get(store.key)?.error ? ` (context fails: ${context.get(store.key)?.error})` : ""}` +
							`${all.get(store.key)?.error ? ` (all fails: ${all.get(store.key)?.error})` : ""}`,
					);
				}
			}
		}

		// 3. Search 1,000 sessions.
		log(
			`\nsearch ${SEARCH.sessions.toLocaleString("en-US")} sessions for ${JSON.stringify(SEARCH.pattern)} (${elapsed()})`,
		);
		const set = ensureSearchSet(log);
		const searchable: StoreDef[] = [jsonl];
		for (const store of dbStores) {
			const key = `${store.key}:search1k`;
			const cached = cache[key];
			const force = cached !== undefined && (cached.location !== store.searchCollection || cached.bytes !== set.bytes);
			const outcome = runStoreChild(
				{
					op: "import-collection",
					dir: SEARCH_DIR,
					collection: store.searchCollection,
					sessions: set.sessions,
					bytes: set.bytes,
					force,
				},
				60 * 60_000,
			);
			if (outcome.error) {
				log(`  ${store.label}: import failed: ${outcome.error}`);
				problem(`${store.label}: import of the search sessions failed: ${outcome.error}`);
				continue;
			}
			if (outcome.reused) {
				log(`  ${store.label}: ${outcome.location} (imported before, in ${fmtMs(cached?.importMs)})`);
			} else {
				const text = `${store.label}: imported the ${set.sessions} search sessions in ${fmtMs(outcome.ms)} (copyLocation)${outcome.reason ? `; replaced what was there: ${outcome.reason}` : ""}`;
				log(`  ${text}`);
				notes.push(text);
				cache[key] = {
					location: store.searchCollection,
					sessions: set.sessions,
					bytes: set.bytes,
					importMs: outcome.ms,
					importedAt: new Date().toISOString(),
				};
				writeCache(cache);
			}
			searchable.push(store);
		}
		const searchTasks: Array<[string, StoreTask]> = [];
		for (const store of searchable) {
			const task = (scan: boolean): StoreTask => ({
				op: "search",
				collection: store.searchCollection,
				pattern: SEARCH.pattern,
				scan,
				probe: store.searchProbe,
			});
			if (store.key === "jsonl") searchTasks.push([`${store.key}:scan`, task(true)]);
			else searchTasks.push([`${store.key}:index`, task(false)], [`${store.key}:scan`, task(true)]);
		}
		const searches = measureAll(searchTasks, runs);
		raw.search = { set, figures: Object.fromEntries(searches) };
		const reference = searches.get("jsonl:scan");
		const checkHits = (store: StoreDef, f: Figure, how: string): string => {
			const text = `${f.hits} hits in ${f.hitSessions} of ${f.sessions} sessions${f.skipped ? `, ${f.skipped} skipped` : ""}`;
			const wrong: string[] = [];
			if (store.key === "jsonl" && f.hits !== set.expectedHits) {
				wrong.push(`${f.hits} hits where ${set.expectedHits} were planted`);
			}
			if (reference?.hash && f.hash !== reference.hash) wrong.push(`hits differ from JSONL's (${reference.hits})`);
			if (f.sessions !== set.sessions) wrong.push(`${f.sessions} sessions listed, ${set.sessions} expected`);
			if (wrong.length === 0) return text;
			const what = `${store.label} search (${how}): ${wrong.join("; ")}`;
			console.error(`\n!!! MISMATCH: ${what} !!!\n`);
			problem(`MISMATCH: ${what}`);
			return `**MISMATCH** ${text}`;
		};
		const byKind = (kind: string) =>
			new Map(
				searchable.flatMap((s): Array<[StoreKey, Figure]> => {
					const f = searches.get(`${s.key}:${kind}`);
					return f ? [[s.key, f]] : [];
				}),
			);
		const indexFigures = byKind("index");
		if (reference) indexFigures.set("jsonl", reference);
		const indexName = (s: StoreDef) => (s.key === "sqlite" ? "FTS5" : s.key === "postgres" ? "tsvector" : "scan");
		addRows(`search ${SEARCH.sessions.toLocaleString("en-US")} sessions (index)`, indexFigures, (s, f) =>
			s.key === "jsonl" ? `scan: ${checkHits(s, f, "scan")}` : `${indexName(s)}: ${checkHits(s, f, "index")}`,
		);
		const scanFigures = byKind("scan");
		scanFigures.delete("jsonl");
		if (reference) scanFigures.set("jsonl", reference);
		if (dbStores.length > 0) {
			addRows(`search ${SEARCH.sessions.toLocaleString("en-US")} sessions (scan: true)`, scanFigures, (s, f) =>
				s.key === "jsonl" ? "the same run as above" : checkHits(s, f, "scan"),
			);
		}
		for (const [key, f] of searches) log(`  ${key}: ${fmtMs(f.ms)}${f.error ? ` (fails: ${f.error})` : ""}`);

		// The table.
		log("");
		log(printTable(rows));
		if (notes.length > 0) {
			log("");
			for (const note of notes) log(`- ${note}`);
		}
		log(`\n(stores: ${elapsed()}; load average now ${loadavg()[0]?.toFixed(2)})`);
		const jsonFile = options.json ?? join(DATA_DIR, "last-stores-run.json");
		writeFileSync(
			jsonFile,
			`${JSON.stringify({ date: new Date().toISOString(), node: process.version, runs, large: options.large, rows, notes, raw }, null, "\t")}\n`,
		);
		if (failed) process.exitCode = 1;
	} finally {
		rmSync(tempDir, { recursive: true, force: true });
	}
}

// ---- the database targets of issue 28 -------------------------------------------------------------------

/** Options of {@link runDatabaseTargets}. */
export interface DatabaseTargetsOptions {
	/** The bench file measured with this build: "1m" (s1m) or "100k". */
	size: string;
	/**
	 * Another build's bench directory (its `bench/data/.build/bench`, holding store-child.js),
	 * measured in the same run on `baseSize`.
	 */
	base?: string;
	/** The bench file measured with the base build (its 1M copy into SQLite takes 500 s or more). */
	baseSize: string;
	/** Runs of the full opens and searches (the median is reported); copies run once. */
	runs: number;
	/** Skip PostgreSQL. */
	noPostgres?: boolean;
	log?: (line: string) => void;
}

/** The size of a SQLite database with its WAL, bytes. */
function databaseBytes(file: string): number {
	let bytes = 0;
	for (const name of [file, `${file}-wal`]) if (existsSync(name)) bytes += statSync(name).size;
	return bytes;
}

/**
 * The database targets of issue 28, for one build (ours, or the base's): `copy` of a bench file
 * into a new SQLite database (default heap) and a PostgreSQL schema (12 GiB heap: its read-back
 * parses every record), the SQLite file's size against the JSONL's, a full open (`load: "all"`,
 * getTree, buildSessionContext) from each under the default heap, and the search of the 1,000
 * sessions through each index. Prints one table.
 */
export function runDatabaseTargets(options: DatabaseTargetsOptions): void {
	const log = options.log ?? ((line: string) => console.log(line));
	const pgBase = process.env.SESSION_TREE_PG_URL || DEFAULT_PG_URL;
	const sides = [
		{ name: "ours", script: STORE_CHILD, size: options.size },
		...(options.base ? [{ name: "base", script: join(options.base, "store-child.js"), size: options.baseSize }] : []),
	];
	const rows: string[][] = [];
	const set = ensureSearchSet(log);
	log(`\n== database targets (issue 28): load average ${loadavg()[0]?.toFixed(2)} ==`);
	for (const side of sides) {
		const bench = filesForSize(side.size)[0];
		if (!bench) throw new Error(`no bench file of size ${side.size}`);
		const { file, stats } = ensureFile(bench, log);
		const records = stats.entries + 1;
		const run = (task: StoreTask, nodeArgs: string[] = [], timeout = 90 * 60_000) =>
			runStoreChild(task, timeout, nodeArgs, side.script);
		const sqliteFile = join(DATA_DIR, `targets-${side.name}.db`);
		const sqlite = `sqlite:${sqliteFile}`;
		const pg = withSchema(pgBase, `session_tree_targets_${side.name}`);
		const targets = [
			{ label: "SQLite", collection: sqlite, heap: [] as string[] },
			...(options.noPostgres ? [] : [{ label: "PostgreSQL", collection: pg, heap: ["--max-old-space-size=12288"] }]),
		];
		const add = (figure: string, value: string, check = "") => rows.push([side.name, bench.name, figure, value, check]);
		const reference = run({ op: "resume", location: file, load: "all", probe: file, tree: true });
		add("JSONL full open (all + getTree + context)", fmtMs(reference.ms), `peak RSS ${fmtMiB(reference.maxRss)}`);
		log(`${side.name}: JSONL full open of ${bench.name}: ${fmtMs(reference.ms)}`);
		for (const target of targets) {
			const location = inCollection(target.collection, `bench-${bench.name}`);
			if (target.label === "SQLite")
				for (const suffix of ["", "-wal", "-shm"]) rmSync(sqliteFile + suffix, { force: true });
			log(`${side.name}: copy ${bench.name} into ${target.label}...`);
			const copy = run(
				{ op: "import", file, location, collection: target.collection, records, bytes: stats.bytes, force: true },
				target.heap,
			);
			const heap = target.heap.length > 0 ? "12 GiB heap" : "default heap";
			add(
				`copy into ${target.label}`,
				copy.error ? "fails" : fmtMs(copy.ms),
				copy.error ?? `${heap}; peak RSS ${fmtMiB(copy.maxRss)}`,
			);
			log(`  ${copy.error ?? fmtMs(copy.ms)}`);
			if (copy.error) continue;
			if (target.label === "SQLite") {
				const bytes = databaseBytes(sqliteFile);
				add("SQLite file / JSONL", `${(bytes / stats.bytes).toFixed(2)}×`, `${fmtMiB(bytes)} / ${fmtMiB(stats.bytes)}`);
			}
			const opens: StoreMeasurement[] = [];
			for (let k = 0; k < options.runs; k++) {
				const open = run({ op: "resume", location, load: "all", probe: location, tree: true });
				opens.push(open);
				if (open.error) break;
			}
			const failed = opens.find((open) => open.error);
			const same = opens.every((open) => open.hash === reference.hash);
			add(
				`full open from ${target.label} (default heap)`,
				failed ? "fails" : fmtMs(median(opens.map((open) => open.ms ?? 0))),
				failed?.error ??
					`peak RSS ${fmtMiB(median(opens.map((open) => open.maxRss)))}; ${same ? "same context as JSONL" : "**MISMATCH**"}${opens[0]?.nodes === undefined ? "; no getTree (not in this build's child)" : ""}`,
			);
			if (!failed && !same) process.exitCode = 1;
		}
		// Search: the 1,000 sessions in a database of this build's own.
		const searchFile = join(DATA_DIR, `targets-search-${side.name}.db`);
		for (const suffix of ["", "-wal", "-shm"]) rmSync(searchFile + suffix, { force: true });
		const searchCollection = `sqlite:${searchFile}`;
		const imported = run({
			op: "import-collection",
			dir: SEARCH_DIR,
			collection: searchCollection,
			sessions: set.sessions,
			bytes: set.bytes,
			force: true,
		});
		if (imported.error) add("search 1,000 sessions (SQLite index)", "fails", imported.error);
		else {
			const searches: StoreMeasurement[] = [];
			for (let k = 0; k < Math.max(3, options.runs); k++) {
				searches.push(
					run({
						op: "search",
						collection: searchCollection,
						pattern: SEARCH.pattern,
						scan: false,
						probe: inCollection(searchCollection, "bench-probe"),
					}),
				);
			}
			const first = searches[0];
			add(
				"search 1,000 sessions (SQLite index)",
				first?.error ? "fails" : fmtMs(median(searches.map((m) => m.ms ?? 0))),
				first?.error ??
					`${first?.hits} hits in ${first?.hitSessions} sessions (${set.expectedHits} planted); import ${fmtMs(imported.ms)}; file ${fmtMiB(databaseBytes(searchFile))}`,
			);
		}
		for (const suffix of ["", "-wal", "-shm"]) rmSync(sqliteFile + suffix, { force: true });
	}
	log("");
	log(markdownTable(["build", "file", "figure", "value", "notes"], rows));
	log(`\n(load average now ${loadavg()[0]?.toFixed(2)})`);
}

const targetArgs = scriptArgs(import.meta.url);
if (targetArgs && process.argv.includes("--db-targets")) {
	runDatabaseTargets({
		size: targetArgs("--size") ?? "1m",
		base: targetArgs("--base"),
		baseSize: targetArgs("--base-size") ?? "100k",
		runs: Number(targetArgs("--runs") ?? 3),
		noPostgres: process.argv.includes("--no-postgres"),
	});
}
