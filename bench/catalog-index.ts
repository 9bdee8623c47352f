/**
 * The catalog index section of `npm run bench` (issue 25): over 1,000 generated pi sessions in
 * a temporary HOME (bench/generate.ts, 20 to 300 entries each, branches and compactions, about
 * 50 KB each), the time of
 * - a cold index build (no index file: every session read),
 * - a warm refresh with nothing changed (every file stat'ed, none read),
 * - a warm refresh after 10 sessions were appended to (those read from their last position),
 * and the latency of 20 queries (plain words and phrases, ignore-case, two regular expressions)
 * through the index (`CatalogIndex.search`) and through a scan (`searchSessions` with `scan`,
 * every file read), median and p95, in the same run. Each query is checked to give the same
 * hits both ways.
 *
 * `npm run bench -- --index-only` runs only this section; alone, after `tsc -p bench/tsconfig.json`:
 * `node bench/data/.build/bench/catalog-index.js [--runs N] [--sessions N]`.
 */

import assert from "node:assert/strict";
import {
	appendFileSync,
	cpSync,
	existsSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	rmSync,
	statSync,
	writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { AgentsCollection, agentPlaces } from "../src/catalog/agents.js";
import { agentSources, CatalogIndex } from "../src/catalog/catalog-index/index.js";
import { compileQuery, type SearchQuery, searchSessions } from "../src/catalog/search.js";
import { DATA_DIR, generateSession, Rng } from "./generate.js";
import { fmtMs, median, percentile, scriptArgs, timed } from "./shared.js";

/** Options of {@link runCatalogIndex}. */
export interface CatalogIndexBenchOptions {
	runs: number;
	/** Sessions generated, default 1,000. */
	sessions?: number;
	log?: (line: string) => void;
}

const QUERIES: SearchQuery[] = [
	{ pattern: "parse" },
	{ pattern: "the session" },
	{ pattern: "compaction summary" },
	{ pattern: "sha256" },
	{ pattern: "größe" },
	{ pattern: "日本語" },
	{ pattern: "roots.push(node)" },
	{ pattern: "regression" },
	{ pattern: "interface" },
	{ pattern: "no such words anywhere" },
	{ pattern: "PARSE", ignoreCase: true },
	{ pattern: "Migrate Version", ignoreCase: true },
	{ pattern: "RÉSUMÉ", ignoreCase: true },
	{ pattern: "token cache" },
	{ pattern: "biome lint" },
	{ pattern: "utf8 decode" },
	{ pattern: "ok" },
	{ pattern: "bug" },
	{ pattern: "fix(ed|es)? the (parser|lexer)", regex: true },
	{ pattern: "\\bhash\\b", regex: true, ignoreCase: true },
];

/** The generated HOME (made once, kept in bench/data/). */
function generatedHome(count: number, log: (line: string) => void): string {
	const home = join(DATA_DIR, `catalog-index-${count}`);
	const done = join(home, "complete");
	if (existsSync(done)) return home;
	rmSync(home, { recursive: true, force: true });
	log(`generating ${count} sessions in ${home} …`);
	const rng = new Rng(2025_12_03);
	for (let i = 0; i < count; i++) {
		const project = join(home, ".pi", "agent", "sessions", `--home-me-project-${i % 40}--`);
		mkdirSync(project, { recursive: true });
		generateSession({
			file: join(project, `session-${String(i).padStart(4, "0")}.jsonl`),
			entries: rng.int(20, 300),
			seed: 1000 + i,
			textScale: 0.3,
		});
	}
	writeFileSync(done, "");
	return home;
}

/** Appends one user message to each of `files` (a copy of the file's last entry's child). */
function appendTo(files: readonly string[], round: number): void {
	for (const file of files) {
		const lines = readFileSync(file, "utf8").trimEnd().split("\n");
		const last = JSON.parse(lines.at(-1) as string) as { id: string };
		const timestamp = new Date(Date.UTC(2026, 0, 1, 0, round)).toISOString();
		const entry = {
			type: "message",
			id: `bench${round.toString(16).padStart(3, "0")}`,
			parentId: last.id,
			timestamp,
			message: { role: "user", content: `appended in round ${round}`, timestamp: Date.parse(timestamp) },
		};
		appendFileSync(file, `${JSON.stringify(entry)}\n`);
	}
}

/** Runs the section and prints its table; returns the figures. */
export async function runCatalogIndex(options: CatalogIndexBenchOptions): Promise<Record<string, number | undefined>> {
	const log = options.log ?? ((line: string) => console.log(line));
	const count = options.sessions ?? 1000;
	const runs = Math.max(1, Math.min(options.runs, 5));
	const source = generatedHome(count, log);
	// A working copy: the appends change files.
	const home = join(DATA_DIR, `catalog-index-run-${process.pid}`);
	rmSync(home, { recursive: true, force: true });
	mkdirSync(home, { recursive: true });
	cpSync(join(source, ".pi"), join(home, ".pi"), { recursive: true });
	const env = { HOME: home, XDG_CACHE_HOME: join(home, ".cache") };
	const files = readdirDeep(join(home, ".pi", "agent", "sessions"));
	const bytes = files.reduce((sum, file) => sum + statSync(file).size, 0);
	log(`\n## Catalog index: ${count} pi sessions, ${(bytes / 2 ** 20).toFixed(0)} MiB (median of ${runs} runs)\n`);
	try {
		const cold: number[] = [];
		const warm: number[] = [];
		const appended: number[] = [];
		let round = 0;
		for (let run = 0; run < runs; run++) {
			rmSync(join(home, ".cache"), { recursive: true, force: true });
			const index = await CatalogIndex.open({ env });
			const first = await timed(() => index.refresh(agentSources(env)));
			assert.equal(first.value.added, count);
			cold.push(first.ms);
			const second = await timed(() => index.refresh(agentSources(env)));
			assert.equal(second.value.unchanged, count);
			warm.push(second.ms);
			appendTo(files.slice(run * 10, run * 10 + 10), ++round);
			const third = await timed(() => index.refresh(agentSources(env)));
			assert.equal(third.value.appended, 10);
			appended.push(third.ms);
			index.close();
		}
		const index = await CatalogIndex.open({ env });
		await index.refresh(agentSources(env));
		const viaIndex: number[] = [];
		const viaScan: number[] = [];
		const pageIndex: number[] = [];
		const pageScan: number[] = [];
		for (const query of QUERIES) {
			// What a page asks: the first 100 hits.
			pageIndex.push((await timed(() => index.search(query, { limit: 100 }))).ms);
			const limited = new AgentsCollection(agentPlaces(env));
			pageScan.push((await timed(() => searchSessions(limited, compileQuery(query), { scan: true, limit: 100 }))).ms);
			const ours = await timed(() => index.search(query));
			viaIndex.push(ours.ms);
			const collection = new AgentsCollection(agentPlaces(env));
			const scan = await timed(() => searchSessions(collection, compileQuery(query), { scan: true }));
			viaScan.push(scan.ms);
			assert.deepEqual(
				ours.value.hits.map(({ key: _k, agent: _a, ...hit }) => hit),
				scan.value.hits,
				`the same hits for ${JSON.stringify(query)}`,
			);
		}
		const indexFile = statSync(index.path).size;
		index.close();
		const figures = {
			coldMs: median(cold),
			warmMs: median(warm),
			appendedMs: median(appended),
			indexMedianMs: median(viaIndex),
			indexP95Ms: percentile(viaIndex, 95),
			scanMedianMs: median(viaScan),
			scanP95Ms: percentile(viaScan, 95),
			indexBytes: indexFile,
			pageIndexMedianMs: median(pageIndex),
			pageIndexP95Ms: percentile(pageIndex, 95),
			pageScanMedianMs: median(pageScan),
			pageScanP95Ms: percentile(pageScan, 95),
		};
		log("| | time |");
		log("|---|---:|");
		log(`| cold build (no index file) | ${fmtMs(figures.coldMs)} |`);
		log(`| warm refresh, nothing changed | ${fmtMs(figures.warmMs)} |`);
		log(`| warm refresh, 10 sessions appended to | ${fmtMs(figures.appendedMs)} |`);
		log(`| index file | ${(indexFile / 2 ** 20).toFixed(1)} MiB |`);
		log("");
		log(`| ${QUERIES.length} queries | median | p95 |`);
		log("|---|---:|---:|");
		log(`| CatalogIndex.search | ${fmtMs(figures.indexMedianMs)} | ${fmtMs(figures.indexP95Ms)} |`);
		log(`| searchSessions, scan | ${fmtMs(figures.scanMedianMs)} | ${fmtMs(figures.scanP95Ms)} |`);
		log(
			`| CatalogIndex.search, first 100 hits | ${fmtMs(figures.pageIndexMedianMs)} | ${fmtMs(figures.pageIndexP95Ms)} |`,
		);
		log(
			`| searchSessions, scan, first 100 hits | ${fmtMs(figures.pageScanMedianMs)} | ${fmtMs(figures.pageScanP95Ms)} |`,
		);
		return figures;
	} finally {
		rmSync(home, { recursive: true, force: true });
	}
}

function readdirDeep(dir: string): string[] {
	const out: string[] = [];
	for (const item of readdirSync(dir, { withFileTypes: true })) {
		const path = join(dir, item.name);
		if (item.isDirectory()) out.push(...readdirDeep(path));
		else if (item.name.endsWith(".jsonl")) out.push(path);
	}
	return out.sort();
}

const value = scriptArgs(import.meta.url);
if (value) {
	await runCatalogIndex({
		runs: Number(value("--runs") ?? 3),
		...(value("--sessions") ? { sessions: Number(value("--sessions")) } : {}),
	});
}
