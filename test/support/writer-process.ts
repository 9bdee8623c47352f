/**
 * A child process for the crash and concurrency tests: opens a session and appends messages,
 * printing each id to stdout once `appendMessage` has resolved (acknowledged).
 *
 * Usage: node writer-process.js FILE COUNT DURABILITY TAG [PACE] [credits]
 *
 * PACE `timer` waits for a timer between appends, as an agent waits for its model; a number
 * waits that many milliseconds; by default the appends follow each other at once (an awaited
 * loop, as an import does). With `credits`, each append also waits for a byte on stdin (the
 * test decides how far the writer may go, see `StartedWriter.grant`).
 */

import { writeSync } from "node:fs";
import { type Durability, Session } from "../../src/index.js";

const [file, countText, durability, tag, pace, credited] = process.argv.slice(2);
const count = Number(countText);
const delay = pace === "timer" ? 0 : pace !== undefined && /^\d+$/.test(pace) ? Number(pace) : undefined;

let credits = credited === "credits" ? 0 : Number.POSITIVE_INFINITY;
let wake: (() => void) | undefined;
if (credited === "credits") {
	process.stdin.on("data", (chunk: Buffer) => {
		credits += chunk.length;
		wake?.();
	});
}
async function credit(): Promise<void> {
	while (credits === 0) await new Promise<void>((resolve) => (wake = resolve));
	credits--;
}

/**
 * Writes all of `text` to stdout synchronously. A pipe may be non-blocking (a loader
 * registered with `module.register`, as test/support/no-sqlite.mjs does, makes it so): a full
 * one then refuses with EAGAIN, and the write is tried again until the reader took some.
 */
function writeWhole(text: string): void {
	let bytes = Buffer.from(text, "utf8");
	while (bytes.length > 0) {
		try {
			bytes = bytes.subarray(writeSync(1, bytes));
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
			Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
		}
	}
}

const session = await Session.open(file as string, { durability: durability as Durability });
for (let i = 0; i < count; i++) {
	await credit();
	const id = await session.appendMessage({
		role: "user",
		content: `${tag} message ${i} ${"x".repeat(i % 300)}`,
		timestamp: i,
	});
	// Synchronous write: the id is on the pipe before the next append begins.
	writeWhole(`${id}\n`);
	if (delay !== undefined) await new Promise((resolve) => setTimeout(resolve, delay));
}
await session.close();
if (credited === "credits") process.stdin.destroy();
