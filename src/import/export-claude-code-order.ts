/**
 * The order of an export's lines, and Claude Code's rule for where a transcript resumes (used
 * by export-claude-code.ts and the CLI).
 */

import { isJson, type Json } from "./common.js";

/** One line of the export, before ordering. */
export interface Line {
	record: Json;
	/** Where it goes when nothing else decides: the source line number, or a place after the line before. */
	rank: number;
	seq: number;
}

/** The line types Claude Code builds its chain from (others, such as `summary` or `custom-title`, stand apart). */
const CHAIN_TYPES: ReadonlySet<unknown> = new Set(["user", "assistant", "progress", "system", "attachment"]);

/**
 * Where Claude Code continues a transcript (`claude --resume`, the Agent SDK's
 * `getSessionMessages`): the uuid of the user or assistant line it resumes at, or undefined.
 * Its rule (Agent SDK 0.3.x, the transcript loader): of the chain lines (`CHAIN_TYPES` with a
 * uuid; a repeated uuid counts once, its last copy), take those of the main chain (not
 * `isSidechain`, no `teamName`, not `progress`, not a `fork_briefing` attachment) that no
 * main-chain line names as parent; the one latest in the file wins, and the answer is the
 * nearest user or assistant line at or above it. A transcript where none reaches one falls
 * back on Claude Code's second rule (the latest root-reachable user or assistant line), which
 * this function does not follow: it answers undefined.
 */
export function claudeCodeResumePoint(lines: readonly unknown[]): string | undefined {
	const byUuid = new Map<string, Json>();
	const position = new Map<string, number>();
	lines.forEach((line, index) => {
		if (isJson(line) && typeof line.uuid === "string" && CHAIN_TYPES.has(line.type)) {
			byUuid.set(line.uuid, line);
			position.set(line.uuid, index);
		}
	});
	const main = (line: Json) =>
		line.isSidechain !== true &&
		!line.teamName &&
		line.type !== "progress" &&
		!(line.type === "attachment" && isJson(line.attachment) && line.attachment.type === "fork_briefing");
	const parents = new Set<unknown>();
	for (const line of byUuid.values()) if (main(line) && line.parentUuid) parents.add(line.parentUuid);
	const ends = [...byUuid.values()]
		.filter((line) => main(line) && !parents.has(line.uuid))
		.sort((a, b) => (position.get(String(b.uuid)) ?? -1) - (position.get(String(a.uuid)) ?? -1));
	const visited = new Set<string>();
	for (const end of ends) {
		const walked: string[] = [];
		const here = new Set<string>();
		for (let line: Json | undefined = end; line !== undefined; ) {
			const uuid = String(line.uuid);
			if (visited.has(uuid) || here.has(uuid)) break;
			if (line.type === "user" || line.type === "assistant") return uuid;
			here.add(uuid);
			walked.push(uuid);
			line = typeof line.parentUuid === "string" ? byUuid.get(line.parentUuid) : undefined;
		}
		for (const uuid of walked) visited.add(uuid);
	}
	return undefined;
}

/**
 * Parents first, by rank where the links leave a choice, the lines of `last` after the others
 * where the links allow (in their own rank order). A link that cannot be honoured (a cycle in a
 * damaged source) leaves the rest in rank order: never a hang.
 */
export function orderLines(lines: readonly Line[], last: ReadonlySet<Line>): Json[] {
	const group = (line: Line) => (last.has(line) ? 1 : 0);
	const before = (a: Line, b: Line) => group(a) - group(b) || a.rank - b.rank || a.seq - b.seq;
	const sorted = [...lines].sort(before);
	const byUuid = new Map<string, Line>();
	for (const line of sorted) {
		const uuid = line.record.uuid;
		if (typeof uuid === "string" && !byUuid.has(uuid)) byUuid.set(uuid, line);
	}
	const waiting = new Map<Line, Line[]>();
	const heap = new LineHeap(before);
	for (const line of lines) {
		const parent = typeof line.record.parentUuid === "string" ? byUuid.get(line.record.parentUuid) : undefined;
		if (parent === undefined || parent === line) heap.push(line);
		else {
			const list = waiting.get(parent);
			if (list) list.push(line);
			else waiting.set(parent, [line]);
		}
	}
	const out: Json[] = [];
	const done = new Set<Line>();
	let fallback = 0;
	while (out.length < lines.length) {
		let next = heap.pop();
		if (next === undefined) {
			// Only lines in a cycle are left: the first of them in rank order breaks it.
			while (done.has(sorted[fallback] as Line)) fallback++;
			next = sorted[fallback] as Line;
		}
		if (done.has(next)) continue;
		done.add(next);
		out.push(next.record);
		for (const child of waiting.get(next) ?? []) if (!done.has(child)) heap.push(child);
	}
	return out;
}

/** A binary min-heap of lines. */
class LineHeap {
	private readonly items: Line[] = [];
	constructor(private readonly before: (a: Line, b: Line) => number) {}

	push(line: Line): void {
		const items = this.items;
		items.push(line);
		for (let i = items.length - 1; i > 0; ) {
			const up = (i - 1) >> 1;
			if (this.before(items[i] as Line, items[up] as Line) >= 0) break;
			[items[i], items[up]] = [items[up] as Line, items[i] as Line];
			i = up;
		}
	}

	pop(): Line | undefined {
		const items = this.items;
		const top = items[0];
		const last = items.pop();
		if (items.length === 0 || last === undefined) return top;
		items[0] = last;
		for (let i = 0; ; ) {
			const l = 2 * i + 1;
			const r = l + 1;
			let min = i;
			if (l < items.length && this.before(items[l] as Line, items[min] as Line) < 0) min = l;
			if (r < items.length && this.before(items[r] as Line, items[min] as Line) < 0) min = r;
			if (min === i) break;
			[items[i], items[min]] = [items[min] as Line, items[i] as Line];
			i = min;
		}
		return top;
	}
}
