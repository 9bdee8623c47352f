/**
 * A child process for the crash and concurrency tests: opens a session and appends messages,
 * printing each id to stdout once `appendMessage` has resolved (acknowledged).
 *
 * Usage: node writer-process.js FILE COUNT DURABILITY TAG [PACE]
 *
 * PACE `timer` waits for a timer between appends, as an agent waits for its model; by default
 * the appends follow each other at once (an awaited loop, as an import does).
 */
import { writeSync } from "node:fs";
import { Session } from "../../src/index.js";
const [file, countText, durability, tag, pace] = process.argv.slice(2);
const count = Number(countText);
const session = await Session.open(file, { durability: durability });
for (let i = 0; i < count; i++) {
    const id = await session.appendMessage({
        role: "user",
        content: `${tag} message ${i} ${"x".repeat(i % 300)}`,
        timestamp: i,
    });
    // Synchronous write: the id is on the pipe before the next append begins.
    writeSync(1, `${id}\n`);
    if (pace === "timer")
        await new Promise((resolve) => setTimeout(resolve, 0));
}
await session.close();
//# sourceMappingURL=writer-process.js.map