/** The specs of `session-tree serve` and `session-tree mcp` (metadata only, see common.ts). */

import { defineCommands } from "./common.js";

/** `serve`: the local web app over every session (docs/serve.md). */
export const SERVE_SPECS = defineCommands([
	{
		name: "serve",
		summary: "every session of pi, Claude Code, Codex and Gemini CLI in the browser, live",
		cli: {
			synopsis: "serve [STORE…] [--agents] [--port N] [--host H] [--open]",
			description:
				"Starts a local web app and prints its URL (with a secret token; keep it to yourself): the\n" +
				"sessions newest first, filtered by agent and project; search across every session and every\n" +
				"branch; a session's page (the HTML export's tree, conversation and context panel) that\n" +
				"shows what an agent appends as it happens. Writable sessions (pi's files, sqlite:, postgres:)\n" +
				"can be labelled, named, continued from an entry and forked from the page; other agents'\n" +
				"files are read-only. With no STORE, every session in the default places of pi, Claude\n" +
				"Code, Codex and Gemini CLI; with STOREs (a directory, sqlite:PATH or postgres://…), those,\n" +
				"and the agents' places too with --agents.\n" +
				"Binds 127.0.0.1 unless --host says otherwise (a warning for an address other machines\n" +
				"reach). Runs until Ctrl-C. See docs/serve.md for what it reads and its security model.",
			examples: [
				"session-tree serve",
				"session-tree serve --open",
				"session-tree serve ./sessions sqlite:team.db --port 8080",
				"session-tree serve postgres://localhost/team --agents",
			],
			options: {
				agents: { type: "boolean" },
				port: { type: "string" },
				host: { type: "string" },
				open: { type: "boolean" },
			},
			optionDocs: [
				{
					flags: "--agents",
					description: "with STOREs, serve the agents' default places too (without STOREs they are served anyway)",
				},
				{ flags: "--port N", description: "listen on port N (default: any free port)" },
				{ flags: "--host H", description: "bind address H (default 127.0.0.1; others are reachable from the network)" },
				{
					flags: "--open",
					description: "open the URL in the browser (xdg-open or open; nothing when neither is there)",
				},
			],
			positionals: ["STORE...?"],
		},
	},
	{
		name: "mcp",
		summary: "every session as a Model Context Protocol server, for agents to search and read",
		cli: {
			synopsis: "mcp [STORE…] [--agents] [--write] [--http PORT] [--host H] [--no-redact]",
			description:
				"Runs a Model Context Protocol server over stdio (the default: for an agent to start) or over\n" +
				"Streamable HTTP at http://127.0.0.1:PORT/mcp with --http (the URL and the token to send as\n" +
				"`Authorization: Bearer TOKEN` are printed; SESSION_TREE_MCP_TOKEN sets the token). Its tools\n" +
				"list and search every session and every branch, outline a session's tree, give what the\n" +
				"model received at an entry, whole entries and two branches side by side; with --write, also\n" +
				"label, set_leaf and fork on pi's files and stores (other agents' files are never written).\n" +
				"Each session is also a resource (its path as Markdown, its records as JSONL). Secrets are\n" +
				"redacted in everything it returns (--no-redact keeps them). With no STORE, the default places of pi, Claude Code,\n" +
				"Codex and Gemini CLI; with STOREs, those, and the agents' places too with --agents.\n" +
				"See docs/mcp.md for each agent's configuration.",
			examples: [
				"claude mcp add session-tree -- session-tree mcp",
				"session-tree mcp --write",
				"session-tree mcp ./sessions sqlite:team.db --agents",
				"session-tree mcp --http 8765",
			],
			options: {
				agents: { type: "boolean" },
				write: { type: "boolean" },
				http: { type: "string" },
				host: { type: "string" },
				"no-redact": { type: "boolean" },
			},
			optionDocs: [
				{
					flags: "--agents",
					description: "with STOREs, answer for the agents' default places too (without STOREs they are served anyway)",
				},
				{ flags: "--write", description: "add the write tools: label, set_leaf, fork (pi's files and stores only)" },
				{ flags: "--http PORT", description: "serve Streamable HTTP on PORT (0: any free port) instead of stdio" },
				{ flags: "--host H", description: "with --http, the bind address (default 127.0.0.1)" },
				{
					flags: "--no-redact",
					description: "return secrets (API keys, tokens, passwords) as they are instead of redacted",
				},
			],
			positionals: ["STORE...?"],
		},
	},
]);
