/**
 * `session-tree mcp --http 0`: the server over Streamable HTTP, as the SDK's `Client` with its
 * `StreamableHTTPClientTransport` reaches it (the token as `Authorization: Bearer`), and the
 * guards it shares with `serve`: no token, a wrong one, a foreign Host or Origin are refused.
 */

import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { BIN } from "../cli/helpers.js";
import { http } from "../serve/support.js";
import { SQLITE_SKIP } from "../support/sqlite.js";
import { buildMcpHome, homeEnv, type McpHome, SIDE_TEXT } from "./support.js";

let home: McpHome;
let child: ChildProcess;
let url: URL;
let token: string;

// `session-tree mcp` opens the catalog index (SQLite).
before(async () => {
	if (SQLITE_SKIP) return;
	home = await buildMcpHome();
	child = spawn(process.execPath, [BIN, "mcp", "--http", "0"], {
		env: homeEnv(home.home),
		stdio: ["ignore", "pipe", "pipe"],
	});
	const printed = await new Promise<string>((resolve, reject) => {
		let out = "";
		child.stdout?.on("data", (chunk: Buffer) => {
			out += chunk.toString("utf8");
			if (/Authorization: Bearer \S+\n/.test(out)) resolve(out);
		});
		child.once("exit", (code) => reject(new Error(`mcp --http exited with ${code}`)));
	});
	const [first, second] = printed.trim().split("\n");
	url = new URL(first as string);
	token = (second as string).replace("Authorization: Bearer ", "");
});

after(async () => {
	if (child && child.exitCode === null) {
		const exited = new Promise((resolve) => child.once("exit", resolve));
		child.kill("SIGINT");
		await exited;
	}
	if (home) rmSync(home.home, { recursive: true, force: true });
});

describe("session-tree mcp --http", { skip: SQLITE_SKIP }, () => {
	test("prints a loopback URL at /mcp and the token", () => {
		assert.equal(url.hostname, "127.0.0.1");
		assert.equal(url.pathname, "/mcp");
		assert.ok(token.length >= 32);
	});

	test("the SDK's client lists the tools and searches every branch over HTTP", async () => {
		const client = new Client({ name: "session-tree-tests", version: "1.0.0" });
		await client.connect(
			new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
		);
		try {
			const { tools } = await client.listTools();
			assert.ok(tools.some((tool) => tool.name === "get_context"));
			assert.ok(!tools.some((tool) => tool.name === "label"), "read-only without --write");
			const answer = (await client.callTool({ name: "search", arguments: { query: SIDE_TEXT } })) as {
				content: Array<{ text: string }>;
			};
			const body = JSON.parse(answer.content[0]?.text as string) as { result: { hits: Array<{ branch: string }> } };
			assert.deepEqual(
				body.result.hits.map((hit) => hit.branch),
				["side"],
			);
		} finally {
			await client.close();
		}
	});

	test("refuses a request without the token, with a wrong one, from a foreign Host or Origin", async () => {
		const init = JSON.stringify({
			jsonrpc: "2.0",
			id: 1,
			method: "initialize",
			params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
		});
		const headers = {
			"content-type": "application/json",
			accept: "application/json, text/event-stream",
		};
		const port = Number(url.port);
		const post = (extra: Record<string, string>) =>
			http(port, "/mcp", { method: "POST", headers: { ...headers, ...extra }, body: init });
		assert.equal((await post({})).status, 401);
		assert.equal((await post({ authorization: "Bearer wrong" })).status, 403);
		assert.equal((await post({ authorization: `Bearer ${token}`, host: `evil.example:${port}` })).status, 403);
		assert.equal((await post({ authorization: `Bearer ${token}`, origin: "http://evil.example" })).status, 403);
		// A token in the URL is not taken (it would end up in logs and histories).
		assert.equal((await http(port, `/mcp?token=${token}`, { method: "POST", headers, body: init })).status, 401);
		assert.equal((await post({ authorization: `Bearer ${token}` })).status, 200);
	});
});
