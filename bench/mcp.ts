/**
 * The `mcp` section of `npm run bench` (issue 26): `session-tree mcp` over 1,000 pi sessions,
 * asked through the MCP SDK's own client over stdio, as an agent asks it.
 *
 * The HOME (made once, kept in bench/data/mcp-1000/) holds 1,000 pi v3 session files written by
 * the library (`Session.create`, `appendMessage`, `branch`) in pi's layout, 40 projects, about 30
 * entries each (6 to 54; one of 50 entries and one of 600 for `get_context`), a quarter with an
 * abandoned side branch. A rare word is only on a side branch of one old session; a common word
 * is in a third of the sessions.
 *
 * Measured, with the real CLI (`node dist/bin/session-tree.js mcp`) as a child process whose HOME
 * and XDG_CACHE_HOME are that HOME's:
 * - the first call: the time to start the server and initialize the session (connect), then the
 *   first `search`, with no index file (the index is built for it) and with the index on disk;
 * - N warm calls of each tool, interleaved: `search` (the rare word; the common word, limit 20),
 *   `get_context` (the 50-entry session, the 600-entry one), `list_sessions`; median and p95.
 *   `search` and `list_sessions` bring the index up to date first when the last look is more
 *   than a second old, so about one call a second pays a refresh (1,000 files stat'ed), as an
 *   agent's calls would.
 *
 * The peers, in the same run: the same searches in this process through `CatalogIndex.search`
 * on the same index file (what the MCP layer adds: process hop, JSON-RPC, zod, redaction, the
 * envelope), and what an agent without MCP runs per question: `session-tree search TEXT
 * --agents --json` and `session-tree ctx FILE --json`, each a process. The first answers are checked:
 * the rare word gives one hit, on the side branch; the common word's first 20 hits are the
 * in-process ones; `get_context` gives as many messages as the library's context.
 *
 * `npm run bench -- --mcp-only` runs only this section; alone, after `npm run bench` compiled it:
 * `node bench/data/.build/bench/mcp.js [--runs N] [--calls N]`.
 */

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CatalogIndex } from "../src/catalog/catalog-index/index.js";
import { Session } from "../src/session.js";
import { assistant, clock, user } from "../test/catalog/layout.js";
import { homeEnv } from "../test/serve/support.js";
import { DATA_DIR, REPO_ROOT, Rng } from "./generate.js";
import { fmtMs, markdownTable, median, percentile, scriptArgs, timed } from "./shared.js";

/** Options of {@link runMcp}. */
export interface McpBenchOptions {
	/** Runs of the cold start and of each CLI command (at most 3 and 5); the median is reported. */
	runs: number;
	/** Warm calls of each tool. Default 50. */
	calls?: number;
	log?: (line: string) => void;
	/** Where to write the raw figures. Default bench/data/last-mcp-run.json. */
	json?: string;
}

const SESSIONS = 1000;
/** Bumped when the generated HOME changes shape: an older one is made again. */
const GENERATION = 1;
/** Only in a side branch of one old session. */
const RARE = "quokkaminuet";
/** In one user message of every third session (and in some answers). */
const COMMON = "refactor";
/** Which session (0 the oldest) holds the rare word, and which are the two `get_context` reads. */
const RARE_AT = 7;
const MEDIUM_AT = 500;
const MEDIUM_ENTRIES = 50;
const LARGEST_AT = 900;
const LARGEST_ENTRIES = 600;
/** Rounds of warm calls made before the recorded ones. */
const WARM_UP = 3;

const VOCABULARY = (
	"the a to of and in is it for on with as at by from this that be are was not or but if then " +
	"server client request response handler route config option flag default value setting env " +
	"database query index table column row migration schema transaction lock commit rollback " +
	"test suite case assert mock fixture snapshot coverage flaky timeout retry " +
	"build bundle compile deploy release version tag branch merge review pull push " +
	"error warning stack trace crash leak memory cpu profile latency throughput " +
	"function method class module import export type interface generic async await promise " +
	"file path directory stream buffer encode decode parse serialize json yaml csv " +
	"user account login token session cookie header permission role admin " +
	"cache queue worker job schedule cron event listener callback hook plugin"
).split(" ");

/** A generated session `get_context` reads. */
interface Target {
	file: string;
	id: string;
	entries: number;
}

/** What the generated HOME holds (its `complete.json`). */
interface Generated {
	generation: number;
	home: string;
	sessions: number;
	entries: number;
	bytes: number;
	branched: number;
	/** Sessions that hold the common word. */
	commonSessions: number;
	rare: Target;
	medium: Target;
	largest: Target;
}

function cliMain(): string {
	return process.env.SESSION_TREE_BIN ?? join(REPO_ROOT, "dist", "bin", "session-tree.js");
}

function sentence(rng: Rng, lo: number, hi: number): string {
	return Array.from({ length: rng.int(lo, hi) }, () => rng.pick(VOCABULARY)).join(" ");
}

/** Writes session `i` (0 the oldest) through the library; returns it as a {@link Target}. */
async function writeSession(agentDir: string, i: number, rng: Rng): Promise<Target & { branched: boolean }> {
	const start = Date.UTC(2025, 0, 1) + i * 3 * 3_600_000;
	const now = clock(new Date(start).toISOString());
	const at = () => now().toISOString();
	const session = await Session.create({ agentDir, cwd: `/home/me/project-${i % 40}`, now, durability: "none" });
	const target = i === MEDIUM_AT ? MEDIUM_ENTRIES : i === LARGEST_AT ? LARGEST_ENTRIES : rng.int(3, 27) * 2;
	// The medium session is one straight path, so its context is its 50 entries.
	const branches = i === RARE_AT || (i !== MEDIUM_AT && rng.chance(0.25));
	const commonTurn = i % 3 === 0 ? rng.int(0, target / 2 - 2) : -1;
	let written = 0;
	let turn = 0;
	const exchange = async (question: string, answer: string) => {
		await session.appendMessage(user(question, at()));
		const id = await session.appendMessage(assistant(answer, at()));
		written += 2;
		return id;
	};
	let last: string | undefined;
	while (written < target) {
		if (branches && turn === Math.floor(target / 4) && last !== undefined) {
			// An abandoned attempt: a side branch of one exchange, then back to where it started.
			const words = i === RARE_AT ? ` ${RARE}` : "";
			await exchange(`${sentence(rng, 8, 30)}${words}?`, `${sentence(rng, 20, 80)}.`);
			await session.branch(last);
		}
		const common = turn === commonTurn ? ` ${COMMON}` : "";
		const answerCommon = turn === commonTurn && rng.chance(0.5) ? ` ${COMMON}` : "";
		last = await exchange(`${sentence(rng, 8, 40)}${common}?`, `${sentence(rng, 20, 120)}${answerCommon}.`);
		turn++;
	}
	const file = session.file as string;
	const id = session.getSessionId();
	const entries = session.entryCount;
	await session.close();
	// File times as an agent would leave them: the index lists newest file first.
	const modified = now();
	utimesSync(file, modified, modified);
	return { file, id, entries, branched: branches };
}

/** The generated HOME (made once, kept in bench/data/). */
async function generatedHome(log: (line: string) => void): Promise<Generated> {
	const home = join(DATA_DIR, `mcp-${SESSIONS}`);
	const done = join(home, "complete.json");
	if (existsSync(done)) {
		const generated = JSON.parse(readFileSync(done, "utf8")) as Generated;
		if (generated.generation === GENERATION && generated.home === home) return generated;
	}
	rmSync(home, { recursive: true, force: true });
	log(`generating ${SESSIONS} pi sessions in ${home} …`);
	const started = performance.now();
	const agentDir = join(home, ".pi", "agent");
	const rng = new Rng(2026_12_03);
	const generated: Generated = {
		generation: GENERATION,
		home,
		sessions: SESSIONS,
		entries: 0,
		bytes: 0,
		branched: 0,
		commonSessions: 0,
		rare: { file: "", id: "", entries: 0 },
		medium: { file: "", id: "", entries: 0 },
		largest: { file: "", id: "", entries: 0 },
	};
	for (let i = 0; i < SESSIONS; i++) {
		const { branched, ...target } = await writeSession(agentDir, i, rng);
		generated.entries += target.entries;
		generated.bytes += statSync(target.file).size;
		if (branched) generated.branched++;
		if (i % 3 === 0) generated.commonSessions++;
		if (i === RARE_AT) generated.rare = target;
		if (i === MEDIUM_AT) generated.medium = target;
		if (i === LARGEST_AT) generated.largest = target;
	}
	writeFileSync(done, `${JSON.stringify(generated, null, "\t")}\n`);
	log(`  written in ${fmtMs(performance.now() - started)}`);
	return generated;
}

/** The environment of a child over `home`, as the SDK's transport takes it. */
function childEnv(home: string): Record<string, string> {
	return Object.fromEntries(
		Object.entries(homeEnv(home)).filter((pair): pair is [string, string] => pair[1] !== undefined),
	);
}

/** What every tool answers (src/mcp/reply.ts): the envelope. */
interface Envelope {
	result: Record<string, unknown>;
	nextCursor?: string;
	tokens: number;
}

/** A connected client of a `session-tree mcp` child. */
interface Connected {
	client: Client;
	call(name: string, args: Record<string, unknown>): Promise<Envelope>;
	close(): Promise<void>;
}

/** Starts `session-tree mcp` over `home` and initializes an MCP session with it. */
async function connect(main: string, home: string): Promise<Connected> {
	const transport = new StdioClientTransport({
		command: process.execPath,
		args: [main, "mcp"],
		env: childEnv(home),
		stderr: "pipe",
	});
	let stderr = "";
	transport.stderr?.on("data", (chunk: Buffer) => {
		stderr += chunk.toString("utf8");
	});
	const client = new Client({ name: "session-tree-bench", version: "0.0.0" });
	await client.connect(transport);
	return {
		client,
		async call(name, args) {
			const answer = await client.callTool({ name, arguments: args }, undefined, { timeout: 300_000 });
			if (answer.isError === true || answer.structuredContent === undefined)
				throw new Error(`${name} failed: ${JSON.stringify(answer.content).slice(0, 300)}; stderr: ${stderr}`);
			return answer.structuredContent as unknown as Envelope;
		},
		close: () => client.close(),
	};
}

/** A `session-tree` command run as a process over `home`; its time and its stdout. */
function runCli(main: string, home: string, args: readonly string[]): { ms: number; stdout: string } {
	const started = performance.now();
	const child = spawnSync(process.execPath, [main, ...args], {
		env: homeEnv(home),
		encoding: "utf8",
		maxBuffer: 256 * 2 ** 20,
		timeout: 300_000,
	});
	const ms = performance.now() - started;
	if (child.status !== 0) throw new Error(`session-tree ${args.join(" ")}: exit ${child.status}: ${child.stderr}`);
	return { ms, stdout: child.stdout };
}

/** Median and p95 of some samples. */
interface Figure {
	median?: number;
	p95?: number;
	samples: number[];
}

function figure(samples: number[]): Figure {
	return { median: median(samples), p95: percentile(samples, 95), samples };
}

/** `a / b` as a table shows it, or a dash. */
function ratio(a: number | undefined, b: number | undefined): string {
	if (a === undefined || b === undefined || b <= 0) return "—";
	const r = a / b;
	return `${r >= 10 ? r.toFixed(0) : r.toFixed(1)}×`;
}

type Hit = { session: string; entry: string; branch: string };

/** Measures and prints the section; returns the figures. */
export async function runMcp(options: McpBenchOptions): Promise<Record<string, unknown>> {
	const log = options.log ?? ((line: string) => console.log(line));
	const coldRuns = Math.max(1, Math.min(options.runs, 3));
	const cliRuns = Math.max(1, Math.min(options.runs, 5));
	const calls = Math.max(1, options.calls ?? 50);
	const main = cliMain();
	log("");
	log(
		`== mcp: search and get_context over ${SESSIONS.toLocaleString("en-US")} sessions, through the MCP SDK's client ==`,
	);
	if (!existsSync(main)) {
		log(`mcp: skipped (no CLI at ${main}: npm run build)`);
		return {};
	}
	const started = Date.now();
	const generated = await generatedHome(log);
	const { home } = generated;
	const env = homeEnv(home);
	const cache = env.XDG_CACHE_HOME as string;
	log(
		`${generated.sessions} pi sessions, ${generated.entries.toLocaleString("en-US")} entries, ` +
			`${(generated.bytes / 2 ** 20).toFixed(1)} MiB, ${generated.branched} with a side branch; ` +
			`"${COMMON}" in ${generated.commonSessions} sessions, "${RARE}" on one side branch — ${home}`,
	);

	// First calls, the index built for them: the server and the CLI each from no index file.
	const connectCold: number[] = [];
	const firstCold: number[] = [];
	const cliCold: number[] = [];
	for (let run = 0; run < coldRuns; run++) {
		rmSync(cache, { recursive: true, force: true });
		const begin = performance.now();
		const server = await connect(main, home);
		connectCold.push(performance.now() - begin);
		try {
			firstCold.push((await timed(() => server.call("search", { query: RARE }))).ms);
		} finally {
			await server.close();
		}
		rmSync(cache, { recursive: true, force: true });
		cliCold.push(runCli(main, home, ["search", RARE, "--agents", "--json"]).ms);
	}

	// The keys the tools take, from the index the runs just built.
	const index = await CatalogIndex.open({ env });
	const listed = index.sessions({}).sessions;
	const keyOf = (target: Target) => {
		const found = listed.find((session) => session.id === target.id);
		assert.ok(found, `the index lists session ${target.id}`);
		return found.key;
	};
	const rareKey = keyOf(generated.rare);
	const mediumKey = keyOf(generated.medium);
	const largestKey = keyOf(generated.largest);
	assert.equal(listed.length, generated.sessions, "the index lists every generated session");
	const contextLength = async (target: Target) => {
		const session = await Session.open(target.file);
		try {
			return session.buildSessionContext().messages.length;
		} finally {
			await session.close();
		}
	};
	const mediumMessages = await contextLength(generated.medium);
	const largestMessages = await contextLength(generated.largest);

	// First call with the index on disk (a new agent session), then the warm calls.
	const begin = performance.now();
	const server = await connect(main, home);
	const connectWarm = performance.now() - begin;
	const rareArgs = { query: RARE };
	const commonArgs = { query: COMMON, limit: 20 };
	let firstWarm: number;
	const samples = {
		rare: [] as number[],
		common: [] as number[],
		contextMedium: [] as number[],
		contextLargest: [] as number[],
		list: [] as number[],
	};
	const inProcess = { rare: [] as number[], common: [] as number[] };
	let commonHits: Hit[] = [];
	// What each answer costs a model, by the envelope's own estimate (four characters a token).
	const answerTokens: Record<string, number> = {};
	try {
		const first = await timed(() => server.call("search", rareArgs));
		firstWarm = first.ms;
		// As the tool asks the index: one hit more than the page (to know there is more), snippets redacted.
		const own = (pattern: string) => index.search({ pattern }, { limit: 21, redact: true });
		// A few rounds unrecorded (the JIT, SQLite's page cache on both sides), then each call and its
		// in-process peer one after the other, so that load from elsewhere hits both alike.
		for (let round = -WARM_UP; round < calls; round++) {
			const rare = await timed(() => server.call("search", rareArgs));
			const ownRare = await timed(() => own(RARE));
			const common = await timed(() => server.call("search", commonArgs));
			const ownCommon = await timed(() => own(COMMON));
			const medium = await timed(() => server.call("get_context", { session: mediumKey }));
			const largest = await timed(() => server.call("get_context", { session: largestKey }));
			const list = await timed(() => server.call("list_sessions", {}));
			if (round === -WARM_UP) {
				const rareHits = rare.value.result.hits as Hit[];
				assert.equal(rareHits.length, 1, `one hit of "${RARE}"`);
				assert.equal(rareHits[0]?.session, rareKey, `"${RARE}" is in session ${rareKey}`);
				assert.equal(rareHits[0]?.branch, "side", `"${RARE}" is on a side branch`);
				assert.equal(ownRare.value.hits.length, 1, `one hit of "${RARE}" in process`);
				commonHits = common.value.result.hits as Hit[];
				assert.equal(commonHits.length, 20, `20 hits of "${COMMON}"`);
				assert.ok(common.value.nextCursor, `more hits of "${COMMON}" than 20`);
				assert.deepEqual(
					ownCommon.value.hits.slice(0, 20).map((hit) => `${hit.key} ${hit.entryId}`),
					commonHits.map((hit) => `${hit.session} ${hit.entry}`),
					"the same first 20 hits in process as through MCP",
				);
				assert.equal(medium.value.result.messagesTotal, mediumMessages, "get_context: the medium session's context");
				assert.equal(largest.value.result.messagesTotal, largestMessages, "get_context: the largest session's context");
				assert.equal(list.value.result.total, generated.sessions, "list_sessions: every session");
				for (const [name, answer] of Object.entries({ rare, common, medium, largest, list }))
					answerTokens[name] = answer.value.tokens;
			}
			if (round < 0) continue;
			samples.rare.push(rare.ms);
			samples.common.push(common.ms);
			samples.contextMedium.push(medium.ms);
			samples.contextLargest.push(largest.ms);
			samples.list.push(list.ms);
			inProcess.rare.push(ownRare.ms);
			inProcess.common.push(ownCommon.ms);
		}
	} finally {
		await server.close();
		index.close();
	}

	// What an agent without MCP runs per question: a process each.
	const cli = {
		rare: [] as number[],
		common: [] as number[],
		contextMedium: [] as number[],
		contextLargest: [] as number[],
	};
	const cliOutputTokens: Record<string, number> = {};
	for (let run = 0; run < cliRuns; run++) {
		const rare = runCli(main, home, ["search", RARE, "--agents", "--json"]);
		const common = runCli(main, home, ["search", COMMON, "--agents", "--limit", "20", "--json"]);
		const medium = runCli(main, home, ["ctx", generated.medium.file, "--json"]);
		const largest = runCli(main, home, ["ctx", generated.largest.file, "--json"]);
		cli.rare.push(rare.ms);
		cli.common.push(common.ms);
		cli.contextMedium.push(medium.ms);
		cli.contextLargest.push(largest.ms);
		if (run > 0) continue;
		for (const [name, output] of Object.entries({ rare, common, medium, largest }))
			cliOutputTokens[name] = Math.ceil(output.stdout.length / 4);
		assert.equal((JSON.parse(rare.stdout) as unknown[]).length, 1, `search ${RARE} --agents: one hit`);
		assert.equal((JSON.parse(common.stdout) as unknown[]).length, 20, `search ${COMMON} --agents --limit 20`);
		const messages = (stdout: string) => (JSON.parse(stdout) as { messages?: unknown[] }).messages?.length;
		assert.equal(messages(medium.stdout), mediumMessages, "ctx --json: the medium session's context");
		assert.equal(messages(largest.stdout), largestMessages, "ctx --json: the largest session's context");
	}

	const figures = {
		sessions: generated.sessions,
		entries: generated.entries,
		bytes: generated.bytes,
		calls,
		coldRuns,
		cliRuns,
		connectCold: figure(connectCold),
		firstCold: figure(firstCold),
		cliCold: figure(cliCold),
		connectWarm,
		firstWarm,
		mcp: {
			rare: figure(samples.rare),
			common: figure(samples.common),
			contextMedium: figure(samples.contextMedium),
			contextLargest: figure(samples.contextLargest),
			list: figure(samples.list),
		},
		inProcess: { rare: figure(inProcess.rare), common: figure(inProcess.common) },
		cli: {
			rare: figure(cli.rare),
			common: figure(cli.common),
			contextMedium: figure(cli.contextMedium),
			contextLargest: figure(cli.contextLargest),
		},
		answerTokens,
		cliOutputTokens,
	};

	const coldTotal = median(connectCold.map((ms, i) => ms + (firstCold[i] as number)));
	log("");
	log(
		markdownTable(
			["first call", "start + initialize", "first search", "total", "CLI `search --agents`", "CLI / MCP"],
			[
				[
					`index built cold (median of ${coldRuns})`,
					fmtMs(figures.connectCold.median),
					fmtMs(figures.firstCold.median),
					fmtMs(coldTotal),
					fmtMs(figures.cliCold.median),
					ratio(figures.cliCold.median, coldTotal),
				],
				["index on disk", fmtMs(connectWarm), fmtMs(firstWarm), fmtMs(connectWarm + firstWarm), "", ""],
			],
		),
	);
	log("");
	const { mcp } = figures;
	/** A row: the MCP figures, the in-process and CLI peers (where there is one), the answers' sizes. */
	const row = (what: string, name: string, ours: Figure, own?: Figure, process?: Figure) => [
		what,
		fmtMs(ours.median),
		fmtMs(ours.p95),
		own ? fmtMs(own.median) : "",
		own ? ratio(ours.median, own.median) : "",
		process ? fmtMs(process.median) : "",
		process ? ratio(process.median, ours.median) : "",
		`${answerTokens[name]?.toLocaleString("en-US") ?? "—"}${cliOutputTokens[name] !== undefined ? ` / ${cliOutputTokens[name].toLocaleString("en-US")}` : ""}`,
	];
	log(
		markdownTable(
			[
				`warm call (${calls} each)`,
				"MCP median",
				"MCP p95",
				"in process",
				"MCP / in process",
				`CLI process (${cliRuns})`,
				"CLI / MCP",
				"tokens MCP / CLI",
			],
			[
				row(`search "${RARE}" (1 hit, side branch)`, "rare", mcp.rare, figures.inProcess.rare, figures.cli.rare),
				row(`search "${COMMON}", limit 20`, "common", mcp.common, figures.inProcess.common, figures.cli.common),
				row(
					`get_context, ${generated.medium.entries} entries (${mediumMessages} messages)`,
					"medium",
					mcp.contextMedium,
					undefined,
					figures.cli.contextMedium,
				),
				row(
					`get_context, ${generated.largest.entries} entries (${largestMessages} messages)`,
					"largest",
					mcp.contextLargest,
					undefined,
					figures.cli.contextLargest,
				),
				row("list_sessions (first 20)", "list", mcp.list),
			],
		),
	);
	log(
		"\nin process: CatalogIndex.search on the same index file; CLI: `session-tree search TEXT --agents [--limit 20] --json`" +
			" and `session-tree ctx FILE --json`, one process each. tokens: the answer's size at four characters a token" +
			" (MCP: the envelope's own estimate; a get_context page stops at 50 messages or 40,000 characters, ctx --json prints every message).",
	);
	log(`\n(mcp: ${((Date.now() - started) / 1000).toFixed(0)} s; load average now ${loadavg()[0]?.toFixed(2)})`);
	writeFileSync(
		options.json ?? join(DATA_DIR, "last-mcp-run.json"),
		`${JSON.stringify({ date: new Date().toISOString(), node: process.version, figures }, null, "\t")}\n`,
	);
	return figures;
}

const arg = scriptArgs(import.meta.url);
if (arg) {
	await runMcp({
		runs: Number.parseInt(arg("--runs") ?? "3", 10),
		...(arg("--calls") ? { calls: Number.parseInt(arg("--calls") as string, 10) } : {}),
		json: arg("--json"),
	});
}
