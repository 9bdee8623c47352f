/**
 * `session-tree serve`: starts the local web app (src/serve/) over the agents' places and the
 * STOREs given, prints its URL, and runs until SIGINT or SIGTERM, then closes (open live tails
 * end, the index is closed). `--open` hands the URL to xdg-open or open and never fails for it.
 */

import { spawn } from "node:child_process";
import { agentSources, createServer, isLoopback, storeSource } from "../../serve/index.js";
import { type CommandHandler, stringValue, UsageError } from "../args.js";
import { untilStopped } from "../signals.js";

/** Opens the URL in the user's browser, if a launcher is there; errors are ignored. */
function openBrowser(url: string): void {
	const launcher = process.platform === "darwin" ? "open" : "xdg-open";
	try {
		const child = spawn(launcher, [url], { stdio: "ignore", detached: true });
		child.on("error", () => undefined);
		child.unref();
	} catch {
		// No launcher: the URL is printed.
	}
}

/** Runs `session-tree serve`; its name, options and help are in its spec (src/cli/specs/serve.ts). */
export const serveCommand: CommandHandler = {
	async run({ values, positionals, io }) {
		const portText = stringValue(values, "port");
		const port = portText === undefined ? 0 : Number(portText);
		if (!Number.isInteger(port) || port < 0 || port > 65535)
			throw new UsageError(`--port takes a port number (0-65535), not ${JSON.stringify(portText)}`, "serve");
		const host = stringValue(values, "host") ?? "127.0.0.1";
		if (!isLoopback(host))
			io.err(
				`session-tree: warning: --host ${host} makes the sessions reachable from other machines (anyone with the URL's token can read and write them)\n`,
			);
		// Ctrl-C is taken from the start: one that comes while the index is read closes the server once it listens.
		const stopped = untilStopped();
		// STOREs given: those (a team's database, a directory), and the agents' places only when asked.
		const withAgents = positionals.length === 0 || values.agents === true;
		const sources = [...(withAgents ? agentSources() : []), ...positionals.map(storeSource)];
		const server = await createServer({ sources, port, host });
		io.out(`${server.url}\n`);
		if (values.open === true) openBrowser(server.url);
		await stopped;
		await server.close();
	},
};
