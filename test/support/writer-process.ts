/**
 * A child process for the crash and concurrency tests: opens a session and appends messages,
 * printing each id to stdout once `appendMessage` has returned (acknowledged).
 *
 * Usage: node writer-process.js FILE COUNT DURABILITY TAG
 */

import { writeSync } from "node:fs";
import { type Durability, Session } from "../../src/index.js";

const [file, countText, durability, tag] = process.argv.slice(2);
const count = Number(countText);
const session = Session.open(file as string, { durability: durability as Durability });
for (let i = 0; i < count; i++) {
	const id = session.appendMessage({
		role: "user",
		content: `${tag} message ${i} ${"x".repeat(i % 300)}`,
		timestamp: i,
	});
	// Synchronous write: the id is on the pipe before the next append begins.
	writeSync(1, `${id}\n`);
}
session.close();
