/**
 * A temporary HOME holding sessions of every agent in their default places, for the catalog
 * index tests and the CLI tests of `search --agents` / `ls --agents`:
 *
 *   .pi/agent/sessions/…          the generated pi layout of layout.ts (a branched session, a
 *                                 damaged one, a file that is not a session, …)
 *   .claude/projects/-home-me-proj/  two real Claude Code transcripts (test/fixtures/real/)
 *   .codex/sessions/2025/11/18/   a real Codex rollout, four levels below the root
 *   .gemini/tmp/proj/chats/       a real Gemini CLI recording
 *
 * File times are set apart so that "newest first" is one order.
 */

import { copyFileSync, mkdirSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildLayout, type Layout } from "./layout.js";

const REAL = join(fileURLToPath(import.meta.url), "..", "..", "..", "..", "test", "fixtures", "real");

/** What the HOME holds. */
export interface AgentsHome {
	home: string;
	env: NodeJS.ProcessEnv;
	pi: Layout;
	claude: string[];
	codex: string;
	gemini: string;
}

function place(from: string, to: string, iso: string): string {
	mkdirSync(join(to, ".."), { recursive: true });
	copyFileSync(from, to);
	utimesSync(to, new Date(iso), new Date(iso));
	return to;
}

/** Builds the HOME under `home` (an empty directory). */
export async function buildAgentsHome(home: string): Promise<AgentsHome> {
	const pi = await buildLayout(join(home, ".pi"));
	const projects = join(home, ".claude", "projects", "-home-me-proj");
	const claude = [
		place(
			join(REAL, "claude-code", "ccl-2.1.17-256ba646.jsonl"),
			join(projects, "256ba646.jsonl"),
			"2025-04-01T10:00:00Z",
		),
		place(
			join(REAL, "claude-code", "ccl-1.0.55-71c9afe9-fork.jsonl"),
			join(projects, "71c9afe9.jsonl"),
			"2025-04-02T10:00:00Z",
		),
	];
	const codex = place(
		join(REAL, "codex", "acidicsoil-0.58.0-rollout-019a93b9.jsonl"),
		join(home, ".codex", "sessions", "2025", "11", "18", "rollout-2025-11-18T10-00-00-019a93b9.jsonl"),
		"2025-04-03T10:00:00Z",
	);
	const gemini = place(
		join(REAL, "gemini", "mgemini-session-2025-12-28T04-02-3d0463e2.json"),
		join(home, ".gemini", "tmp", "proj", "chats", "session-2025-12-28T04-03-3d0463e2.json"),
		"2025-04-04T10:00:00Z",
	);
	// Only HOME: every agent's place is its default below it.
	const env: NodeJS.ProcessEnv = { HOME: home, XDG_CACHE_HOME: join(home, ".cache") };
	return { home, env, pi, claude, codex, gemini };
}
