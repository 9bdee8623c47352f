/**
 * `session-tree mcp --http PORT`: the MCP server over Streamable HTTP at `/mcp`, on Hono as
 * `serve` is, behind `serve`'s guards (serve/security.ts) in their bearer-only form: the Host
 * header must name this server, an `Origin` must be its own, and every request carries the token
 * as `Authorization: Bearer`. Stateless: each POST gets a server and a transport of its own
 * over the shared sessions and index (building one registers the tools; nothing is read), so
 * no state outlives a request and any number of clients can call at once.
 */

import { randomBytes } from "node:crypto";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Hono } from "hono";
import { guard, securityHeaders } from "../serve/security.js";
import { hostNames, listen, urlHost } from "../serve/server.js";
import { createMcpServer, type McpOptions, openSessions } from "./server.js";

/** Options of {@link startHttp}. */
export interface McpHttpOptions extends McpOptions {
	/** The port; 0 takes any free one. */
	port: number;
	/** The address to bind. Default 127.0.0.1. */
	host?: string;
	/** The token clients send; default a new random one. */
	token?: string;
}

/** A running HTTP server. */
export interface RunningMcpHttp {
	/** `http://127.0.0.1:PORT/mcp`. */
	url: string;
	token: string;
	port: number;
	/** Stops listening and closes the index. */
	close(): Promise<void>;
}

/** Starts the server; resolves once it listens. */
export async function startHttp(options: McpHttpOptions): Promise<RunningMcpHttp> {
	const host = options.host ?? "127.0.0.1";
	const token = options.token ?? randomBytes(32).toString("base64url");
	const sessions = await openSessions(options);
	let port = 0;
	const hosts = hostNames(host, () => port);
	const app = new Hono();
	app.use("*", securityHeaders);
	app.use("*", guard({ token, hosts, cookie: () => "", bearerOnly: true }));
	app.all("/mcp", async (c) => {
		const server = createMcpServer(sessions, options.version);
		const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
		await server.connect(transport);
		try {
			return await transport.handleRequest(c.req.raw);
		} finally {
			// The answer is made (JSON, not a stream): the pair is done.
			await server.close();
		}
	});
	const listening = await listen(app.fetch, options.port, host);
	port = listening.port;
	return {
		url: `http://${urlHost(host)}:${port}/mcp`,
		token,
		port,
		async close() {
			await listening.close();
			await sessions.close();
		},
	};
}
