/**
 * A real TCP proxy in front of a PostgreSQL server, for fault tests: clients connect to it
 * (127.0.0.1, a port of its own) and it forwards the bytes both ways, until a test switches it,
 * at run time, to one of the faults a network or a server can cause:
 *
 * - {@link PgProxy.cutAfterAnswer}: the next statements whose SQL matches are answered by the
 *   server (their transaction committed), then the connection is cut before the answer reaches
 *   the client: the client cannot know that its write was done.
 * - {@link PgProxy.cutBefore}: the next statements whose SQL matches never reach the server;
 *   the connection is cut instead: nothing was done.
 * - {@link PgProxy.silent}: connections complete the handshake (a client connects fine), then
 *   nothing is forwarded either way, and nothing is closed: a server that stopped answering.
 *   Existing connections go silent at once. `{ handshake: false }`: not even the handshake.
 *
 * To tell statements and answers apart, the proxy reads the protocol's message framing (a type
 * byte and a 32-bit length; the client's first message has no type byte). It sees the SQL of a
 * simple query (`Q`) and of an extended-protocol parse (`P`), and the server's ReadyForQuery
 * (`Z`), which ends every answer. pg sends a statement only after the answer to the previous
 * one (no pipelining), so every server message after a statement belongs to its answer. No
 * TLS: use a URL without `sslmode` (the proxy must read the bytes).
 */

import { connect, createServer, type Server, type Socket } from "node:net";

/** What the proxy does with the connections it forwards. */
type Mode =
	| { kind: "pass" }
	| { kind: "cut"; when: "before" | "after"; pattern: RegExp; count: number }
	| { kind: "silent"; handshake: boolean };

/** Splits a byte stream into protocol messages; `typed` is false for the client's first message. */
class Framer {
	private buffered: Buffer = Buffer.alloc(0);

	constructor(private typed: boolean) {}

	/** The complete messages in what has arrived so far, as [type, body]; type 0 for an untyped one. */
	push(chunk: Buffer): Array<[number, Buffer]> {
		this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
		const messages: Array<[number, Buffer]> = [];
		for (;;) {
			const head = this.typed ? 1 : 0;
			if (this.buffered.length < head + 4) break;
			const length = this.buffered.readInt32BE(head);
			if (this.buffered.length < head + length) break;
			const type = this.typed ? (this.buffered[0] ?? 0) : 0;
			messages.push([type, this.buffered.subarray(head + 4, head + length)]);
			this.buffered = this.buffered.subarray(head + length);
			this.typed = true;
		}
		return messages;
	}
}

const QUERY = "Q".charCodeAt(0);
const PARSE = "P".charCodeAt(0);
const READY = "Z".charCodeAt(0);

/** The SQL of a client message: the text of a simple query or of a parse (after the statement's name). */
function sqlOf(type: number, body: Buffer): string | undefined {
	if (type === QUERY) return body.toString("utf8", 0, Math.max(0, body.indexOf(0)));
	if (type === PARSE) {
		const start = body.indexOf(0) + 1;
		return body.toString("utf8", start, Math.max(start, body.indexOf(0, start)));
	}
	return undefined;
}

/** One client's connection and its connection to the server. */
interface Link {
	client: Socket;
	server: Socket;
	/** The server has sent its first ReadyForQuery: the handshake is done. */
	ready: boolean;
	/** A statement is on its way whose answer is to be lost: cut at the end of that answer. */
	doomed: boolean;
	/** Bytes were dropped in silent mode: the connection cannot carry on. */
	muted: boolean;
}

/** A TCP proxy to a PostgreSQL server (see the module comment). */
export class PgProxy {
	private mode: Mode = { kind: "pass" };
	private readonly links = new Set<Link>();
	/** How many connections it cut (each losing an answer or a statement). */
	cuts = 0;
	/** Called after each such cut (a test may close the proxy then: no server to ask again). */
	onCut: (() => void) | undefined;

	private constructor(
		private readonly server: Server,
		private readonly target: { host: string; port: number },
	) {}

	/** A proxy listening on 127.0.0.1, on a port of its own, forwarding to `target`. */
	static async start(target = { host: "127.0.0.1", port: 5432 }): Promise<PgProxy> {
		const server = createServer();
		const proxy = new PgProxy(server, target);
		server.on("connection", (client) => proxy.accept(client));
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		return proxy;
	}

	/** The port it listens on. */
	get port(): number {
		const address = this.server.address();
		if (address === null || typeof address === "string") throw new Error("the proxy is not listening");
		return address.port;
	}

	/** `url` (a `postgres://` URL of the target) through this proxy: its host and port replaced. */
	via(url: string): string {
		return url.replace(
			/^(postgres(?:ql)?:\/\/(?:[^@/]*@)?)[^/?#]*/i,
			(_, scheme: string) => `${scheme}127.0.0.1:${this.port}`,
		);
	}

	/**
	 * Forwards everything, as if it were not there. Connections that went silent are cut (their
	 * lost bytes broke them), as a network does when it comes back.
	 */
	passThrough(): void {
		this.mode = { kind: "pass" };
		for (const link of this.links) if (link.muted) this.drop(link);
	}

	/**
	 * The next `count` statements whose SQL matches `pattern` are run by the server, which
	 * answers (it committed them); the proxy then cuts the connection, both sides, without
	 * forwarding a byte of the answer. Then it passes everything through again.
	 */
	cutAfterAnswer(pattern: RegExp, count = 1): void {
		this.mode = { kind: "cut", when: "after", pattern, count };
	}

	/** The next `count` statements whose SQL matches `pattern` are not forwarded; the connection is cut instead. */
	cutBefore(pattern: RegExp, count = 1): void {
		this.mode = { kind: "cut", when: "before", pattern, count };
	}

	/** A server that stops answering: after the handshake (or before it), nothing is forwarded, nothing closed. */
	silent(options: { handshake?: boolean } = {}): void {
		this.mode = { kind: "silent", handshake: options.handshake ?? true };
	}

	/** Cuts every connection now, as a server restart or a network failure would (the clients learn it later). */
	cutAll(): void {
		for (const link of this.links) this.drop(link);
	}

	/** Stops listening and closes every connection. */
	async close(): Promise<void> {
		for (const link of this.links) this.drop(link);
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}

	/** True while `link` forwards nothing (silent mode, after the handshake unless it is silent from the start). */
	private mute(link: Link): boolean {
		link.muted ||= this.mode.kind === "silent" && (link.ready || !this.mode.handshake);
		return link.muted;
	}

	private accept(client: Socket): void {
		const server = connect(this.target.port, this.target.host);
		const link: Link = { client, server, ready: false, doomed: false, muted: false };
		this.links.add(link);
		const fromClient = new Framer(false);
		const fromServer = new Framer(true);
		client.on("data", (chunk: Buffer) => {
			if (this.mute(link)) return;
			for (const [type, body] of fromClient.push(chunk)) {
				const sql = sqlOf(type, body);
				const mode = this.mode;
				if (sql === undefined || mode.kind !== "cut" || !mode.pattern.test(sql)) continue;
				if (--mode.count === 0) this.mode = { kind: "pass" };
				if (mode.when === "before") {
					this.cut(link);
					return;
				}
				link.doomed = true;
			}
			// A message is parsed before its bytes go on: a doomed statement is marked before its answer can come.
			server.write(chunk);
		});
		server.on("data", (chunk: Buffer) => {
			if (this.mute(link)) return;
			let end = false;
			for (const [type] of fromServer.push(chunk)) {
				if (type !== READY) continue;
				if (link.doomed) end = true;
				link.ready = true;
			}
			// Nothing of a doomed statement's answer is forwarded; its end (ReadyForQuery) cuts the connection.
			if (end) this.cut(link);
			else if (!link.doomed) client.write(chunk);
		});
		const gone = () => this.drop(link);
		for (const socket of [client, server]) {
			socket.on("error", gone);
			socket.on("close", gone);
		}
	}

	/** A cut a test asked for: counted, and told. */
	private cut(link: Link): void {
		this.drop(link);
		this.cuts++;
		this.onCut?.();
	}

	/** Closes both sides of a connection at once (a reset, not a goodbye). */
	private drop(link: Link): void {
		if (!this.links.delete(link)) return;
		link.client.destroy();
		link.server.destroy();
	}
}
