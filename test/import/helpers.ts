/** Helpers of the import tests: the samples, importing them, pi's view of a session, short views of contexts. */

import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { importText, openImported, sessionRecords } from "../../src/import/index.js";
import type { ImportedSession } from "../../src/import/types.js";
import type { Session } from "../../src/session.js";

/** The repository root (the tests run from dist-test/test/import/ or a private build of the same layout). */
export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
/** The import samples. */
export const SAMPLES = join(REPO, "test", "fixtures", "import");

/** A sample's path, e.g. `sample("chatgpt", "librechat-chatgpt-tree.json")`. */
export function sample(format: string, name: string): string {
	return join(SAMPLES, format, name);
}

/** A sample's text. */
export function sampleText(format: string, name: string): string {
	return readFileSync(sample(format, name), "utf8");
}

/** The sessions of a sample, imported in memory. */
export async function importSample(format: string, name: string, lenient = false): Promise<ImportedSession[]> {
	return importText(sampleText(format, name), sample(format, name), { lenient });
}

/** A JSON value as JSON sees it (undefined fields dropped). */
export function asJson<T>(value: T): unknown {
	return JSON.parse(JSON.stringify(value));
}

const temps: string[] = [];

/** A fresh temporary directory, removed by {@link removeTemps}. */
export function tempDir(): string {
	const dir = mkdtempSync(join(tmpdir(), "session-tree-import-test-"));
	temps.push(dir);
	return dir;
}

export function removeTemps(): void {
	for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** The JSONL text an imported session is written as. */
export function jsonlOf(imported: ImportedSession): string {
	return sessionRecords(imported)
		.map((record) => `${JSON.stringify(record)}\n`)
		.join("");
}

/** pi's SessionManager's context of an imported session, written to a file and opened by pi (from a copy: pi may rewrite). */
export function piContext(imported: ImportedSession): unknown {
	const dir = tempDir();
	const file = join(dir, "session.jsonl");
	writeFileSync(file, jsonlOf(imported));
	const copy = join(dir, "pi.jsonl");
	copyFileSync(file, copy);
	return asJson(SessionManager.open(copy, dir).buildSessionContext());
}

/** Our context of an imported session. */
export async function ourContext(imported: ImportedSession): Promise<unknown> {
	const session = await openImported(imported, "memory-test");
	return asJson(session.buildSessionContext());
}

/** The first `count` words of a text, spaces collapsed. */
export function firstWords(text: string, count = 4): string {
	return text.trim().split(/\s+/).slice(0, count).join(" ");
}

type Json = Record<string, unknown>;

/**
 * A message of a context in one short line: `role: first words` (custom messages with their
 * customType, tool results with the tool, tool calls as `→name`, thinking as `[thinking] …`).
 */
export function brief(message: unknown): string {
	const m = message as Json;
	const role = String(m.role);
	const content = m.content;
	let label = role;
	if (role === "custom") label = `custom(${String(m.customType)})`;
	if (role === "toolResult") label = `toolResult(${String(m.toolName)})`;
	if (typeof content === "string") return `${label}: ${firstWords(content)}`;
	const blocks = (Array.isArray(content) ? content : []) as Json[];
	const text = blocks
		.filter((block) => block.type === "text")
		.map((block) => String(block.text))
		.join(" ");
	if (text.trim() !== "") return `${label}: ${firstWords(text)}`;
	const thinking = blocks.filter((block) => block.type === "thinking").map((block) => String(block.thinking));
	if (thinking.length > 0) return `${label}: [thinking] ${firstWords(thinking.join(" "))}`;
	const calls = blocks.filter((block) => block.type === "toolCall").map((block) => `→${String(block.name)}`);
	return `${label}: ${calls.join(" ")}`;
}

/** The context of a session in short lines (see {@link brief}). */
export function briefContext(session: Session): string[] {
	return session.buildSessionContext().messages.map(brief);
}

/** The entry an imported session made of a source node (its `source.key` or `source.id`). */
export function entryOfNode(imported: ImportedSession, node: string): string | undefined {
	for (const record of imported.records) {
		const source = (record as unknown as Json).source as Json | undefined;
		if (source && (source.key === node || source.id === node) && source.part === undefined) return record.id;
	}
	return undefined;
}

/** Counts of the records an import made, by type (messages by role). */
export function kinds(imported: ImportedSession): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const record of imported.records) {
		const kind =
			record.type === "message"
				? `message:${String((record.message as Json).role)}`
				: record.type === "custom" || record.type === "custom_message"
					? `${record.type}:${String((record as unknown as Json).customType)}`
					: record.type;
		counts[kind] = (counts[kind] ?? 0) + 1;
	}
	return counts;
}
