#!/usr/bin/env node
/** The `session-tree` executable. */
import { run } from "./run.js";
// `session-tree tree big.jsonl | head` closes the pipe early: that is not an error.
process.stdout.on("error", (error) => {
    if (error.code === "EPIPE")
        process.exit(0);
    throw error;
});
process.exitCode = await run(process.argv.slice(2), {
    stdin: process.stdin,
    out: (text) => {
        process.stdout.write(text);
    },
    err: (text) => {
        process.stderr.write(text);
    },
});
//# sourceMappingURL=main.js.map