/**
 * A session file as pi itself reads it: pi's own SessionManager (the devDependency
 * @mariozechner/pi-coding-agent) opens a copy, since pi may rewrite what it opens (a migration)
 * and a test must not change the file it checks. The copies go to one temporary directory,
 * removed when the test process exits.
 */

import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { asJson } from "./fixtures.js";

let scratch: string | undefined;

/** pi's SessionManager over a copy of `file`. */
export function openWithPi(file: string): SessionManager {
	if (scratch === undefined) {
		const dir = mkdtempSync(join(tmpdir(), "st-pi-"));
		process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
		scratch = dir;
	}
	const copy = join(scratch, `pi-${Math.random().toString(16).slice(2)}.jsonl`);
	copyFileSync(file, copy);
	return SessionManager.open(copy, scratch);
}

/** pi's context of `file` (its `buildSessionContext`), as plain JSON. */
export function piContext(file: string): unknown {
	return asJson(openWithPi(file).buildSessionContext());
}
