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

const session = await Session.open(file as string, { durability: durability as Durability });
for (let i = 0; i < count; i++) {
	await credit();
	const id = await session.appendMessage({
		role: "user",
		content: `${tag} message ${i} ${"x".repeat(i % 300)}`,
		timestamp: i,
	});
	// Synchronous write: the id is on the pipe before the next append begins.
	writeSync(1, `${id}\n`);
	if (delay !== undefined) await new Promise((resolve) => setTimeout(resolve, delay));
}
await session.close();
if (credited === "credits") process.stdin.destroy();
