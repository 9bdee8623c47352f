#!/usr/bin/env node
/** The `session-tree` executable. */

import { describeSystemError } from "../core/errors.js";
import { run } from "./run.js";

// Standard output that cannot be written. A pipe closed early (`session-tree tree big.jsonl |
// head`) is not an error. Anything else (`> /dev/full`: ENOSPC; EIO, EFBIG, …) ends the command
// at once with one line saying so and exit 1, no stack trace: the rest of the output could not
// be written either. What the command stored before (an append) stays stored.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
	if (error.code === "EPIPE") process.exit(0);
	process.stderr.write(`session-tree: cannot write output: ${describeSystemError(error)}\n`);
	process.exit(1);
});
// Standard error that cannot be written: nothing more can be said there; the exit code stays the command's.
process.stderr.on("error", () => {});

process.exitCode = await run(process.argv.slice(2), {
	stdin: process.stdin,
	out: (text) => {
		process.stdout.write(text);
	},
	outBytes: (bytes) => {
		process.stdout.write(bytes);
	},
	err: (text) => {
		process.stderr.write(text);
	},
});
