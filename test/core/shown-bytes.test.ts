/**
 * The byte-level decision of pi's filters on assistant messages (src/core/shown-bytes.ts),
 * against an independent path: `JSON.parse` and the filters' own rule on the parsed entry
 * (`treeFilterShows` after a real parse through `LazyBodies`, or pi's `hasText` rule written
 * out here). Every line the scanner answers must get the answer the parse gives, on generated
 * lines (look-alike blocks nested in tool calls, escapes, blank texts, Unicode spaces, string
 * content, stop reasons, odd key order, duplicate keys, damaged JSON) and on every line of the
 * real session files kept under test/fixtures. Then the views: the same rows with the bytes
 * deciding as with every body parsed, and the hidden rows' bodies left unparsed.
 */

import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { type BodyProblem, LazyBodies, type LineSource, type LineVisitor, type Span } from "../../src/core/lazy.js";
import { loadTree } from "../../src/core/load.js";
import {
	assistantShownBytes,
	HIDDEN,
	isTrimmedUnit,
	MAX_DEPTH,
	OTHER_ROLE,
	SHOWN,
	type ShownAnswer,
	UNKNOWN,
} from "../../src/core/shown-bytes.js";
import { Envelope } from "../../src/core/tree-node.js";
import { viewId } from "../../src/core/tree-view.js";
import { Session, type SessionEntry, type SessionTreeNode } from "../../src/index.js";
import { decideAssistantsShown, layoutTree, TREE_FILTERS, treeFilterShows } from "../../src/render/tree-layout.js";
import { renderTreeLines } from "../../src/render/tree-text.js";
import { FileSessionStore } from "../../src/storage/file-store.js";
import { repoRoot } from "../support/fixtures.js";
import { mulberry32 } from "../support/random.js";

/** pi's rule, written out from its tree selector (independent of src/render/tree-layout.ts). */
function piPasses(message: Record<string, unknown>): boolean {
	const content = message.content;
	const hasText =
		typeof content === "string"
			? content.trim().length > 0
			: Array.isArray(content) &&
				content.some(
					(block) =>
						block !== null &&
						typeof block === "object" &&
						(block as Record<string, unknown>).type === "text" &&
						typeof (block as Record<string, unknown>).text === "string" &&
						((block as Record<string, unknown>).text as string).trim().length > 0,
				);
	const stop = message.stopReason;
	return hasText || (!!stop && stop !== "stop" && stop !== "toolUse");
}

/**
 * What the parse says of a line, without the entry's checks: the rule's answer for a JSON
 * object of type "message" whose message is an object of role "assistant"; undefined for
 * anything else (the scanner must not answer it).
 */
function parsedRule(text: string): ShownAnswer | undefined {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		return undefined;
	}
	if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
	const record = value as Record<string, unknown>;
	const message = record.message;
	if (record.type !== "message" || message === null || typeof message !== "object" || Array.isArray(message)) {
		return undefined;
	}
	if ((message as Record<string, unknown>).role !== "assistant") return undefined;
	return piPasses(message as Record<string, unknown>) ? SHOWN : HIDDEN;
}

/** Checks the scanner (without an envelope) on one line against {@link parsedRule}; returns whether it answered. */
function checkRule(bytes: Buffer, start: number, end: number, where: string): boolean {
	const answer = assistantShownBytes(bytes, start, end);
	const expected = parsedRule(bytes.toString("utf8", start, end));
	if (answer === UNKNOWN) return false;
	assert.equal(answer, expected, `${where}: ${bytes.toString("utf8", start, Math.min(end, start + 300))}`);
	return true;
}

// --- Generated lines -------------------------------------------------------------------------

const BLANKS = [
	"",
	" ",
	"   ",
	"\\n",
	"\\t \\r\\n",
	"\\f",
	"\\u000b",
	"\u00a0",
	"\\u00a0",
	"\u2003\u3000",
	"\\u2028\\u2029",
	"\ufeff",
	"\\ufeff ",
	"\u205f\u202f\u1680",
];
const NON_BLANKS = [
	"hi",
	" ok",
	"\\n done",
	"\\b",
	'\\"',
	"\\\\",
	"\\/",
	"\u00e9t\u00e9",
	"\ud83d\ude00",
	"\\ud83d\\ude00",
	"\\ud800",
	"\u0085",
	"\\u0085",
	"\u180e",
	"\u200b",
	"\\u200b",
	"\u00a0x",
	" \\u0041",
	"\x7f",
];

function pick<T>(next: () => number, items: readonly T[]): T {
	return items[Math.floor(next() * items.length)] as T;
}

/** Blank-looking or not, raw (already JSON-escaped) string bodies. */
function textBody(next: () => number): string {
	return next() < 0.5 ? pick(next, BLANKS) : pick(next, NON_BLANKS) + (next() < 0.3 ? pick(next, BLANKS) : "");
}

/** A key as written: mostly plain, sometimes escaped (`t\u0065xt` is `text`), with blanks around. */
function key(next: () => number, name: string): string {
	const sp = (): string => (next() < 0.1 ? pick(next, [" ", "\n", "\t", "\r\n "]) : "");
	let written = name;
	if (next() < 0.06 && name.length > 1)
		written = `${name.slice(0, 1)}\\u00${name.charCodeAt(1).toString(16)}${name.slice(2)}`;
	return `${sp()}"${written}"${sp()}:${sp()}`;
}

/** An object from members, shuffled now and then (odd key order). */
function object(next: () => number, members: string[]): string {
	if (next() < 0.3) members.sort(() => next() - 0.5);
	return `{${members.join(",")}}`;
}

/** Something a tool call carries: look-alike text blocks and quotes inside strings. */
function toolArguments(next: () => number, depth = 0): string {
	const choices = [
		() => `{"type":"text","text":"${pick(next, NON_BLANKS)}"}`,
		() => `"{\\"type\\":\\"text\\",\\"text\\":\\"hi\\"}"`,
		() => `[{"type":"text","text":"x"},{"content":[{"type":"text","text":"y"}]}]`,
		() => `{"stopReason":"error","message":{"role":"assistant"},"role":"user"}`,
		() => `${Math.floor(next() * 1000) - 500}.${Math.floor(next() * 100)}e${Math.floor(next() * 5)}`,
		() => pick(next, ["true", "false", "null", "-0", "0.5", "1E+2"]),
		() => (depth < 4 ? `{"nested":${toolArguments(next, depth + 1)},"k":[${toolArguments(next, depth + 1)}]}` : "{}"),
	];
	return pick(next, choices)();
}

function block(next: () => number): string {
	const kind = next();
	if (kind < 0.35) {
		const members = [`${key(next, "type")}"text"`, `${key(next, "text")}"${textBody(next)}"`];
		if (next() < 0.1) members.push(`${key(next, "text")}${pick(next, ['"again"', '""', "null", "3"])}`);
		if (next() < 0.1) members.push(`${key(next, "type")}${pick(next, ['"thinking"', '"text"', '"t\\u0065xt"', "1"])}`);
		if (next() < 0.1) members.push(`"textSignature":"sig"`);
		return object(next, members);
	}
	if (kind < 0.6)
		return object(next, [`"type":"thinking"`, `"thinking":"${textBody(next)} and more"`, `"thinkingSignature":"s"`]);
	if (kind < 0.85) {
		return object(next, [`"type":"toolCall"`, `"id":"call_1"`, `"name":"bash"`, `"arguments":${toolArguments(next)}`]);
	}
	return pick(next, [
		`{"type":"text","text":${pick(next, ["null", "1", '["hi"]', '{"t":"hi"}'])}}`,
		`{"type":"Text","text":"hi"}`,
		`{"text":"hi"}`,
		`"text"`,
		"null",
		"[]",
		`{"type":"image","data":"AAAA","mimeType":"image/png"}`,
	]);
}

function content(next: () => number): string {
	const kind = next();
	if (kind < 0.12) return `"${textBody(next)}"`;
	if (kind < 0.16) return pick(next, ["null", "{}", "1", '{"type":"text","text":"hi"}', "true"]);
	const blocks: string[] = [];
	const count = Math.floor(next() * 4);
	for (let i = 0; i < count; i++) blocks.push(block(next));
	return `[${blocks.join(next() < 0.1 ? " , " : ",")}]`;
}

const STOPS = [
	'"stop"',
	'"toolUse"',
	'"error"',
	'"aborted"',
	'"length"',
	'""',
	'"st\\u006fp"',
	'"\\u0000"',
	'"tool\\u0055se"',
	"0",
	"1",
	"-0.0",
	"0e5",
	"true",
	"false",
	"null",
	"{}",
	"[]",
];

interface Generated {
	line: string;
	id: string;
	parentId: string | null;
	/** What the envelope says of the line (another id, parent or role now and then: a line changed in place). */
	envelope: { id: string; parentId: string | null; role: string };
}

const ROLES = ['"user"', '"toolResult"', '"assist\\u0061nt"', "1", '"Assistant"', '"us\\u0065r"', '"bashExecution"'];

function messageObject(next: () => number, role = '"assistant"'): string {
	const members: string[] = [];
	if (next() < 0.97) members.push(`${key(next, "role")}${next() < 0.92 ? role : pick(next, ROLES)}`);
	members.push(`${key(next, "content")}${content(next)}`);
	if (next() < 0.1) members.push(`${key(next, "content")}${content(next)}`);
	members.push(`"api":"anthropic-messages"`, `"provider":"anthropic"`, `"model":"claude"`);
	members.push(`"usage":{"input":1,"output":2,"cacheRead":0,"cost":{"total":0.25}}`);
	if (next() < 0.85) members.push(`${key(next, "stopReason")}${pick(next, STOPS)}`);
	if (next() < 0.08) members.push(`${key(next, "stopReason")}${pick(next, STOPS)}`);
	if (next() < 0.3) members.push(`"errorMessage":"boom"`);
	members.push(`"timestamp":${1736224803645 + Math.floor(next() * 1000)}`);
	return object(next, members);
}

function generate(next: () => number, n: number, roles = false): Generated {
	const roleName = roles && next() < 0.4 ? pick(next, ["user", "toolResult", "custom"]) : "assistant";
	const role = JSON.stringify(roleName);
	const id = `a${n.toString(16).padStart(7, "0")}`;
	const parentId = next() < 0.05 ? null : `p${n.toString(16).padStart(7, "0")}`;
	const members = [
		`${key(next, "type")}${next() < 0.95 ? '"message"' : pick(next, ['"custom"', '"mess\\u0061ge"', "7"])}`,
		`${key(next, "id")}${next() < 0.97 ? JSON.stringify(id) : pick(next, ['""', "5", '"other"'])}`,
		`${key(next, "parentId")}${parentId === null ? "null" : next() < 0.97 ? JSON.stringify(parentId) : pick(next, ["null", "3", '"other"'])}`,
		`${key(next, "timestamp")}${next() < 0.97 ? '"2025-01-07T04:40:10.455Z"' : "12"}`,
		`${key(next, "message")}${next() < 0.97 ? messageObject(next, role) : pick(next, ["null", "[]", '"m"'])}`,
	];
	if (next() < 0.05) members.push(`${key(next, "message")}${messageObject(next)}`);
	let line = object(next, members);
	// Damage now and then: the scanner must then not answer.
	const damage = next();
	if (damage < 0.04) line = line.slice(0, Math.floor(next() * line.length));
	else if (damage < 0.06) line = `${line}x`;
	else if (damage < 0.08) {
		const at = Math.floor(next() * line.length);
		line =
			line.slice(0, at) + pick(next, ["\u0001", "\t", '"', "\\", "}", ",", "\u00a0", "\ufeff", "\\x"]) + line.slice(at);
	} else if (damage < 0.09) line = `\ufeff${line}`;
	else if (damage < 0.1) line = ` \t${line} \r`;
	const changed = next();
	const envelope =
		changed < 0.03
			? { id: `${id}x`, parentId, role: roleName }
			: changed < 0.06
				? { id, parentId: parentId === null ? "p" : null, role: roleName }
				: changed < 0.1
					? { id, parentId, role: pick(next, ["assistant", "user", "toolResult"]) }
					: { id, parentId, role: roleName };
	return { line, id, parentId, envelope };
}

/** A store of lines in memory: raw bytes visited as a file source visits them. */
class MemorySource implements LineSource {
	constructor(private readonly buffer: Buffer) {}
	readLines(spans: readonly Span[]): string[] {
		return spans.map((span) => this.buffer.toString("utf8", span.offset, span.offset + span.length));
	}
	visitLines(spans: readonly Span[], visit: LineVisitor): void {
		spans.forEach((span, index) => {
			visit(index, this.buffer, span.offset, span.offset + span.length);
		});
	}
}

/** The lines in one buffer, a newline after each, with their envelopes. */
function store(lines: readonly Generated[]): { source: MemorySource; envelopes: Envelope[]; buffer: Buffer } {
	const buffers: Buffer[] = [];
	const envelopes: Envelope[] = [];
	let offset = 0;
	lines.forEach((generated, i) => {
		const bytes = Buffer.from(`${generated.line}\n`, "utf8");
		buffers.push(bytes);
		const { id, parentId, role } = generated.envelope;
		envelopes.push(
			new Envelope("message", id, parentId, "2025-01-07T04:40:10.455Z", role, offset, bytes.length - 1, i + 2),
		);
		offset += bytes.length;
	});
	const buffer = Buffer.concat(buffers);
	return { source: new MemorySource(buffer), envelopes, buffer };
}

describe("assistant messages shown by pi's filters, from their bytes", () => {
	test("the blanks the scanner skips are exactly what String.prototype.trim removes", () => {
		for (let unit = 0; unit <= 0xffff; unit++) {
			assert.equal(isTrimmedUnit(unit), String.fromCharCode(unit).trim() === "", `U+${unit.toString(16)}`);
		}
	});

	test("every generated line answered gets what JSON.parse and pi's rule give", () => {
		const next = mulberry32(28);
		let answered = 0;
		let shown = 0;
		let hidden = 0;
		const total = 20000;
		for (let n = 0; n < total; n++) {
			const { line } = generate(next, n);
			const bytes = Buffer.from(`${line}\n{"after":1}`, "utf8");
			const end = Buffer.byteLength(line);
			if (checkRule(bytes, 0, end, `line ${n}`)) {
				answered++;
				if (assistantShownBytes(bytes, 0, end) === SHOWN) shown++;
				else hidden++;
			}
		}
		// The scanner must decide the lines pi writes, not give up on everything.
		assert.ok(answered > total * 0.6, `answered ${answered} of ${total}`);
		assert.ok(shown > total * 0.2 && hidden > total * 0.1, `shown ${shown}, hidden ${hidden}`);
	});

	test("with the envelope: answered exactly when the parse succeeds, as treeFilterShows decides after it", () => {
		const next = mulberry32(2028);
		const lines = Array.from({ length: 8000 }, (_, n) => generate(next, n, true));
		const { source, envelopes } = store(lines);
		const problems: BodyProblem[] = [];
		const strict = new LazyBodies(source, { lenient: false, file: "mem.jsonl", problems });
		const answers = strict.shown(envelopes);
		let answered = 0;
		let otherRoles = 0;
		envelopes.forEach((envelope, i) => {
			let entry: SessionEntry | undefined;
			try {
				[entry] = strict.load([envelope]);
			} catch {
				entry = undefined;
			}
			const answer = answers[i];
			if (answer === UNKNOWN) return;
			answered++;
			assert.ok(entry, `line ${i} answered ${answer} but its parse fails: ${lines[i]?.line}`);
			const node: SessionTreeNode = { entry: entry as SessionEntry, children: [] };
			const role = (entry as { message?: { role?: unknown } }).message?.role;
			if (answer === OTHER_ROLE) {
				otherRoles++;
				// The role the envelope says, and not the assistant's: the filters read only it.
				assert.equal(role, envelope.role, `line ${i}`);
				assert.notEqual(role, "assistant");
				assert.equal(treeFilterShows(node, "user-only", null), role === "user");
				assert.equal(treeFilterShows(node, "no-tools", null), role !== "toolResult");
				assert.equal(treeFilterShows(node, "default", null), true);
				return;
			}
			assert.equal(role, "assistant", `line ${i}`);
			assert.equal(envelope.role, "assistant", `line ${i}`);
			// Under "all", only the assistant rule hides an entry; not the leaf.
			const passes = treeFilterShows(node, "all", null);
			assert.equal(answer, passes ? SHOWN : HIDDEN, `line ${i}: ${lines[i]?.line}`);
			for (const filter of TREE_FILTERS) {
				const expected = filter === "user-only" ? false : filter === "labeled-only" ? false : passes;
				assert.equal(treeFilterShows(node, filter, null), expected, `${filter}, line ${i}`);
				// The leaf is shown whatever its text.
				if (filter !== "user-only" && filter !== "labeled-only")
					assert.equal(treeFilterShows(node, filter, envelope.id), true);
			}
		});
		assert.ok(answered > envelopes.length * 0.5, `answered ${answered} of ${envelopes.length}`);
		assert.ok(otherRoles > envelopes.length * 0.2, `${otherRoles} other roles`);
	});

	test("a line nested deeper than the scanner follows is not answered", () => {
		const deep = `{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"assistant","content":[{"type":"toolCall","arguments":${"[".repeat(MAX_DEPTH)}${"]".repeat(MAX_DEPTH)}}],"stopReason":"toolUse"}}`;
		assert.equal(assistantShownBytes(Buffer.from(deep), 0, Buffer.byteLength(deep)), UNKNOWN);
		const shallow = deep.replace(`${"[".repeat(MAX_DEPTH)}${"]".repeat(MAX_DEPTH)}`, "[[1]]");
		assert.equal(assistantShownBytes(Buffer.from(shallow), 0, Buffer.byteLength(shallow)), HIDDEN);
	});

	test("the depth followed is exact: a tool call's arguments up to the limit, and not one level more", () => {
		// By hand: the entry is one level, its message two, `content` three, the block four; the
		// arguments' containers come after those, so MAX_DEPTH - 4 of them are the most followed.
		const withArguments = (levels: number, open: string, close: string): string =>
			`{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"assistant","content":[{"type":"toolCall","arguments":${open.repeat(levels)}1${close.repeat(levels)}}],"stopReason":"toolUse"}}`;
		const answer = (line: string): ShownAnswer => assistantShownBytes(Buffer.from(line), 0, Buffer.byteLength(line));
		const most = MAX_DEPTH - 4;
		for (const [open, close] of [
			["[", "]"],
			['{"k":', "}"],
		] as const) {
			JSON.parse(withArguments(most + 1, open, close));
			assert.equal(answer(withArguments(most, open, close)), HIDDEN, open);
			assert.equal(answer(withArguments(most + 1, open, close)), UNKNOWN, open);
		}
	});

	test("a skipped value that is not JSON leaves the line unanswered, whatever the nesting", () => {
		const line = (value: string): string =>
			`{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"assistant","content":[{"type":"toolCall","arguments":${value}},{"type":"text","text":"t"}],"usage":${value},"stopReason":"stop"}}`;
		const answer = (value: string): ShownAnswer => {
			const text = line(value);
			return assistantShownBytes(Buffer.from(text), 0, Buffer.byteLength(text));
		};
		const valid = [
			'{"a":[1,{"b":null}],"c":true}',
			"[[],{},[{}]]",
			'{"a":{"b":{"c":[false,-1.5e3]}}}',
			'{ "a" : [ 1 , 2 ] }',
		];
		const invalid = [
			"[1}",
			'{"a":1]',
			"{1:2}",
			'{"a":1,}',
			"[1,]",
			'{"a" 1}',
			'{"a":1 "b":2}',
			"[[1]",
			'{"a":{"b":1}',
			"[1 2]",
			'{"a":tru}',
			'{"a":01}',
			"[,1]",
			'{,"a":1}',
		];
		for (const value of valid) {
			JSON.parse(value);
			assert.equal(answer(value), SHOWN, value);
		}
		for (const value of invalid) {
			assert.throws(() => JSON.parse(line(value)), SyntaxError, value);
			assert.equal(answer(value), UNKNOWN, value);
		}
	});

	test("ids and parents are compared by value: escapes, non-ASCII text, a prefix is not equal", () => {
		const line = (id: string, parent: string): string =>
			`{"type":"message","id":${id},"parentId":${parent},"timestamp":"t","message":{"role":"assistant","content":"hi","stopReason":"stop"}}`;
		const answer = (text: string, id: string, parentId: string | null): ShownAnswer =>
			assistantShownBytes(Buffer.from(text), 0, Buffer.byteLength(text), { id, parentId });
		// Each expectation below is what JSON.parse of the line gives, written out by hand.
		assert.equal(answer(line('"ab"', '"p"'), "ab", "p"), SHOWN);
		assert.equal(answer(line('"\\u0061b"', '"p"'), "ab", "p"), SHOWN);
		assert.equal(answer(line('"é1"', '"pä"'), "é1", "pä"), SHOWN);
		assert.equal(answer(line('"\\u00e91"', '"p\\u00e4"'), "é1", "pä"), SHOWN);
		assert.equal(answer(line('"abc"', '"p"'), "ab", "p"), UNKNOWN);
		assert.equal(answer(line('"ab"', '"p"'), "abc", "p"), UNKNOWN);
		assert.equal(answer(line('"ab"', '"pq"'), "ab", "p"), UNKNOWN);
		assert.equal(answer(line('"ab"', '"p"'), "ab", null), UNKNOWN);
		assert.equal(answer(line('"ab"', "null"), "ab", "p"), UNKNOWN);
		assert.equal(answer(line('"é"', '"p"'), "e", "p"), UNKNOWN);
		assert.equal(answer(line('"e"', '"p"'), "é", "p"), UNKNOWN);
		assert.equal(answer(line('"aB"', '"p"'), "ab", "p"), UNKNOWN);
	});

	test("pi's own shapes: thinking then text, tool calls only, string content, errors", () => {
		const line = (message: string): string =>
			`{"type":"message","id":"ef5fa879","parentId":"378497da","timestamp":"2025-01-07T04:40:10.455Z","message":${message}}`;
		const cases: Array<[string, ShownAnswer]> = [
			[
				`{"role":"assistant","content":[{"type":"thinking","thinking":"x \\"text\\""},{"type":"text","text":"Done."}],"stopReason":"stop","timestamp":1}`,
				SHOWN,
			],
			[
				`{"role":"assistant","content":[{"type":"thinking","thinking":"x"},{"type":"toolCall","id":"c","name":"read","arguments":{"type":"text","text":"decoy"}}],"stopReason":"toolUse","timestamp":1}`,
				HIDDEN,
			],
			[
				`{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"read","arguments":{}}],"stopReason":"error","timestamp":1}`,
				SHOWN,
			],
			[
				`{"role":"assistant","content":[{"type":"text","text":" \\n\\u00a0"}],"stopReason":"stop","timestamp":1}`,
				HIDDEN,
			],
			[`{"role":"assistant","content":"  answer ","stopReason":"stop"}`, SHOWN],
			[`{"role":"assistant","content":[{"type":"text","text":"hi"}],"stopReason":"stop","content":[]}`, HIDDEN],
			[`{"role":"assistant","content":[],"stopReason":"aborted","stopReason":"stop"}`, HIDDEN],
		];
		for (const [message, expected] of cases) {
			const text = line(message);
			const bytes = Buffer.from(text);
			assert.equal(
				assistantShownBytes(bytes, 0, bytes.length, { id: "ef5fa879", parentId: "378497da" }),
				expected,
				message,
			);
			assert.equal(assistantShownBytes(bytes, 0, bytes.length, { id: "ef5fa879", parentId: null }), UNKNOWN);
		}
	});
});

/** Every .jsonl file below a folder. */
function sessionFiles(dir: string): string[] {
	const out: string[] = [];
	for (const name of readdirSync(dir)) {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) out.push(...sessionFiles(path));
		else if (name.endsWith(".jsonl")) out.push(path);
	}
	return out.sort();
}

describe("every line of the real and golden session files", () => {
	test("the scanner answers pi's assistant lines as the parse does, and nothing else", () => {
		const files = [
			...sessionFiles(join(repoRoot, "test", "fixtures", "real")),
			...sessionFiles(join(repoRoot, "test", "fixtures", "pi-v3")),
		];
		let answered = 0;
		let assistantLines = 0;
		for (const file of files) {
			const bytes = readFileSync(file);
			let start = 0;
			let line = 1;
			while (start < bytes.length) {
				let end = bytes.indexOf(0x0a, start);
				if (end === -1) end = bytes.length;
				if (parsedRule(bytes.toString("utf8", start, end)) !== undefined) assistantLines++;
				if (checkRule(bytes, start, end, `${file}:${line}`)) answered++;
				start = end + 1;
				line++;
			}
		}
		assert.ok(assistantLines > 100, `${assistantLines} assistant lines`);
		assert.equal(answered, assistantLines, "every assistant line of these files is decided from its bytes");
	});
});

describe("the views: same rows, hidden bodies left unparsed", () => {
	const dir = mkdtempSync(join(tmpdir(), "shown-bytes-"));
	after(() => rmSync(dir, { recursive: true, force: true }));

	/** A session of generated assistant messages (well formed) between user messages, with a fork. */
	function sessionFile(): string {
		const next = mulberry32(99);
		const lines = [`{"type":"session","version":3,"id":"s1","timestamp":"2025-01-07T04:00:00.000Z","cwd":"/tmp"}`];
		let parent: string | null = null;
		for (let n = 0; n < 400; n++) {
			const id = `e${n.toString(16).padStart(7, "0")}`;
			const at = n % 50 === 49 && n > 100 ? "e0000010" : parent;
			if (n % 3 === 0) {
				lines.push(
					JSON.stringify({
						type: "message",
						id,
						parentId: at,
						timestamp: "2025-01-07T04:40:10.455Z",
						message: { role: "user", content: `question ${n}`, timestamp: 1 },
					}),
				);
			} else {
				const message = messageObject(next);
				let text = `{"type":"message","id":"${id}","parentId":${JSON.stringify(at)},"timestamp":"2025-01-07T04:40:10.455Z","message":${message}}`;
				try {
					const parsed = JSON.parse(text) as { message?: { role?: unknown } };
					// One line each (a key's blanks may hold a newline), and pi's role.
					if (parsed.message?.role !== "assistant" || text.includes("\n")) throw new Error("not one");
				} catch {
					text = `{"type":"message","id":"${id}","parentId":${JSON.stringify(at)},"timestamp":"2025-01-07T04:40:10.455Z","message":{"role":"assistant","content":[],"stopReason":"toolUse"}}`;
				}
				lines.push(text);
			}
			parent = id;
		}
		const file = join(dir, "generated.jsonl");
		writeFileSync(file, `${lines.join("\n")}\n`);
		return file;
	}

	test("layoutTree and the printed tree give the same rows; hidden assistant bodies are not parsed", async () => {
		const file = sessionFile();
		const parsed = await Session.open(file);
		parsed.getEntries();
		const read = await new FileSessionStore(file).read();
		assert.ok(read.source, "the file store left bodies unparsed");
		const inner = read.source;
		// Offsets of the lines whose text was read (to be parsed), and of those only visited.
		const readAt = new Set<number>();
		const source: LineSource = {
			readLines(spans) {
				for (const span of spans) readAt.add(span.offset);
				return inner.readLines(spans);
			},
			visitLines(spans, visit) {
				(inner.visitLines as NonNullable<LineSource["visitLines"]>).call(inner, spans, visit);
			},
		};
		const tree = loadTree(read.lines, { source, file }).tree;
		const leafId = tree.getLeafId();
		const unparsed = () => tree.nodesInOrder().filter((node) => node.envelope !== undefined && !node.loaded);
		const assistants = unparsed().filter((node) => node.role === "assistant");
		assert.ok(assistants.length > 200);
		// What the bytes leave undecided (a number as the stop reason, …) is parsed as before; only that.
		decideAssistantsShown(tree.getTree());
		const undecided = new Set(
			unparsed()
				.filter((node) => node.assistantShown === undefined && !node.roleChecked)
				.map((node) => (node.envelope as Envelope).offset),
		);
		assert.ok(undecided.size < assistants.length / 3, `${undecided.size} undecided of ${assistants.length}`);
		assert.ok(unparsed().filter((node) => node.roleChecked).length > 100);
		const ids = (rows: ReturnType<typeof layoutTree>["rows"]) =>
			rows.map((row) => (row.kind === "entry" ? viewId(row.node) : row.kind));
		for (const filter of TREE_FILTERS) {
			readAt.clear();
			const expected = layoutTree(parsed.getTree(), { leafId, filter }).rows;
			const roots = tree.getTree();
			decideAssistantsShown(roots);
			const rows = layoutTree(roots, { leafId, filter }).rows;
			assert.deepEqual(ids(rows), ids(expected), filter);
			for (const offset of readAt) assert.ok(undecided.has(offset), `${filter}: the layout read a decided body`);
			// The printed tree: the same text, and only the shown rows' bodies read.
			const printed = renderTreeLines(tree.getTree(), { leafId, filter, transient: true });
			assert.deepEqual(printed, renderTreeLines(parsed.getTree(), { leafId, filter }), filter);
			const shown = new Set(ids(rows));
			let hiddenRows = 0;
			for (const node of assistants) {
				const offset = (node.envelope as Envelope).offset;
				if (shown.has(node.id) || undecided.has(offset)) continue;
				hiddenRows++;
				assert.ok(!readAt.has(offset), `${filter}: ${node.id} read`);
			}
			if (filter !== "all") assert.ok(hiddenRows > 20, `${filter}: ${hiddenRows} hidden`);
		}
		// Some are hidden, some shown: the generated session exercises both answers.
		const hidden = assistants.filter((node) => node.assistantShown === false).length;
		assert.ok(hidden > 20 && hidden < assistants.length - 20, `${hidden} of ${assistants.length} hidden`);
	});
});
