/**
 * The sessions of several agents as one collection, for `ls --agents`: pi's sessions
 * (`<agent dir>/sessions/`), Claude Code's transcripts (`$CLAUDE_CONFIG_DIR` or `~/.claude`,
 * `projects/<project>/<session>.jsonl`) and Codex's rollouts (`$CODEX_HOME` or `~/.codex`,
 * `sessions/YYYY/MM/DD/rollout-….jsonl`) and Gemini CLI's chat recordings (`$GEMINI_CLI_HOME` or
 * the home directory, `.gemini/tmp/<project>/chats/session-*.jsonl`, the older `session-*.json`,
 * and subagents' `chats/<parent session>/<id>.jsonl`). The others' files are read as an import reads them,
 * in memory (src/import/foreign-store.ts); nothing is written. Also: a directory collection
 * whose files may be other agents' transcripts (`ls DIR`, `search TEXT DIR`).
 */

import { homedir } from "node:os";
import { join } from "node:path";
import { SessionTreeError } from "../core/errors.js";
import type { SessionHeader } from "../core/types.js";
import { ForeignFileStore } from "../import/foreign-store.js";
import { sessionFilesUnder } from "../storage/directory-collection.js";
import { FileSessionStore } from "../storage/file-store.js";
import { defaultAgentDir, sessionsRoot } from "../storage/paths.js";
import type {
	CollectionCapabilities,
	SessionCollection,
	SessionListing,
	SessionStore,
	TextQuery,
} from "../storage/store.js";

/** The agents `ls --agents` lists. */
export type Agent = "pi" | "claude-code" | "codex" | "gemini";

/** Where an agent keeps its sessions, and how deep below that its files are. */
export interface AgentPlace {
	agent: Agent;
	root: string;
	/** Files sit at most this many levels below the root (1: in it; 2: in its subdirectories). */
	depth: number;
	/**
	 * Which files are sessions, by their path below the root (`/`-separated); default: every
	 * `*.jsonl`. An agent's directory may hold other files of the same kind (Gemini CLI's
	 * `logs.json`, checkpoints).
	 */
	accept?: (relative: string) => boolean;
}

/**
 * Gemini CLI's recordings below `~/.gemini/tmp`: `<project>/chats/session-*.jsonl` (or the older
 * `.json`), and a subagent's `<project>/chats/<parent session>/<id>.jsonl`.
 */
function geminiRecording(relative: string): boolean {
	return /^[^/]+\/chats\/session-[^/]*\.jsonl?$/.test(relative) || /^[^/]+\/chats\/[^/]+\/[^/]+\.jsonl$/.test(relative);
}

/**
 * The default places of pi, Claude Code, Codex and Gemini CLI (HOME, PI_CODING_AGENT_DIR,
 * CLAUDE_CONFIG_DIR, CODEX_HOME and GEMINI_CLI_HOME honoured; Gemini CLI's `GEMINI_CLI_HOME`
 * stands for the home directory, under which it keeps `.gemini/`).
 */
export function agentPlaces(env: NodeJS.ProcessEnv = process.env): AgentPlace[] {
	const home = env.HOME || homedir();
	const piDir = env.PI_CODING_AGENT_DIR ? defaultAgentDir(env) : join(home, ".pi", "agent");
	return [
		{ agent: "pi", root: sessionsRoot(piDir), depth: 2 },
		{ agent: "claude-code", root: join(env.CLAUDE_CONFIG_DIR || join(home, ".claude"), "projects"), depth: 2 },
		{ agent: "codex", root: join(env.CODEX_HOME || join(home, ".codex"), "sessions"), depth: 4 },
		{ agent: "gemini", root: join(env.GEMINI_CLI_HOME || home, ".gemini", "tmp"), depth: 4, accept: geminiRecording },
	];
}

const CAPABILITIES: CollectionCapabilities = Object.freeze({ listing: true, search: false, remove: false });

function optional(accept: AgentPlace["accept"]): { accept?: (relative: string) => boolean } {
	return accept ? { accept } : {};
}

function readOnly(location: string): SessionTreeError {
	return new SessionTreeError("NOT_WRITABLE", "this listing of several agents' sessions is read-only", {
		file: location,
	});
}

/** pi's, Claude Code's, Codex's and Gemini CLI's sessions together (see the module comment). */
export class AgentsCollection implements SessionCollection {
	readonly capabilities = CAPABILITIES;
	readonly location: string;
	private readonly agents = new Map<string, Agent>();

	constructor(readonly places: readonly AgentPlace[] = agentPlaces()) {
		this.location = places.map((place) => place.root).join(", ");
	}

	async *list(): AsyncIterable<SessionListing> {
		for (const place of this.places) {
			const files = sessionFilesUnder(place.root, { depth: place.depth, skipHidden: true, ...optional(place.accept) });
			for (const { path, stats } of files) {
				this.agents.set(path, place.agent);
				yield { location: path, modified: stats.mtime, bytes: stats.size };
			}
		}
	}

	/** The agent a listed session belongs to. */
	agentOf(location: string): Agent | undefined {
		return this.agents.get(location);
	}

	open(location: string): SessionStore {
		const agent = this.agents.get(location);
		if (agent === "pi") return new FileSessionStore(location);
		return new ForeignFileStore(location, agent);
	}

	sessionFor(header: SessionHeader): SessionStore {
		throw readOnly(header.id);
	}
}

/**
 * A collection the user named, whose files may be other agents' transcripts (`ls DIR`,
 * `search TEXT DIR`): each session held in a file opens as a {@link ForeignFileStore}, which
 * reads a pi session as the file store does; any other (a memory session, a database's) opens
 * as the collection opens it. Read-only; listing and searching are the collection's own.
 */
export class TranscriptDirectory implements SessionCollection {
	constructor(private readonly inner: SessionCollection) {}

	get location(): string {
		return this.inner.location;
	}

	get capabilities(): CollectionCapabilities {
		return { ...this.inner.capabilities, remove: false };
	}

	list(): AsyncIterable<SessionListing> {
		return this.inner.list();
	}

	open(location: string): SessionStore {
		// Asked of the store contract: whatever the collection keeps in a file may be a transcript.
		const store = this.inner.open(location);
		return store.file === undefined ? store : new ForeignFileStore(store.file);
	}

	sessionFor(header: SessionHeader): SessionStore {
		throw readOnly(header.id);
	}

	searchText(query: TextQuery): Promise<string[] | undefined> {
		return this.inner.searchText ? this.inner.searchText(query) : Promise.resolve(undefined);
	}

	async close(): Promise<void> {
		await this.inner.close?.();
	}
}
