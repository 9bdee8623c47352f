/**
 * The write queue of a session and of the framework adapters (src/storage/write-queue.ts):
 * order, failures, the start within the call when idle, writes called from inside a write,
 * and the keyed queue's independence and cleanup.
 */

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { KeyedWriteQueue, WriteQueue } from "../../src/storage/write-queue.js";

/** A promise and the functions that settle it. */
function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: Error) => void } {
	let resolve: (value: T) => void = () => {};
	let reject: (error: Error) => void = () => {};
	const promise = new Promise<T>((yes, no) => {
		resolve = yes;
		reject = no;
	});
	return { promise, resolve, reject };
}

/** Lets every pending promise reaction run (a macrotask turn). */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("WriteQueue", () => {
	test("writes run one after another in call order, each once the one before has settled", async () => {
		const queue = new WriteQueue();
		const log: string[] = [];
		const write = (name: string, ms: number) =>
			queue.run(async () => {
				log.push(`start ${name}`);
				await new Promise((resolve) => setTimeout(resolve, ms));
				log.push(`end ${name}`);
				return name;
			});
		const results = await Promise.all([write("a", 30), write("b", 1), write("c", 10), write("d", 0)]);
		assert.deepEqual(results, ["a", "b", "c", "d"]);
		assert.deepEqual(log, ["start a", "end a", "start b", "end b", "start c", "end c", "start d", "end d"]);
	});

	test("a failure goes to its caller only: the writes called after it still run, in order", async () => {
		const queue = new WriteQueue();
		const log: string[] = [];
		const first = queue.run(async () => {
			await turn();
			log.push("first");
			throw new Error("disk full");
		});
		const second = queue.run(async () => {
			log.push("second");
			return 2;
		});
		await assert.rejects(first, /disk full/);
		assert.equal(await second, 2);
		assert.deepEqual(log, ["first", "second"]);
		assert.equal(await queue.run(() => 3), 3, "the queue goes on after a failure");
	});

	test("an op that throws instead of returning a rejected promise: a rejection, not a throw, and the queue goes on", async () => {
		const queue = new WriteQueue();
		let returned: Promise<unknown> | undefined;
		assert.doesNotThrow(() => {
			returned = queue.run(() => {
				throw new Error("bad input");
			});
		});
		await assert.rejects(returned ?? Promise.resolve(), /bad input/);
		const blocker = deferred();
		const waiting = queue.run(() => blocker.promise);
		const thrown = queue.run(() => {
			throw new Error("queued and bad");
		});
		const after = queue.run(() => "after");
		blocker.resolve();
		await waiting;
		await assert.rejects(thrown, /queued and bad/);
		assert.equal(await after, "after");
	});

	test("idle, a write starts within the call; busy, it waits for the one before", async () => {
		const queue = new WriteQueue();
		const log: string[] = [];
		const blocker = deferred();
		const first = queue.run(() => {
			log.push("first started");
			return blocker.promise;
		});
		assert.deepEqual(log, ["first started"], "started before run() returned");
		assert.equal(queue.idle, false);
		const second = queue.run(() => {
			log.push("second started");
		});
		await turn();
		assert.deepEqual(log, ["first started"], "the second waits while the first is pending");
		blocker.resolve();
		await Promise.all([first, second]);
		assert.deepEqual(log, ["first started", "second started"]);
		assert.equal(queue.idle, true);
	});

	test("a write that completes at once leaves nothing pending, and its result is the promise's", async () => {
		const queue = new WriteQueue();
		const result = queue.run(() => 42);
		assert.equal(queue.idle, true, "nothing pending after a write that returned a value");
		assert.equal(await result, 42);
		let ran = false;
		void queue.run(() => {
			ran = true;
		});
		assert.equal(ran, true, "the next write starts at once too");
	});

	test("settled() waits for every write called so far, failed ones included, and never rejects", async () => {
		const queue = new WriteQueue();
		await queue.settled();
		const a = deferred();
		const b = deferred();
		const first = queue.run(() => a.promise);
		const second = queue.run(() => b.promise);
		let settled = false;
		const waiting = queue.settled().then(() => {
			settled = true;
		});
		a.reject(new Error("lost"));
		await assert.rejects(first, /lost/);
		await turn();
		assert.equal(settled, false, "the second write is still running");
		b.resolve();
		await second;
		await waiting;
		assert.equal(settled, true);
	});

	test("a write called during another's synchronous part runs after it, not inside it", async () => {
		const queue = new WriteQueue();
		const log: string[] = [];
		const outer = deferred();
		let inner: Promise<void> | undefined;
		let later: Promise<void> | undefined;
		const first = queue.run(() => {
			log.push("outer start");
			inner = queue.run(() => {
				log.push("inner");
			});
			later = queue.run(() => {
				log.push("later");
			});
			return outer.promise.then(() => {
				log.push("outer end");
			});
		});
		assert.deepEqual(log, ["outer start"]);
		await turn();
		assert.deepEqual(log, ["outer start"], "the inner writes wait for the outer one");
		const afterAll = queue.run(() => {
			log.push("called after");
		});
		outer.resolve();
		await Promise.all([first, inner, later, afterAll]);
		assert.deepEqual(log, ["outer start", "outer end", "inner", "later", "called after"]);
		assert.equal(queue.idle, true);
	});

	test("a write called during the synchronous part of one that completes at once runs after it", async () => {
		const queue = new WriteQueue();
		const log: string[] = [];
		let inner: Promise<void> | undefined;
		const value = queue.run(() => {
			inner = queue.run(() => {
				log.push("inner");
			});
			log.push("outer");
			return "outer";
		});
		assert.deepEqual(log, ["outer"]);
		assert.equal(await value, "outer");
		await inner;
		assert.deepEqual(log, ["outer", "inner"]);
		await queue.settled();
		assert.equal(queue.idle, true);
	});

	test("a write called from a running write's asynchronous part runs after the writes already queued", async () => {
		const queue = new WriteQueue();
		const log: string[] = [];
		const gate = deferred();
		let nested: Promise<void> | undefined;
		const first = queue.run(async () => {
			await gate.promise;
			nested = queue.run(() => {
				log.push("nested");
			});
			log.push("first");
		});
		const second = queue.run(() => {
			log.push("second");
		});
		gate.resolve();
		await first;
		await second;
		await nested;
		assert.deepEqual(log, ["first", "second", "nested"]);
	});

	test("settled() called during a write's synchronous part waits for that write", async () => {
		const queue = new WriteQueue();
		const done = deferred();
		let settled: Promise<void> | undefined;
		let finished = false;
		const write = queue.run(() => {
			settled = queue.settled();
			return done.promise.then(() => {
				finished = true;
			});
		});
		let laterSettled = false;
		const later = queue.settled().then(() => {
			laterSettled = true;
		});
		await turn();
		assert.equal(laterSettled, false, "settled() called after the call waits for that write too");
		done.resolve();
		await settled;
		assert.equal(finished, true);
		await later;
		await write;
	});
});

describe("KeyedWriteQueue", () => {
	test("writes of one key run in order; writes of other keys do not wait for them", async () => {
		const queues = new KeyedWriteQueue();
		const log: string[] = [];
		const blocker = deferred();
		const a1 = queues.run("a", async () => {
			await blocker.promise;
			log.push("a1");
		});
		const a2 = queues.run("a", () => {
			log.push("a2");
		});
		const b1 = queues.run("b", async () => {
			log.push("b1");
		});
		await b1;
		assert.deepEqual(log, ["b1"], "b ran while a was blocked");
		blocker.resolve();
		await Promise.all([a1, a2]);
		assert.deepEqual(log, ["b1", "a1", "a2"]);
	});

	test("a key's queue is dropped once idle: after async writes, failures and writes that complete at once", async () => {
		const queues = new KeyedWriteQueue();
		assert.equal(queues.run("now", () => 1) instanceof Promise, true);
		assert.equal(queues.size, 0, "a write that completed at once leaves no queue");
		await assert.rejects(
			queues.run("throws", () => {
				throw new Error("no");
			}),
			/no/,
		);
		assert.equal(queues.size, 0);
		const blocker = deferred();
		const pending = [
			queues.run("x", () => blocker.promise),
			queues.run("x", async () => {
				throw new Error("failed");
			}),
			queues.run("y", () => blocker.promise),
		];
		assert.equal(queues.size, 2);
		blocker.resolve();
		await Promise.allSettled(pending);
		await turn();
		assert.equal(queues.size, 0, "no queue left for idle keys");
		// A key used again gets a fresh queue that still orders its writes.
		const log: number[] = [];
		await Promise.all([
			queues.run("x", async () => {
				await turn();
				log.push(1);
			}),
			queues.run("x", () => {
				log.push(2);
			}),
		]);
		assert.deepEqual(log, [1, 2]);
		await queues.settled();
		assert.equal(queues.size, 0);
	});

	test("a write of a key called during the synchronous part of a write of the same key runs after it", async () => {
		const queues = new KeyedWriteQueue();
		const log: string[] = [];
		const outer = deferred();
		let inner: Promise<void> | undefined;
		const first = queues.run("k", () => {
			inner = queues.run("k", () => {
				log.push("inner");
			});
			return outer.promise.then(() => {
				log.push("outer");
			});
		});
		assert.equal(queues.size, 1);
		await turn();
		assert.deepEqual(log, []);
		outer.resolve();
		await Promise.all([first, inner]);
		assert.deepEqual(log, ["outer", "inner"]);
		await turn();
		assert.equal(queues.size, 0);
	});
});
