/** Runs a script of `examples/` as a user would: `node examples/NAME.mjs ARGS…` from the repository root. */

import { spawn } from "node:child_process";
import { join } from "node:path";
import { REPO } from "../cli/helpers.js";

/** What a finished example printed, and how it exited. */
export interface ExampleRun {
	code: number | null;
	stdout: string;
	stderr: string;
}

/** Runs `examples/<name>` with `args` (the examples import the built package: run after `npm run build`). */
export function runExample(name: string, args: readonly string[]): Promise<ExampleRun> {
	return new Promise((done, fail) => {
		const child = spawn(process.execPath, [join(REPO, "examples", name), ...args], { cwd: REPO });
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (chunk: Buffer) => {
			stdout += chunk.toString("utf8");
		});
		child.stderr.on("data", (chunk: Buffer) => {
			stderr += chunk.toString("utf8");
		});
		child.on("error", fail);
		child.on("close", (code) => done({ code, stdout, stderr }));
	});
}
