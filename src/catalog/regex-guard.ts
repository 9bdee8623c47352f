/**
 * A user's regular expression, run so that no pattern can hang a search (`search -E` today,
 * `serve` and `mcp` take queries from pages and models). JavaScript's engine backtracks: a
 * pattern such as `(a+)+$` takes exponential time on a text of a's. Two ways out, chosen per
 * pattern:
 *
 * - V8's own linear-time engine (the RegExp `l` flag, an automaton without backtracking,
 *   enabled at first use with `--enable-experimental-regexp-engine`) for every pattern it
 *   accepts: no backreferences, no lookaround, no case folding, small counted repetitions.
 * - Any other pattern runs in a worker thread, synchronously (the caller blocks on
 *   `Atomics.wait`), with a time limit per text: a match that takes longer is stopped (the
 *   worker is terminated) and the pattern is refused ({@link InvalidPattern}), for this text
 *   and every later one.
 */

import { setFlagsFromString } from "node:v8";
import { MessageChannel, type MessagePort, Worker } from "node:worker_threads";
import { SessionTreeError } from "../core/errors.js";

/** The query is not a valid regular expression, or one refused for taking too long. */
export class InvalidPattern extends Error {
	constructor(message: string) {
		super(message);
		this.name = "InvalidPattern";
	}
}

/** The first match of a pattern in a text. */
export interface GuardedRegex {
	/** The first match in `text`, or undefined. @throws InvalidPattern past the time limit (and on every call after) */
	exec(text: string): { start: number; end: number } | undefined;
	/** Which engine runs it: the linear one in this thread, or the backtracking one in a worker under a limit. */
	readonly engine: "linear" | "limited";
}

/** Default time one text may take in the worker before the pattern is refused. */
export const REGEX_TIME_LIMIT_MS = 500;
/** How long the worker may take to start. */
const START_LIMIT_MS = 10_000;

let linearAvailable: boolean | undefined;

/** `pattern` for the linear engine (a literal with the `l` flag would not even parse without the V8 flag). */
function compileLinear(pattern: string): RegExp {
	const flags = "gl";
	return new RegExp(pattern, flags);
}

/** True once V8's linear-time engine is enabled (it is off unless a flag says so). */
function linearEngine(): boolean {
	if (linearAvailable === undefined) {
		try {
			compileLinear("a");
			linearAvailable = true;
		} catch {
			try {
				// Only makes the `l` flag valid; no other RegExp changes.
				setFlagsFromString("--enable-experimental-regexp-engine");
				compileLinear("a");
				linearAvailable = true;
			} catch {
				linearAvailable = false;
			}
		}
	}
	return linearAvailable;
}

/**
 * The pattern as the linear engine runs it, or undefined when that engine cannot. Only
 * ASCII patterns without `\p`, `\P` or `\u{`, where the `u` flag (which the linear engine does
 * not take) changes nothing but whether `.` spans a surrogate pair.
 */
function linear(pattern: string, flags: string): RegExp | undefined {
	if (flags.includes("i") || !/^[\x20-\x7e]*$/.test(pattern) || /\\[pP]|\\u\{/.test(pattern)) return undefined;
	if (!linearEngine()) return undefined;
	try {
		return compileLinear(pattern);
	} catch {
		return undefined;
	}
}

/**
 * The worker's code: compile once, then answer one text at a time: the match goes into the
 * shared state (`[done, start, end]`, start -1 for none) before `done` is set. (A reply
 * posted on the port could still be on its way when the caller woke up and looked: the caller
 * then took it for "no match", and the next text for this one's answer.)
 */
const WORKER_SOURCE = `
const { workerData } = require("node:worker_threads");
const { pattern, flags, port, signal } = workerData;
const state = new Int32Array(signal);
const regex = new RegExp(pattern, flags);
port.on("message", (text) => {
	regex.lastIndex = 0;
	const match = regex.exec(text);
	state[1] = match ? match.index : -1;
	state[2] = match ? match.index + match[0].length : -1;
	Atomics.store(state, 0, 1);
	Atomics.notify(state, 0);
});
Atomics.store(state, 0, 1);
Atomics.notify(state, 0);
`;

class LimitedRegex implements GuardedRegex {
	readonly engine = "limited" as const;
	private worker: Worker | undefined;
	private port: MessagePort | undefined;
	/** `[done, start, end]`, shared with the worker (see WORKER_SOURCE). */
	private readonly state = new Int32Array(new SharedArrayBuffer(12));
	private started = false;

	constructor(
		private readonly pattern: string,
		private readonly flags: string,
		private readonly limitMs: number,
	) {}

	/** Why the pattern was refused, once it was: every later text is refused at once, not after another wait. */
	private refused: string | undefined;

	exec(text: string): { start: number; end: number } | undefined {
		if (this.refused !== undefined) throw new InvalidPattern(this.refused);
		const port = this.ready();
		Atomics.store(this.state, 0, 0);
		port.postMessage(text);
		if (Atomics.wait(this.state, 0, 0, this.limitMs) === "timed-out") {
			this.stop();
			this.refused = `the regular expression /${this.pattern}/ took more than ${this.limitMs} ms on one text of ${text.length} characters (catastrophic backtracking, e.g. nested quantifiers such as (a+)+): refused`;
			throw new InvalidPattern(this.refused);
		}
		const start = this.state[1] as number;
		return start < 0 ? undefined : { start, end: this.state[2] as number };
	}

	/** The worker's port, the worker started (and waited for) on first use. */
	private ready(): MessagePort {
		if (this.port && this.started) return this.port;
		const { port1, port2 } = new MessageChannel();
		const worker = new Worker(WORKER_SOURCE, {
			eval: true,
			workerData: { pattern: this.pattern, flags: this.flags, port: port2, signal: this.state.buffer },
			transferList: [port2],
		});
		// A search that ends must not be kept alive by its worker.
		worker.unref();
		// The pattern compiled here first; an error in the worker is its start failing, reported below.
		worker.on("error", () => {});
		port1.unref();
		this.worker = worker;
		this.port = port1;
		if (Atomics.wait(this.state, 0, 0, START_LIMIT_MS) === "timed-out") {
			this.stop();
			throw new SessionTreeError("IO_ERROR", "the worker that runs regular expressions did not start");
		}
		this.started = true;
		return port1;
	}

	private stop(): void {
		void this.worker?.terminate();
		this.port?.close();
		this.worker = undefined;
		this.port = undefined;
		this.started = false;
	}
}

/**
 * Compiles `pattern` (flags from `i`, `u`; `g` is implied) for {@link GuardedRegex.exec}.
 * @throws SyntaxError when JavaScript does not accept the pattern with these flags
 */
export function guardRegex(pattern: string, flags: string, limitMs = REGEX_TIME_LIMIT_MS): GuardedRegex {
	// The syntax error now, in this thread (and its value used, so that no bundler drops it as pure).
	const checked = new RegExp(pattern, flags);
	const fast = linear(pattern, flags);
	if (fast) {
		return {
			engine: "linear",
			exec(text) {
				fast.lastIndex = 0;
				const match = fast.exec(text);
				return match ? { start: match.index, end: match.index + match[0].length } : undefined;
			},
		};
	}
	return new LimitedRegex(pattern, `${checked.flags}g`, limitMs);
}
