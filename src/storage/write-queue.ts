/**
 * Writes one after another: the queue of a session (src/session-log.ts) and of each framework
 * adapter (one per session location or chat id, {@link KeyedWriteQueue}).
 *
 * A write runs once every write called before it has settled, whether that one succeeded or
 * not: its failure goes to its own caller and does not stop the writes behind it (they were
 * called meanwhile and may not depend on it; each caller decides what a failure means). With
 * no write in progress a write starts at once, within the call: chaining it on a settled
 * promise would cost a turn of the event loop and two more promises per write, and a write
 * that completes at once (an append to a store that needs no wait, see
 * `SessionStore.append`) then leaves nothing pending.
 */

import { type Awaitable, isPending } from "./store.js";

/** Serialises writes: each runs after every write called before it has settled. */
export class WriteQueue {
	/** Settles (never rejects) once the last write called so far has settled. */
	private tail: Promise<unknown> = Promise.resolve();
	/** Writes called and not settled yet (waiting or running). */
	private pending = 0;
	/** True while a write started at once runs its synchronous part (see {@link run}). */
	private starting = false;
	/**
	 * Opens when the write started at once has settled: the writes called during its
	 * synchronous part wait for it (their caller is that write, which is not tracked yet).
	 */
	private gate: { promise: Promise<void>; open: () => void } | undefined;
	private readonly onIdle: (() => void) | undefined;

	/** @param onIdle called each time the last pending write settles (a keyed queue then drops this one) */
	constructor(onIdle?: () => void) {
		this.onIdle = onIdle;
	}

	/** True when no write is waiting or running. */
	get idle(): boolean {
		return this.pending === 0 && !this.starting;
	}

	/**
	 * Runs `op` after every write called before it (whether that one succeeded or not), at once
	 * when there is none. Its result or failure is the returned promise's, also when `op`
	 * throws instead of returning a rejected promise.
	 *
	 * A write that awaits another write it called on the same queue waits forever: that one
	 * runs after it.
	 */
	run<T>(op: () => Awaitable<T>): Promise<T> {
		if (this.pending > 0) return this.track(this.tail.then(op, op));
		if (this.starting) return this.track(this.waitForStarting().then(op, op));
		this.starting = true;
		let result: Awaitable<T>;
		try {
			result = op();
		} catch (error) {
			this.started(undefined);
			return Promise.reject(error);
		}
		if (!isPending(result)) {
			this.started(undefined);
			return Promise.resolve(result);
		}
		const promise = Promise.resolve(result);
		this.started(promise);
		return promise;
	}

	/** Resolves when every write called so far has settled. */
	settled(): Promise<void> {
		if (this.pending === 0 && this.starting) return this.waitForStarting();
		return this.tail.then(noop);
	}

	/**
	 * The write started at once has returned (`running`: the promise it returned, if any). The
	 * writes called meanwhile wait behind the gate, which opens when this write settles; they
	 * hold the tail already (they settle after it). Without them, this write becomes the tail.
	 */
	private started(running: Promise<unknown> | undefined): void {
		this.starting = false;
		const gate = this.gate;
		this.gate = undefined;
		if (gate === undefined) {
			if (running) this.track(running);
			return;
		}
		if (!running) {
			gate.open();
			return;
		}
		// None pending: only `settled()` waited at the gate, no write queued behind it.
		const waiting = this.pending > 0;
		this.pending++;
		const settle = () => {
			this.writeDone();
			gate.open();
		};
		const done = running.then(settle, settle);
		if (!waiting) this.tail = done;
	}

	/** The gate of the write starting now, made when the first write waits for it. */
	private waitForStarting(): Promise<void> {
		if (this.gate === undefined) {
			let open = noop;
			const promise = new Promise<void>((resolve) => {
				open = resolve;
			});
			this.gate = { promise, open };
		}
		return this.gate.promise;
	}

	/** Counts a write in progress until it settles: later writes queue behind it. */
	private track<T>(running: Promise<T>): Promise<T> {
		this.pending++;
		this.tail = running.then(this.writeDone, this.writeDone);
		return running;
	}

	/** Counts a write as settled (one function for every write: no closure per write). */
	private readonly writeDone = (): void => {
		this.pending--;
		if (this.pending === 0) this.onIdle?.();
	};
}

/**
 * One {@link WriteQueue} per key (a session location, a chat id): writes of one key run one
 * after another, writes of different keys independently. A key's queue is dropped once it is
 * idle, so keys seen once do not accumulate.
 */
export class KeyedWriteQueue<K = string> {
	private readonly queues = new Map<K, WriteQueue>();

	/** Runs `op` after every write called before it on the same key (see {@link WriteQueue.run}). */
	run<T>(key: K, op: () => Awaitable<T>): Promise<T> {
		const queue = this.queues.get(key);
		if (queue !== undefined) return queue.run(op);
		const fresh: WriteQueue = new WriteQueue(() => {
			if (this.queues.get(key) === fresh) this.queues.delete(key);
		});
		// In the map before it runs: a write called during `op`'s synchronous part queues behind it.
		this.queues.set(key, fresh);
		const result = fresh.run(op);
		if (fresh.idle) this.queues.delete(key);
		return result;
	}

	/** The keys with a write waiting or running. */
	get size(): number {
		return this.queues.size;
	}

	/** Resolves when every write called so far, on every key, has settled. */
	async settled(): Promise<void> {
		await Promise.all([...this.queues.values()].map((queue) => queue.settled()));
	}
}

function noop(): void {}
