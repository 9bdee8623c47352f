/**
 * docs/backends.md: "a password in a URL is never printed". Every command of the registry that
 * takes a location runs with a PostgreSQL URL holding a password, once to a port where nothing
 * listens and once (with a server) to a session that does not exist; neither stdout nor stderr
 * may hold the password. The arguments are made from each command's synopsis, so a command
 * added to the registry is tried too.
 */

import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { CLI_COMMANDS } from "../../src/cli/registry.js";
import { postgresServer, testSchema } from "../support/postgres.js";
import { cli, fixture, removeTempDirs, tempDir } from "./helpers.js";

after(removeTempDirs);

const PASSWORD = "s3cretPW";

/**
 * The command lines of `command` that name `base` (a database URL without `#`): its required
 * positionals filled in (FILE and SRC a session of it, STORE and DST the database), and each
 * `--dir DIR` given the database.
 */
function commandLines(name: string, synopsis: string, base: string, creating: boolean): string[][] {
	const session = `${base}#0badc0de-0000-4000-8000-000000000000`;
	const words = synopsis.split(" ").slice(1);
	const args: string[] = [name];
	let location = false;
	for (const word of words) {
		if (word.startsWith("[") || word.startsWith("(") || word.startsWith("-")) break;
		if (word === "FILE" || word === "SRC" || word === "STORE" || word === "DST") {
			args.push(word === "FILE" || word === "SRC" ? session : base);
			location = true;
		} else if (word === "ID") args.push("abcd1234");
		else if (word === "TEXT") args.push("hello");
		else if (word === "INPUT…") args.push(fixture("branched-session"));
	}
	if (name === "prune") args.push("--keep", "1");
	if (name === "export") args.push("--to", "chatgpt");
	const lines: string[][] = [];
	if (location) lines.push(args);
	// Optional locations: `ls [DIR|STORE]`, `search TEXT [DIR|STORE]`, `repl [FILE]`, `--dir DIR`.
	if (synopsis.includes("[DIR|STORE]")) lines.push([...args, base]);
	if (synopsis.includes("[FILE]")) lines.push([...args, session]);
	// `demo --dir` is a directory of files, never a database.
	if (synopsis.includes("--dir DIR") && name !== "demo") lines.push([...args, "--dir", base]);
	if (name === "copy") lines.push(["copy", fixture("branched-session"), base]);
	return creating ? lines : lines.filter((line) => !creates(line));
}

/**
 * A command line that makes a session in the database (`new --dir`, `import --dir`, `copy` into
 * it): on a reachable server it succeeds and prints the new session's location on stdout, the
 * data the next command needs, as given. Tried only where nothing listens.
 */
function creates(line: readonly string[]): boolean {
	return line.includes("--dir") || line[0] === "import" || (line[0] === "copy" && !line[2]?.includes("#"));
}

async function noPasswordPrinted(base: string, creating: boolean): Promise<number> {
	let runs = 0;
	for (const command of CLI_COMMANDS) {
		for (const args of commandLines(command.name, command.synopsis, base, creating)) {
			const result = await cli(args, { cwd: tempDir(), input: `${JSON.stringify({ role: "user", content: "hi" })}\n` });
			runs++;
			const shown = `${args.join(" ")} (exit ${result.code})`;
			assert.ok(!result.stdout.includes(PASSWORD), `${shown} printed the password on stdout: ${result.stdout}`);
			assert.ok(!result.stderr.includes(PASSWORD), `${shown} printed the password on stderr: ${result.stderr}`);
		}
	}
	return runs;
}

describe("a password in a location is never printed", () => {
	test("every command, to a port where nothing listens", async () => {
		const runs = await noPasswordPrinted(`postgres://postgres:${PASSWORD}@127.0.0.1:1/test`, true);
		assert.ok(runs >= 25, `${runs} command lines`);
	});
});

const server = await postgresServer();
if ("skip" in server) {
	test("a password in a location, to a missing session", { skip: server.skip }, () => {});
} else {
	test("every command, to a session that does not exist on a real server", async () => {
		const { url } = testSchema(server.url, "password");
		const withPassword = url.replace("://postgres@", `://postgres:${PASSWORD}@`);
		assert.ok(withPassword.includes(PASSWORD), "the server URL has the form postgres://postgres@…");
		const runs = await noPasswordPrinted(withPassword, false);
		assert.ok(runs >= 20, `${runs} command lines`);
	});
}
