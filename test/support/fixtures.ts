/** Access to the golden pi fixtures in test/fixtures/pi-v3 and helpers to compare with them. */

import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type TreeRow, treeRowsOf } from "../../src/core/tree.js";
import type { Session } from "../../src/index.js";
import type { Expected as SuiteExpected } from "../../src/testing/helpers.js";

export type { TreeRow };

const here = dirname(fileURLToPath(import.meta.url));
/** The repository root (tests run from dist-test/test/...). */
export const repoRoot = resolve(here, "..", "..", "..");
/** The pi-v3 fixture folder (copied into the repository with its README and provenance). */
export const fixtureDir = resolve(repoRoot, "test", "fixtures", "pi-v3");

/** What pi reported for a fixture: the conformance suite's fields, and the big-line case's. */
export interface Expected extends SuiteExpected {
	bigEntry?: { id: string; textLength: number; utf8Bytes: number; sha256: string };
}

/** Names of every fixture case. */
export function fixtureNames(): string[] {
	return readdirSync(fixtureDir)
		.filter((name) => name.endsWith(".jsonl"))
		.map((name) => name.slice(0, -".jsonl".length))
		.sort();
}

export function fixtureFile(name: string): string {
	return join(fixtureDir, `${name}.jsonl`);
}

export function expected(name: string): Expected {
	return JSON.parse(readFileSync(join(fixtureDir, `${name}.expected.json`), "utf8")) as Expected;
}

/** A value as JSON sees it (undefined fields dropped), as pi's expected files were written. */
export function asJson<T>(value: T): unknown {
	return JSON.parse(JSON.stringify(value));
}

/** The session's tree as the fixture's flat rows. */
export function treeRows(session: Session): TreeRow[] {
	return treeRowsOf(session.flattenTree());
}

/** `[{role, text}]` of context messages, as the fixture README defines `contextRoles`. */
export function contextRoles(messages: readonly Record<string, unknown>[]): Array<{ role: string; text: string }> {
	return messages.map((message) => {
		const role = String(message.role);
		if (role === "compactionSummary" || role === "branchSummary") return { role, text: String(message.summary) };
		const content = message.content;
		if (typeof content === "string") return { role, text: content };
		const parts = (content as Array<Record<string, unknown>>).map((block) => {
			if (block.type === "text") return String(block.text);
			if (block.type === "thinking") return `[thinking] ${String(block.thinking)}`;
			if (block.type === "toolCall") return `[toolCall ${String(block.name)} ${JSON.stringify(block.arguments)}]`;
			return `[image ${String(block.mimeType)}]`;
		});
		return { role, text: parts.join("\n") };
	});
}
