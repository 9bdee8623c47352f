/**
 * `session-tree mcp`: the Model Context Protocol server (src/mcp/) over the agents' places and
 * the STOREs given. Over stdio it runs until the client closes stdin (stdout carries only the
 * protocol; warnings go to stderr); with `--http PORT` it prints the URL and the token and runs
 * until SIGINT or SIGTERM.
 */

import { runStdio, startHttp } from "../../mcp/index.js";
import { agentSources, isLoopback, storeSource } from "../../serve/index.js";
import { type CommandHandler, stringValue, UsageError } from "../args.js";
import { untilStopped } from "../signals.js";
import { packageVersion } from "../version.js";

/** Runs `session-tree mcp`; its name, options and help are in its spec (src/cli/specs/serve.ts). */
export const mcpCommand: CommandHandler = {
	async run({ values, positionals, io }) {
		const withAgents = positionals.length === 0 || values.agents === true;
		const sources = [...(withAgents ? agentSources() : []), ...positionals.map(storeSource)];
		const options = {
			sources,
			write: values.write === true,
			redact: values["no-redact"] !== true,
			version: packageVersion(),
		};
		const portText = stringValue(values, "http");
		const host = stringValue(values, "host");
		if (portText === undefined) {
			if (host !== undefined) throw new UsageError("--host needs --http PORT (stdio binds nothing)", "mcp");
			await runStdio(options);
			return;
		}
		const port = Number(portText);
		if (!Number.isInteger(port) || port < 0 || port > 65535)
			throw new UsageError(`--http takes a port number (0-65535), not ${JSON.stringify(portText)}`, "mcp");
		if (host !== undefined && !isLoopback(host))
			io.err(
				`session-tree: warning: --host ${host} makes the sessions reachable from other machines (anyone with the token can read them)\n`,
			);
		const stopped = untilStopped();
		const token = process.env.SESSION_TREE_MCP_TOKEN;
		const server = await startHttp({
			...options,
			port,
			...(host !== undefined ? { host } : {}),
			...(token !== undefined && token !== "" ? { token } : {}),
		});
		io.out(`${server.url}\nAuthorization: Bearer ${server.token}\n`);
		await stopped;
		await server.close();
	},
};
