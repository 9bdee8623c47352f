/**
 * Property tests: random sequences of every Session operation, checked step by step against
 * a naive reference model (test/support/reference-model.ts, written from docs/spec.md) and
 * against pi 0.73.1's own SessionManager, in memory and through the files we write. Every
 * operation of the session is awaited before the next, except in a burst, where writes are
 * called together and must land in call order.
 */

import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, type TestContext, test } from "node:test";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import fc from "fast-check";
import { type AgentMessage, Session } from "../src/index.js";
import { ReferenceModel, type RefMessage } from "./support/reference-model.js";

// ---- operations ----------------------------------------------------------------------------

/** Entries are named by a number taken modulo the number of candidates when the step runs. */
type Op =
	| { op: "message"; message: RefMessage }
	/** Several appends called at once, awaited together: they must chain in call order. */
	| { op: "burst"; messages: RefMessage[] }
	| { op: "modelChange"; provider: string; modelId: string }
	| { op: "thinkingLevelChange"; level: string }
	| {
			op: "compaction";
			summary: string;
			/** Where firstKeptEntryId comes from: the current path, any entry, or no entry at all. */
			keep: "path" | "any" | "bogus";
			pick: number;
			tokensBefore: number;
			details: unknown;
			fromHook: boolean | undefined;
			/** Pass `retainedTail: true` (the session stores the kept messages). */
			retain: boolean;
	  }
	| { op: "custom"; customType: string; data: unknown }
	| { op: "customMessage"; customType: string; content: unknown; display: boolean; details: unknown }
	| { op: "sessionInfo"; name: string }
	| { op: "label"; pick: number; label: string | undefined }
	| { op: "branch"; pick: number }
	| { op: "resetLeaf" }
	| { op: "branchWithSummary"; pick: number | null; summary: string; details: unknown; fromHook: boolean | undefined }
	| { op: "navigate"; pick: number; summary: string | undefined; details: unknown; fromHook: boolean | undefined }
	| { op: "reopen" }
	/** Releases the file handle; the next write opens the file again. */
	| { op: "close" }
	/** Copies the path to an entry into a new session; checked, then dropped. */
	| { op: "fork"; pick: number }
	/** Moves the clock (possibly backwards: children are then shown out of file order). */
	| { op: "clock"; dt: number }
	/** A call naming an entry that does not exist: it throws and changes nothing. */
	| { op: "invalid"; call: "branch" | "label" | "branchWithSummary" | "navigate" };

const BOGUS_ID = "not-an-entry";

const text = fc.oneof(fc.string({ maxLength: 8 }), fc.string({ unit: "binary", maxLength: 4 }));
const ms = fc.integer({ min: 0, max: 4_000_000_000_000 });
const optionalJson = fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined });
const optionalBool = fc.option(fc.boolean(), { nil: undefined });
const pick = fc.nat({ max: 1000 });
const textBlock = text.map((t) => ({ type: "text", text: t }));
const imageBlock = fc.base64String({ maxLength: 8 }).map((data) => ({ type: "image", data, mimeType: "image/png" }));
const richContent = fc.oneof(text, fc.array(fc.oneof(textBlock, imageBlock), { maxLength: 3 }));
const summaryText = fc.oneof(fc.constantFrom("", "what happened before"), text);

const userMessage = fc.record({ role: fc.constant("user"), content: richContent, timestamp: ms });
const assistantMessage = fc.record({
	role: fc.constant("assistant"),
	content: fc.array(
		fc.oneof(
			textBlock,
			text.map((t) => ({ type: "thinking", thinking: t })),
			fc.record({
				type: fc.constant("toolCall"),
				id: fc.constantFrom("call_1", "call_2"),
				name: fc.constantFrom("bash", "read"),
				arguments: fc.dictionary(fc.string({ maxLength: 3 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
			}),
		),
		{ maxLength: 3 },
	),
	api: fc.constant("anthropic-messages"),
	provider: fc.constantFrom("anthropic", "openai"),
	model: fc.constantFrom("m-1", "m-2", "m-3"),
	usage: fc.constant({ input: 1, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 3 }),
	stopReason: fc.constantFrom("stop", "toolUse"),
	timestamp: ms,
});
const toolResultMessage = fc.record({
	role: fc.constant("toolResult"),
	toolCallId: fc.constantFrom("call_1", "call_2"),
	toolName: fc.constantFrom("bash", "read"),
	content: fc.array(fc.oneof(textBlock, imageBlock), { maxLength: 2 }),
	isError: fc.boolean(),
	timestamp: ms,
});
/** A message kind the format passes through untouched (pi's `!command` output). */
const bashMessage = fc.record({
	role: fc.constant("bashExecution"),
	command: text,
	output: text,
	exitCode: fc.nat({ max: 2 }),
	cancelled: fc.boolean(),
	truncated: fc.boolean(),
	timestamp: ms,
});

function opArbitrary(withReopen: boolean): fc.Arbitrary<Op> {
	const ops: Array<{ arbitrary: fc.Arbitrary<Op>; weight: number }> = [
		{
			weight: 12,
			arbitrary: fc
				.oneof(
					{ arbitrary: userMessage, weight: 3 },
					{ arbitrary: assistantMessage, weight: 3 },
					{ arbitrary: toolResultMessage, weight: 1 },
					{ arbitrary: bashMessage, weight: 1 },
				)
				.map((message): Op => ({ op: "message", message })),
		},
		{
			weight: 1,
			arbitrary: fc
				.array(fc.oneof(userMessage, assistantMessage), { minLength: 2, maxLength: 4 })
				.map((messages): Op => ({ op: "burst", messages })),
		},
		{
			weight: 2,
			arbitrary: fc.record({
				op: fc.constant("modelChange"),
				provider: fc.constantFrom("anthropic", "openai", "google"),
				modelId: fc.constantFrom("m-1", "m-4", "m-5"),
			}),
		},
		{
			weight: 2,
			arbitrary: fc.record({
				op: fc.constant("thinkingLevelChange"),
				level: fc.constantFrom("off", "minimal", "low", "medium", "high", "xhigh"),
			}),
		},
		{
			weight: 4,
			arbitrary: fc.record({
				op: fc.constant("compaction"),
				summary: summaryText,
				keep: fc.constantFrom("path", "path", "path", "any", "any", "bogus"),
				pick,
				tokensBefore: fc.nat({ max: 200_000 }),
				details: optionalJson,
				fromHook: optionalBool,
				retain: fc.boolean(),
			}),
		},
		{ weight: 1, arbitrary: fc.record({ op: fc.constant("custom"), customType: text, data: optionalJson }) },
		{
			weight: 3,
			arbitrary: fc.record({
				op: fc.constant("customMessage"),
				customType: fc.constantFrom("note", "ext"),
				content: richContent,
				display: fc.boolean(),
				details: optionalJson,
			}),
		},
		{
			weight: 2,
			arbitrary: fc.record({
				op: fc.constant("sessionInfo"),
				name: fc.oneof(fc.constantFrom("", " ", " \t\n ", "  my session  ", "\u00a0x\u00a0", "name"), text),
			}),
		},
		{
			weight: 2,
			arbitrary: fc.record({
				op: fc.constant("label"),
				pick,
				label: fc.option(fc.constantFrom("", " ", "checkpoint", "v2"), { nil: undefined }),
			}),
		},
		{ weight: 4, arbitrary: fc.record({ op: fc.constant("branch"), pick }) },
		{ weight: 1, arbitrary: fc.constant({ op: "resetLeaf" }) },
		{
			weight: 3,
			arbitrary: fc.record({
				op: fc.constant("branchWithSummary"),
				pick: fc.option(pick, { nil: null, freq: 4 }),
				summary: summaryText,
				details: optionalJson,
				fromHook: optionalBool,
			}),
		},
		{
			weight: 4,
			arbitrary: fc.record({
				op: fc.constant("navigate"),
				pick,
				summary: fc.option(summaryText, { nil: undefined }),
				details: optionalJson,
				fromHook: optionalBool,
			}),
		},
		{ weight: 1, arbitrary: fc.record({ op: fc.constant("fork"), pick }) },
		{ weight: 1, arbitrary: fc.constant({ op: "close" }) },
		{ weight: 1, arbitrary: fc.record({ op: fc.constant("clock"), dt: fc.constantFrom(-1000, -2500, -1, 60_000) }) },
		{
			weight: 1,
			arbitrary: fc.record({
				op: fc.constant("invalid"),
				call: fc.constantFrom("branch", "label", "branchWithSummary", "navigate"),
			}),
		},
	];
	if (withReopen) ops.push({ weight: 2, arbitrary: fc.constant({ op: "reopen" }) });
	return fc.oneof(...ops);
}

const opsArbitrary = (withReopen: boolean) => fc.array(opArbitrary(withReopen), { maxLength: 40, size: "max" });

/**
 * Random bytes from a 256-id space (seeded, deterministic), so that fresh ids collide with
 * entries and with persisted-leaf records and the session has to pick again.
 */
function tinyIdSpace(seed: number): (length: number) => Uint8Array {
	let state = seed >>> 0 || 1;
	const drawn = new Set<number>();
	return (length) => {
		const bytes = new Uint8Array(length);
		state ^= state << 13;
		state ^= state >>> 17;
		state ^= state << 5;
		state >>>= 0;
		bytes[length - 1] = state & 0xff;
		if (length === 4) {
			if (drawn.has(state & 0xff)) note("tiny id space: an id was drawn twice");
			drawn.add(state & 0xff);
		}
		return bytes;
	};
}
const idSpace = fc.option(fc.integer({ min: 1, max: 0x7fffffff }), { nil: undefined, freq: 3 });

/** A tree view reduced to ids and labels (label only where one is set). */
interface IdTree {
	id: string;
	label?: string;
	children: IdTree[];
}
function treeIds(
	nodes: ReadonlyArray<{ entry: { id: string; type: string }; label?: string; children: unknown[] }>,
	rename: (id: string) => string = (id) => id,
	keep: (entry: { type: string }) => boolean = () => true,
): IdTree[] {
	return nodes
		.filter((n) => keep(n.entry))
		.map((n) => {
			const out: IdTree = { id: rename(n.entry.id), children: treeIds(n.children as typeof nodes, rename, keep) };
			if (n.label !== undefined) out.label = n.label;
			return out;
		});
}

// ---- the harness -----------------------------------------------------------------------------

/** How often each interesting situation came up, so that a weakened generator is noticed. */
const seen = new Map<string, number>();
const seenInAnyRun = new Map<string, number>();
function note(situation: string): void {
	seen.set(situation, (seen.get(situation) ?? 0) + 1);
	seenInAnyRun.set(situation, (seenInAnyRun.get(situation) ?? 0) + 1);
}
function assertSeen(t: TestContext, situations: readonly string[]): void {
	t.diagnostic(JSON.stringify(Object.fromEntries([...seen].sort())));
	for (const situation of situations) assert.ok((seen.get(situation) ?? 0) > 0, `never exercised: ${situation}`);
	seen.clear();
}

/** Top-ups {@link topUp} runs at most: a generator that never makes a situation still fails. */
const TOP_UPS = 4;

/**
 * Runs `property` (a whole `fc.assert` of fresh random cases) again while a situation of
 * `situations` has not come up in `counts`, at most {@link TOP_UPS} times. The cases are random
 * on every run, so a situation that comes up a few times in a run's cases on average is missed
 * by some runs by chance alone (once in a full suite on 2026-12-05: the rarest come up about 7
 * times in a property's 150 cases, or in the three properties' 500, so e^-7 of the suites miss
 * one): each top-up multiplies that chance by e^-2 or less (e^-15 after four for the rarest),
 * and every case a top-up adds is checked like the others.
 */
async function topUp(
	t: TestContext,
	property: () => Promise<void>,
	situations: readonly string[],
	counts: ReadonlyMap<string, number> = seen,
): Promise<void> {
	for (let round = 1; round <= TOP_UPS; round++) {
		const missing = situations.filter((situation) => (counts.get(situation) ?? 0) === 0);
		if (missing.length === 0) return;
		t.diagnostic(`top-up ${round}: not yet exercised: ${missing.join(", ")}`);
		await property();
	}
}
const COMMON = [
	"burst of appends",
	"navigate: user message, to its parent",
	"navigate: custom message",
	"navigate: other entry",
	"navigate: with summary",
	"compaction: first kept on the path",
	"compaction: first kept off the path",
	"compaction: retainedTail",
	"context: compaction in effect",
	"context: two compactions on the path",
	"label: cleared",
	"session name: blank",
	"branchWithSummary: from root",
	"branchWithSummary: empty summary",
	"resetLeaf",
	"clock moved",
	"tiny id space: an id was drawn twice",
	"fork: a labelled entry on the path",
];
const REOPEN = ["reopen: leaf is not the last entry"];
/** Situations too rare to expect in every property's runs: each must come up in one of them. */
const RARE = [
	"fork: at a label entry",
	// Missed by the 150 runs of the file-backed property once in a full suite (2026-12-05).
	"fork: a label entry on the path",
	"reopen: leaf reset",
	"navigate: root user message, leaf reset",
];

/** JSON-normalised copy: undefined fields vanish, -0 becomes 0, as after a file round trip. */
function norm(value: unknown): unknown {
	return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

const START = Date.parse("2025-01-01T00:00:00.000Z");

/** pi's in-memory manager, run in lockstep; it invents its own ids. */
interface PiMirror {
	sm: SessionManager;
	toPi: Map<string, string>;
	fromPi: Map<string, string>;
}

interface RunOptions {
	/** A file to create, or undefined for `Session.inMemory()`. */
	file?: string;
	/** Run pi's `SessionManager.inMemory()` alongside; `setTime` drives pi's (mocked) clock. */
	pi?: { setTime: (ms: number) => void };
	/** Seed of a tiny id space (see {@link tinyIdSpace}); default: real random ids. */
	idSeed?: number;
}

class Run {
	readonly model = new ReferenceModel();
	session!: Session;
	/** One tick per step: every entry a step writes carries the step's time. */
	time = START;
	readonly now = () => new Date(this.time);
	readonly pi: PiMirror | undefined;
	readonly file: string | undefined;
	private readonly setPiTime: ((ms: number) => void) | undefined;
	private readonly random: ((length: number) => Uint8Array) | undefined;
	private steps: string[] = [];

	private constructor(options: RunOptions) {
		this.file = options.file;
		this.random = options.idSeed === undefined ? undefined : tinyIdSpace(options.idSeed);
		this.setPiTime = options.pi?.setTime;
		if (options.pi) {
			options.pi.setTime(this.time);
			this.pi = { sm: SessionManager.inMemory("/work"), toPi: new Map(), fromPi: new Map() };
		}
	}

	static async start(options: RunOptions): Promise<Run> {
		const run = new Run(options);
		const env = { cwd: "/work", now: run.now, random: run.random };
		run.session = options.file ? await Session.create({ ...env, file: options.file }) : await Session.inMemory(env);
		return run;
	}

	private where(): string {
		return `after steps: ${this.steps.join(", ")}`;
	}

	private toPi(id: string): string {
		if (id === BOGUS_ID) return id;
		const mapped = this.pi?.toPi.get(id);
		assert.ok(mapped, `no pi id for ${id}`);
		return mapped;
	}

	private record(id: string, piId: string | undefined): void {
		if (this.pi && piId !== undefined) {
			this.pi.toPi.set(id, piId);
			this.pi.fromPi.set(piId, id);
		}
	}

	/** Checks a fresh id, then records the new entry's stamp in the model through `apply`. */
	private appended(id: string, apply: (ts: string) => void): void {
		assert.match(id, /^[0-9a-f]{8}$/, this.where());
		assert.ok(!this.model.ids().includes(id), `id ${id} reused; ${this.where()}`);
		apply(new Date(this.time).toISOString());
	}

	private pickEntry(n: number): string | undefined {
		const ids = this.model.ids();
		return ids.length === 0 ? undefined : ids[n % ids.length];
	}

	async step(op: Op): Promise<void> {
		this.time += op.op === "clock" ? op.dt : 1000;
		this.setPiTime?.(this.time);
		this.steps.push(op.op);
		const { session: s, model, pi } = this;
		switch (op.op) {
			case "message": {
				const id = await s.appendMessage(op.message as AgentMessage);
				this.appended(id, (ts) => model.message(id, ts, op.message));
				this.record(id, pi?.sm.appendMessage(op.message as never));
				break;
			}
			case "burst": {
				note("burst of appends");
				// Called without waiting in between: the session serializes them in call order.
				const ids = await Promise.all(op.messages.map((message) => s.appendMessage(message as AgentMessage)));
				for (const [i, id] of ids.entries()) {
					const message = op.messages[i] as RefMessage;
					this.appended(id, (ts) => model.message(id, ts, message));
					this.record(id, pi?.sm.appendMessage(message as never));
				}
				break;
			}
			case "modelChange": {
				const id = await s.appendModelChange(op.provider, op.modelId);
				this.appended(id, (ts) => model.modelChange(id, ts, op.provider, op.modelId));
				this.record(id, pi?.sm.appendModelChange(op.provider, op.modelId));
				break;
			}
			case "thinkingLevelChange": {
				const id = await s.appendThinkingLevelChange(op.level);
				this.appended(id, (ts) => model.thinkingLevelChange(id, ts, op.level));
				this.record(id, pi?.sm.appendThinkingLevelChange(op.level));
				break;
			}
			case "compaction": {
				const path = model.path();
				let firstKept: string;
				if (op.keep === "path" && path.length > 0) firstKept = (path[op.pick % path.length] as { id: string }).id;
				else firstKept = (op.keep !== "bogus" && this.pickEntry(op.pick)) || BOGUS_ID;
				note(
					path.some((e) => e.id === firstKept)
						? "compaction: first kept on the path"
						: "compaction: first kept off the path",
				);
				if (op.retain) note("compaction: retainedTail");
				const { summary, tokensBefore, details, fromHook } = op;
				const id = await s.appendCompaction(
					summary,
					firstKept,
					tokensBefore,
					details,
					fromHook,
					op.retain ? true : undefined,
				);
				this.appended(id, (ts) =>
					model.compaction(id, ts, summary, firstKept, tokensBefore, details, fromHook, op.retain),
				);
				this.record(id, pi?.sm.appendCompaction(summary, pi && this.toPi(firstKept), tokensBefore, details, fromHook));
				break;
			}
			case "custom": {
				const id = await s.appendCustomEntry(op.customType, op.data);
				this.appended(id, (ts) => model.custom(id, ts, op.customType, op.data));
				this.record(id, pi?.sm.appendCustomEntry(op.customType, op.data));
				break;
			}
			case "customMessage": {
				const content = op.content as Parameters<Session["appendCustomMessageEntry"]>[1];
				const id = await s.appendCustomMessageEntry(op.customType, content, op.display, op.details);
				this.appended(id, (ts) => model.customMessage(id, ts, op.customType, op.content, op.display, op.details));
				this.record(id, pi?.sm.appendCustomMessageEntry(op.customType, content as never, op.display, op.details));
				break;
			}
			case "sessionInfo": {
				if (op.name.trim() === "") note("session name: blank");
				const id = await s.appendSessionInfo(op.name);
				this.appended(id, (ts) => model.sessionInfo(id, ts, op.name));
				this.record(id, pi?.sm.appendSessionInfo(op.name));
				break;
			}
			case "label": {
				const target = this.pickEntry(op.pick);
				if (target === undefined) break;
				if (!op.label) note("label: cleared");
				const id = await s.appendLabelChange(target, op.label);
				this.appended(id, (ts) => model.label(id, ts, target, op.label));
				this.record(id, pi?.sm.appendLabelChange(this.toPi(target), op.label));
				break;
			}
			case "branch": {
				const target = this.pickEntry(op.pick);
				if (target === undefined) break;
				await s.branch(target);
				model.branch(target);
				pi?.sm.branch(this.toPi(target));
				break;
			}
			case "resetLeaf": {
				note("resetLeaf");
				await s.resetLeaf();
				model.resetLeaf();
				pi?.sm.resetLeaf();
				break;
			}
			case "branchWithSummary": {
				const from = op.pick === null ? null : (this.pickEntry(op.pick) ?? null);
				if (from === null) note("branchWithSummary: from root");
				if (op.summary === "") note("branchWithSummary: empty summary");
				const { summary, details, fromHook } = op;
				const id = await s.branchWithSummary(from, summary, details, fromHook);
				this.appended(id, (ts) => model.branchWithSummary(id, ts, from, summary, details, fromHook));
				this.record(id, pi?.sm.branchWithSummary(from && this.toPi(from), summary, details, fromHook));
				break;
			}
			case "navigate": {
				const target = this.pickEntry(op.pick);
				if (target === undefined) break;
				const options =
					op.summary === undefined ? {} : { summary: op.summary, details: op.details, fromHook: op.fromHook };
				if (target === model.leaf) {
					// As pi's AgentSession.navigateTree: navigating to the leaf itself changes nothing.
					note("navigate: to the leaf itself");
					assert.deepEqual(await s.navigate(target, options), { leafId: target }, this.where());
					break;
				}
				const expected = model.navigation(target);
				const kind = model.entry(target).type;
				if (expected.editorText === undefined) note("navigate: other entry");
				else if (kind === "custom_message") note("navigate: custom message");
				else
					note(
						expected.leafId === null
							? "navigate: root user message, leaf reset"
							: "navigate: user message, to its parent",
					);
				if (op.summary) note("navigate: with summary");
				const result = await s.navigate(target, options);
				assert.equal(result.editorText, expected.editorText, `editorText of navigate(${target}); ${this.where()}`);
				if (op.summary) {
					const summaryId = result.summaryEntryId;
					assert.ok(summaryId !== undefined, `navigate with a summary returned no summary id; ${this.where()}`);
					const { summary, details, fromHook } = op;
					this.appended(summaryId, (ts) =>
						model.branchWithSummary(summaryId, ts, expected.leafId, summary, details, fromHook),
					);
					assert.equal(result.leafId, summaryId, this.where());
					// pi's navigateTree does exactly this on its session manager.
					const piFrom = expected.leafId && pi && this.toPi(expected.leafId);
					this.record(summaryId, pi?.sm.branchWithSummary(piFrom ?? null, summary, details, fromHook));
				} else {
					assert.equal(result.summaryEntryId, undefined, this.where());
					assert.equal(result.leafId, expected.leafId, `leafId of navigate(${target}); ${this.where()}`);
					if (expected.leafId === null) {
						model.resetLeaf();
						pi?.sm.resetLeaf();
					} else {
						model.branch(expected.leafId);
						pi?.sm.branch(this.toPi(expected.leafId));
					}
				}
				break;
			}
			case "clock":
				note("clock moved");
				break;
			case "close":
				await s.close();
				break;
			case "fork": {
				const target = this.pickEntry(op.pick);
				if (target === undefined) break;
				await this.checkFork(target);
				break;
			}
			case "invalid": {
				const size = () => (this.file ? statSync(this.file).size : 0);
				const before = JSON.stringify([s.getLeafId(), s.entryCount, size()]);
				const calls = {
					branch: () => s.branch(BOGUS_ID),
					label: () => s.appendLabelChange(BOGUS_ID, "x"),
					branchWithSummary: () => s.branchWithSummary(BOGUS_ID, "s"),
					navigate: () => s.navigate(BOGUS_ID, { summary: "s" }),
				};
				await assert.rejects(
					calls[op.call],
					{ name: "SessionTreeError", code: "ENTRY_NOT_FOUND" },
					`${op.call}(bogus)`,
				);
				assert.equal(
					JSON.stringify([s.getLeafId(), s.entryCount, size()]),
					before,
					`${op.call}(bogus) changed the session or its file`,
				);
				break;
			}
			case "reopen": {
				if (!this.file) break;
				if (model.leaf === null) note("reopen: leaf reset");
				else if (model.leaf !== model.entries[model.entries.length - 1]?.id) note("reopen: leaf is not the last entry");
				await s.close();
				this.session = await Session.open(this.file, { now: this.now, random: this.random });
				this.checkPiReadsOurFile();
				this.checkEveryEntry();
				break;
			}
		}
		this.checkModel();
		this.checkPiMirror();
	}

	/** The session agrees with the reference model on everything observable. */
	checkModel(): void {
		const { session: s, model } = this;
		const where = this.where();
		const compactions = model.path().filter((e) => e.type === "compaction").length;
		if (compactions > 0) note("context: compaction in effect");
		if (compactions > 1) note("context: two compactions on the path");
		assert.equal(s.getLeafId(), model.leaf, `getLeafId; ${where}`);
		assert.deepEqual(
			s.getBranch().map((e) => e.id),
			model.path().map((e) => e.id),
			`getBranch; ${where}`,
		);
		assert.deepEqual(norm(s.buildSessionContext()), norm(model.context()), `buildSessionContext; ${where}`);
		assert.deepEqual(s.listBranches(), model.leaves(), `listBranches; ${where}`);
		assert.equal(s.getSessionName(), model.name, `getSessionName; ${where}`);
		for (const id of model.ids()) assert.equal(s.getLabel(id), model.labels.get(id), `getLabel(${id}); ${where}`);
		assert.equal(s.entryCount, model.entries.length, `entryCount; ${where}`);
		assert.deepEqual(norm(s.getEntries()), norm(model.entries), `getEntries; ${where}`);
		for (const id of model.ids()) {
			assert.deepEqual(
				s.getChildren(id).map((e) => e.id),
				model.children(id),
				`getChildren(${id}); ${where}`,
			);
		}
		assert.deepEqual(treeIds(s.getTree()), model.tree(), `getTree; ${where}`);
	}

	/** Context and path at every entry (not only the leaf), and the flattened tree view. */
	checkEveryEntry(): void {
		const { session: s, model } = this;
		const where = this.where();
		for (const id of model.ids()) {
			assert.deepEqual(
				s.getBranch(id).map((e) => e.id),
				model.path(id).map((e) => e.id),
				`getBranch(${id}); ${where}`,
			);
			assert.deepEqual(
				norm(s.buildSessionContext(id)),
				norm(model.context(id)),
				`buildSessionContext(${id}); ${where}`,
			);
		}
		assert.deepEqual(
			norm(s.buildSessionContext(null)),
			norm(model.context(null)),
			`buildSessionContext(null); ${where}`,
		);
		const rows: Array<[string, number, string | undefined]> = [];
		const walk = (nodes: ReturnType<ReferenceModel["tree"]>, depth: number) => {
			for (const n of nodes) {
				rows.push([n.id, depth, n.label]);
				walk(n.children, depth + 1);
			}
		};
		walk(model.tree(), 0);
		assert.deepEqual(
			s.flattenTree().map((r) => [r.entry.id, r.depth, r.label]),
			rows,
			`flattenTree; ${where}`,
		);
	}

	/** pi's in-memory manager, given the same operations, is in the same state. */
	checkPiMirror(): void {
		const { session: s, pi } = this;
		if (!pi) return;
		const where = this.where();
		const ours = (piId: string) => pi.fromPi.get(piId) ?? `unmapped pi id ${piId}`;
		const piLeaf = pi.sm.getLeafId();
		assert.equal(piLeaf === null ? null : ours(piLeaf), s.getLeafId(), `pi leaf; ${where}`);
		assert.deepEqual(
			pi.sm.getBranch().map((e) => ours(e.id)),
			s.getBranch().map((e) => e.id),
			`pi getBranch; ${where}`,
		);
		const piContext = pi.sm.buildSessionContext();
		const messages = piContext.messages.map((m) => {
			const message = m as { role: string; fromId?: string };
			if (message.role !== "branchSummary" || message.fromId === "root" || message.fromId === undefined) return m;
			return { ...message, fromId: ours(message.fromId) };
		});
		assert.deepEqual(norm({ ...piContext, messages }), norm(s.buildSessionContext()), `pi context; ${where}`);
		assert.equal(pi.sm.getSessionName(), s.getSessionName(), `pi session name; ${where}`);
		assert.deepEqual(treeIds(pi.sm.getTree(), ours), treeIds(s.getTree()), `pi getTree; ${where}`);
		for (const id of this.model.ids()) {
			assert.equal(pi.sm.getLabel(this.toPi(id)), s.getLabel(id), `pi getLabel(${id}); ${where}`);
		}
	}

	/** pi, opening (a copy of) our file, builds the same context, path, name and labels. */
	checkPiReadsOurFile(): void {
		if (!this.file) return;
		const where = this.where();
		const copy = `${this.file}.pi-copy.jsonl`;
		copyFileSync(this.file, copy);
		try {
			const sm = SessionManager.open(copy, join(this.file, ".."));
			const s = this.session;
			assert.deepEqual(norm(sm.buildSessionContext()), norm(s.buildSessionContext()), `pi open: context; ${where}`);
			const notLeaf = (e: { type: string }) => e.type !== "leaf";
			assert.deepEqual(
				sm
					.getBranch()
					.filter(notLeaf)
					.map((e) => e.id),
				s.getBranch().map((e) => e.id),
				`pi open: getBranch; ${where}`,
			);
			assert.deepEqual(
				sm
					.getEntries()
					.filter(notLeaf)
					.map((e) => e.id),
				s.getEntries().map((e) => e.id),
				`pi open: entries; ${where}`,
			);
			assert.equal(sm.getSessionName(), s.getSessionName(), `pi open: session name; ${where}`);
			assert.deepEqual(
				treeIds(sm.getTree(), undefined, notLeaf),
				treeIds(s.getTree()),
				`pi open: getTree without leaf records; ${where}`,
			);
			for (const id of this.model.ids())
				assert.equal(sm.getLabel(id), s.getLabel(id), `pi open: getLabel(${id}); ${where}`);
		} finally {
			rmSync(copy, { force: true });
		}
	}

	/** fork(id): a new session holding the path to `id` (labels re-created), with the same context. */
	async checkFork(target: string): Promise<void> {
		const where = `fork(${target}); ${this.where()}`;
		const path = this.model.path(target);
		if (path.some((e) => e.type === "label")) note("fork: a label entry on the path");
		if (path.some((e) => this.model.labels.has(e.id))) note("fork: a labelled entry on the path");
		// A name of our own: a fork that throws half-way cannot leave a file in the way of the next.
		const forkFile = this.file ? `${this.file}.fork-${this.steps.length}.jsonl` : undefined;
		let fork: Session;
		try {
			fork = await this.session.fork(target, forkFile ? { file: forkFile } : {});
		} catch (error) {
			if (forkFile) rmSync(forkFile, { force: true });
			throw error;
		}
		try {
			if (fork.file) {
				assert.equal(fork.getHeader().parentSession, this.file, where);
				await fork.close();
				fork = await Session.open(fork.file);
			}
			const copied = path.filter((e) => e.type !== "label");
			const branch = fork.getBranch();
			if (this.model.entry(target).type === "label") {
				// Label entries are not copied: the fork ends at the path's last other entry (or at a
				// re-created label after it, as pi's createBranchedSession does).
				note("fork: at a label entry");
				assert.deepEqual(
					branch.filter((e) => e.type !== "label").map((e) => e.id),
					copied.map((e) => e.id),
					where,
				);
			} else {
				assert.equal(fork.getLeafId(), target, where);
				assert.deepEqual(
					branch.map((e) => e.id),
					copied.map((e) => e.id),
					where,
				);
			}
			assert.deepEqual(norm(fork.buildSessionContext()), norm(this.model.context(target)), `context; ${where}`);
			for (const e of copied)
				assert.equal(fork.getLabel(e.id), this.model.labels.get(e.id), `label of ${e.id}; ${where}`);
			const labelled = copied.filter((e) => this.model.labels.has(e.id)).length;
			assert.equal(fork.entryCount, copied.length + labelled, `entry count; ${where}`);
			if (fork.file) {
				const copy = `${fork.file}.pi-copy.jsonl`;
				copyFileSync(fork.file, copy);
				try {
					const sm = SessionManager.open(copy, join(copy, ".."));
					assert.deepEqual(norm(sm.buildSessionContext()), norm(fork.buildSessionContext()), `pi open: ${where}`);
				} finally {
					rmSync(copy, { force: true });
				}
			}
		} finally {
			await fork.close();
			if (forkFile) rmSync(forkFile, { force: true });
		}
	}

	/**
	 * pi opens (a copy of) our file and appends to it, after our persisted-leaf records: we read
	 * back what pi reads.
	 */
	async checkWeReadPiAppends(): Promise<void> {
		// pi 0.73.1 appends to a file only once it holds an assistant message; before that, its first
		// write re-appends every entry of the file (header included), duplicating them all.
		const hasAssistant = this.model.entries.some(
			(e) => e.type === "message" && (e.message as RefMessage).role === "assistant",
		);
		if (!this.file || !hasAssistant) return;
		note("pi appended to our file");
		const where = `pi appended to our file; ${this.where()}`;
		const copy = `${this.file}.pi-append.jsonl`;
		copyFileSync(this.file, copy);
		try {
			const sm = SessionManager.open(copy, join(copy, ".."));
			// pi only writes once the session holds an assistant message.
			sm.appendMessage({ role: "user", content: "from pi", timestamp: 1 } as never);
			sm.appendMessage({
				role: "assistant",
				content: [{ type: "text", text: "pi says" }],
				api: "anthropic-messages",
				provider: "pi-provider",
				model: "pi-model",
				usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 },
				stopReason: "stop",
				timestamp: 2,
			} as never);
			sm.appendThinkingLevelChange("high");
			const ours = await Session.open(copy);
			assert.equal(ours.getLeafId(), sm.getLeafId(), where);
			assert.deepEqual(
				ours.getBranch().map((e) => e.id),
				sm
					.getBranch()
					.filter((e) => (e.type as string) !== "leaf")
					.map((e) => e.id),
				where,
			);
			assert.deepEqual(norm(ours.buildSessionContext()), norm(sm.buildSessionContext()), `context; ${where}`);
			await ours.close();
		} finally {
			rmSync(copy, { force: true });
		}
	}

	async finish(): Promise<void> {
		this.checkEveryEntry();
		if (this.file) {
			// One last reopen: the file alone reproduces the state.
			await this.session.close();
			this.session = await Session.open(this.file, { now: this.now, random: this.random });
			this.steps.push("(final reopen)");
			this.checkModel();
			this.checkEveryEntry();
			this.checkPiReadsOurFile();
			await this.session.close();
		}
	}
}

// ---- what the properties found -----------------------------------------------------------------

describe("found by the properties", () => {
	// Shrunk counterexample: [appendMessage(user), appendLabelChange(user), fork(<the label entry>)].
	// Session.fork copies the path without its label entries, then calls branch(entryId) on the
	// copy, where the label entry does not exist: it throws ENTRY_NOT_FOUND, and for a file-backed
	// session leaves the half-written fork file behind. pi's createBranchedSession forks at any
	// entry, label entries included.
	test("fork at a label entry works like a fork at its parent", async () => {
		const dir = mkdtempSync(join(tmpdir(), "session-tree-fork-label-"));
		try {
			const s = await Session.create({ dir, cwd: "/work" });
			const user = await s.appendMessage({ role: "user", content: "hi", timestamp: 1 });
			const label = await s.appendLabelChange(user, "start");
			const fork = await s.fork(label);
			assert.deepEqual(
				fork
					.getBranch()
					.filter((e) => e.type !== "label")
					.map((e) => e.id),
				[user],
			);
			assert.deepEqual(fork.buildSessionContext(), s.buildSessionContext(label));
			assert.equal(fork.getLabel(user), "start");
			await fork.close();
			await s.close();
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});

	// Shrunk counterexample: [compaction, appendLabelChange, appendMessage(assistant),
	// compaction(firstKeptEntryId = <the label entry>), fork(<the last compaction>)]. fork drops
	// the label entries of the path, so a compaction whose firstKeptEntryId names one of them
	// keeps nothing in the fork: the fork's context loses every kept message. (pi's
	// createBranchedSession drops label entries too, without even re-chaining their children.)
	test("fork keeps the context when a compaction's firstKeptEntryId is a label entry", async () => {
		const s = await Session.inMemory({ cwd: "/work" });
		const question = await s.appendMessage({ role: "user", content: "q", timestamp: 1 });
		const label = await s.appendLabelChange(question, "here");
		await s.appendMessage({ role: "user", content: "kept", timestamp: 2 });
		const compaction = await s.appendCompaction("summary", label, 100);
		const before = s.buildSessionContext();
		assert.deepEqual(
			before.messages.map((m) => m.role),
			["compactionSummary", "user"],
		);
		const fork = await s.fork(compaction);
		assert.deepEqual(fork.buildSessionContext(), before);
	});
});

// ---- the properties --------------------------------------------------------------------------

describe("property: Session against a reference model and pi", () => {
	let dir = "";
	let counter = 0;
	before(() => {
		dir = mkdtempSync(join(tmpdir(), "session-tree-prop-"));
	});
	after(() => {
		rmSync(dir, { recursive: true, force: true });
	});

	/** Runs `ops`, then the end-of-run checks; always releases the file and deletes it. */
	async function runAll(
		ops: readonly Op[],
		options: RunOptions,
		atEnd: (run: Run) => Promise<void> = async () => {},
	): Promise<void> {
		let run: Run | undefined;
		try {
			run = await Run.start(options);
			for (const op of ops) await run.step(op);
			await atEnd(run);
			await run.finish();
		} finally {
			await run?.session.close();
			if (options.file) rmSync(options.file, { force: true });
		}
	}
	const nextFile = () => join(dir, `run-${++counter}.jsonl`);

	test("in memory: every step agrees with the reference model", async (t: TestContext) => {
		const property = () =>
			fc.assert(
				fc.asyncProperty(opsArbitrary(false), idSpace, (ops, idSeed) => runAll(ops, { idSeed })),
				{ numRuns: 200, includeErrorInReport: true },
			);
		await property();
		await topUp(t, property, COMMON);
		assertSeen(t, COMMON);
	});

	/** 150 random runs on files, with reopens (the property below, and the rare situations' top-ups). */
	const fileBacked = () =>
		fc.assert(
			fc.asyncProperty(opsArbitrary(true), idSpace, (ops, idSeed) => runAll(ops, { file: nextFile(), idSeed })),
			{ numRuns: 150, includeErrorInReport: true },
		);

	test("file-backed, with reopens: every step agrees with the reference model", async (t: TestContext) => {
		await fileBacked();
		await topUp(t, fileBacked, [...COMMON, ...REOPEN]);
		assertSeen(t, [...COMMON, ...REOPEN]);
	});

	test("pi: SessionManager.inMemory() given the same operations, and SessionManager.open(our file), agree", async (t: TestContext) => {
		// pi stamps entries with `new Date()`: freeze its clock to ours, step by step.
		t.mock.timers.enable({ apis: ["Date"], now: START });
		const setTime = (ms: number) => t.mock.timers.setTime(ms);
		const property = () =>
			fc.assert(
				fc.asyncProperty(opsArbitrary(true), idSpace, (ops, idSeed) =>
					runAll(ops, { file: nextFile(), pi: { setTime }, idSeed }, async (run) => {
						run.checkPiReadsOurFile();
						await run.checkWeReadPiAppends();
					}),
				),
				{ numRuns: 150, includeErrorInReport: true },
			);
		const situations = [...COMMON, ...REOPEN, "pi appended to our file"];
		await property();
		await topUp(t, property, situations);
		assertSeen(t, situations);
	});

	test("the rare situations came up in at least one of the properties above", async (t: TestContext) => {
		// Where the three properties' cases missed one by chance, more file-backed cases are run
		// (the property that makes every one of them), at most TOP_UPS times.
		await topUp(t, fileBacked, RARE, seenInAnyRun);
		seen.clear();
		for (const situation of RARE) assert.ok((seenInAnyRun.get(situation) ?? 0) > 0, `never exercised: ${situation}`);
	});
});
