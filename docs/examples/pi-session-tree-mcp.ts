/**
 * A pi extension that gives pi the tools of `session-tree mcp` (docs/mcp.md): it starts the
 * server over stdio with the MCP SDK's client, lists its tools, and registers each one as a pi
 * tool named `session_tree_<tool>` (`session_tree_search`, `session_tree_get_context`, …) that
 * forwards its arguments and returns the server's text.
 *
 * pi has no MCP client of its own; an extension may register tools (`pi.registerTool`,
 * docs/extensions.md of @mariozechner/pi-coding-agent), which is all this needs.
 *
 * Install (pi loads TypeScript extensions itself, through jiti):
 *
 *   mkdir -p ~/.pi/agent/extensions/session-tree-mcp && cd ~/.pi/agent/extensions/session-tree-mcp
 *   cp PATH/TO/session-tree/docs/examples/pi-session-tree-mcp.ts index.ts
 *   npm init -y && npm install @modelcontextprotocol/sdk
 *
 * or try it once with `pi -e ./docs/examples/pi-session-tree-mcp.ts` from this repository (its
 * node_modules has the SDK). `session-tree` must be on PATH (or set COMMAND below).
 */

import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Type } from "typebox";

/** The server to start: add `--write` for label/set_leaf/fork, or STOREs to answer for. */
const COMMAND = "session-tree";
const ARGS = ["mcp"];

/** The prefix of the pi tools, so that `search` or `fork` cannot clash with another tool. */
const PREFIX = "session_tree_";

/** A pi tool result's content: text, or an image given inline. */
type Content = { type: "text"; text: string } | { type: "image"; data: string; mimeType: string };

/** The MCP content of a tool result as pi content (the server answers text; other kinds are named). */
function toPiContent(content: unknown): Content[] {
	if (!Array.isArray(content)) return [];
	return content.map((item: { type?: string; text?: string; data?: string; mimeType?: string }): Content => {
		if (item.type === "text" && typeof item.text === "string") return { type: "text", text: item.text };
		if (item.type === "image" && typeof item.data === "string" && typeof item.mimeType === "string")
			return { type: "image", data: item.data, mimeType: item.mimeType };
		return { type: "text", text: `[${item.type ?? "unknown"} content]` };
	});
}

/** The environment of the server: all of pi's (the SDK passes only a few variables unless told). */
function environment(): Record<string, string> {
	const env: Record<string, string> = {};
	for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
	return env;
}

export default async function sessionTreeMcp(pi: ExtensionAPI): Promise<void> {
	const client = new Client({ name: "pi-session-tree-mcp", version: "1.0.0" });
	// stderr is dropped: the server's warnings would otherwise land in pi's screen.
	const transport = new StdioClientTransport({ command: COMMAND, args: ARGS, env: environment(), stderr: "ignore" });
	let failure: string | undefined;
	try {
		await client.connect(transport);
		const { tools } = await client.listTools();
		for (const tool of tools) {
			pi.registerTool({
				name: `${PREFIX}${tool.name}`,
				label: tool.title ?? tool.name,
				description: tool.description ?? tool.name,
				promptSnippet: tool.title ?? tool.name,
				// The server's JSON Schema as it is: pi validates plain JSON Schema as well as TypeBox's.
				parameters: Type.Unsafe<Record<string, unknown>>(tool.inputSchema),
				async execute(_toolCallId, params, signal) {
					const result = await client.callTool({ name: tool.name, arguments: params }, undefined, {
						...(signal !== undefined ? { signal } : {}),
					});
					const content = toPiContent(result.content);
					// A tool error (a bad argument, a session that is not served) is thrown: pi marks it failed.
					if (result.isError === true)
						throw new Error(content.map((part) => (part.type === "text" ? part.text : "")).join("\n"));
					return { content, details: { structuredContent: result.structuredContent } };
				},
			});
		}
	} catch (error) {
		failure = `session-tree mcp did not start (${COMMAND} ${ARGS.join(" ")}): ${(error as Error).message}`;
		await client.close().catch(() => undefined);
	}

	pi.on("session_start", async (_event, ctx) => {
		if (failure !== undefined) ctx.ui.notify(failure, "warning");
	});
	// Each runtime (a new, resumed or forked session; /reload) loads the extension again: this
	// runtime's server goes with it.
	pi.on("session_shutdown", async () => {
		await client.close();
	});
}
