/**
 * `createServer`: the local web app of `session-tree serve` (docs/serve.md) on a port of this
 * machine. The HTTP layer is Hono with @hono/node-server: small, no dependencies of its own,
 * Web-standard Request/Response, routing, and the cookie and server-sent-event helpers this
 * needs.
 */

import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import { type IndexSource, openCatalog, type ServeCatalog, scopedCatalog, throttledRefresh } from "./catalog.js";
import { SessionFollowers } from "./follow.js";
import { PageDataCache } from "./page-data.js";
import { routes } from "./routes.js";
import { SessionOpener } from "./sources.js";

/** Options of {@link createServer}. */
export interface ServeOptions {
	/** What to serve: the agents' places (`agentSources()`) and any STOREs (`storeSource`). */
	sources: readonly IndexSource[];
	/** The port; 0 (the default) takes any free one. */
	port?: number;
	/** The address to bind. Default 127.0.0.1; anything not loopback only when the user asks (see {@link isLoopback}). */
	host?: string;
	/** The index; default the one {@link openCatalog} opens. */
	catalog?: ServeCatalog;
	/** For the index's place. Default `process.env`. */
	env?: NodeJS.ProcessEnv;
	/** The index is looked at again on a request at most this often (ms). Default 2000. */
	refreshMs?: number;
}

/** A running server. */
export interface RunningServer {
	/** The URL to open, with the token: `http://127.0.0.1:PORT/?token=…`. */
	url: string;
	token: string;
	port: number;
	/** Stops listening, ends open connections (live tails) and closes the index. */
	close(): Promise<void>;
}

/** How long the start waits for the first look at the places before it listens anyway (ms). */
const FIRST_LOOK_MS = 1000;

/** True for an address of this machine only. */
export function isLoopback(host: string): boolean {
	return host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** A host as a URL writes it (IPv6 in brackets). */
export function urlHost(host: string): string {
	return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

/** The Host headers a server bound to `host` answers to, each with its port (no DNS rebinding). */
export function hostNames(host: string, port: () => number): () => string[] {
	return () => {
		const names = ["127.0.0.1", "localhost", "[::1]", urlHost(host).toLowerCase()];
		return [...new Set(names)].map((name) => `${name}:${port()}`);
	};
}

/** A server that listens. */
export interface Listening {
	port: number;
	/** Stops listening and ends the open connections (live tails, keep-alive). */
	close(): Promise<void>;
}

/** An HTTP server for a Web-standard `fetch` on `host:port` (0: any free port); resolves once it listens. */
export async function listen(
	fetch: (request: Request) => Response | Promise<Response>,
	port: number,
	host: string,
): Promise<Listening> {
	const server = createAdaptorServer({ fetch }) as Server;
	await new Promise<void>((resolve, reject) => {
		server.once("error", reject);
		server.listen(port, host, () => {
			server.off("error", reject);
			resolve();
		});
	});
	return {
		port: (server.address() as AddressInfo).port,
		close: () =>
			new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
}

/** Starts the server; resolves once it listens. */
export async function createServer(options: ServeOptions): Promise<RunningServer> {
	const host = options.host ?? "127.0.0.1";
	const token = randomBytes(32).toString("base64url");
	// Only the sessions of the sources given: the index may hold others (see scopedCatalog).
	const catalog = scopedCatalog(options.catalog ?? (await openCatalog(options.env ?? process.env)), options.sources);
	const opener = new SessionOpener(options.sources);
	const followers = new SessionFollowers(opener);
	const pages = new PageDataCache(opener);
	const refresh = throttledRefresh(catalog, options.sources, options.refreshMs ?? 2000);
	// The first look at the places may take a while (every session read once into a new index):
	// the server listens as soon as that look has got past its quick failures, and the requests
	// that need the index wait for it (`refresh` hands them the look under way). A look that
	// fails at once (a database that cannot be reached) still fails the start.
	const first = refresh(true);
	first.catch(() => undefined);
	await Promise.race([first, new Promise((resolve) => setTimeout(resolve, FIRST_LOOK_MS).unref())]);
	let port = 0;
	const hosts = hostNames(host, () => port);
	const app = routes({
		catalog,
		opener,
		followers,
		pages,
		refresh,
		guard: { token, hosts, cookie: () => `session-tree-${port}` },
	});
	const listening = await listen(app.fetch, options.port ?? 0, host);
	port = listening.port;
	return {
		url: `http://${urlHost(host)}:${port}/?token=${token}`,
		token,
		port,
		async close() {
			await listening.close();
			await followers.close();
			catalog.close();
		},
	};
}
