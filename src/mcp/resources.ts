/**
 * Each session as two resources a client can attach to a prompt: its active path as Markdown
 * (`session-tree://session/KEY/path.md`) and its records as pi JSONL
 * (`session-tree://session/KEY/session.jsonl`; another agent's file as session-tree reads it).
 * Both are made as `serve`'s downloads make them (serve/downloads.ts), redacted. The listing
 * holds the newest sessions ({@link LISTED} of them); any session's URI can be read.
 */

import { type McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { type DownloadFormat, download } from "../serve/downloads.js";
import { badArgument } from "./reply.js";
import type { McpSessions } from "./sessions.js";

/** Sessions the resource listing names, newest first. */
export const LISTED = 200;

/** The resource URI of a session in a format. */
export function resourceUri(key: string, format: "md" | "jsonl"): string {
	return `session-tree://session/${key}/${format === "md" ? "path.md" : "session.jsonl"}`;
}

/** Registers the two resource templates. */
export function registerResources(server: McpServer, sessions: McpSessions): void {
	const formats = [
		{ format: "md", name: "session-path", mime: "text/markdown", what: "its active path as Markdown" },
		{ format: "jsonl", name: "session-records", mime: "application/x-ndjson", what: "its records as pi JSONL" },
	] as const;
	for (const { format, name, mime, what } of formats) {
		const template = new ResourceTemplate(resourceUri("{key}", format), {
			list: async () => {
				await sessions.refresh();
				const { sessions: newest } = sessions.catalog.sessions({ limit: LISTED });
				return {
					resources: newest.map((session) => ({
						uri: resourceUri(session.key, format),
						name: `${session.title} (${format})`,
						description: `${session.agent ?? "store"} session in ${session.cwd}: ${what}`,
						mimeType: mime,
					})),
				};
			},
		});
		server.registerResource(
			name,
			template,
			{
				title: `A session: ${what}`,
				description: `Each session: ${what}, secrets redacted unless the server runs with --no-redact.`,
				mimeType: mime,
			},
			async (uri, variables) => {
				const key = String(variables.key);
				if (!/^[0-9a-f]{16}$/.test(key)) throw badArgument("uri", `${uri.href} names no session`);
				const session = await sessions.read(await sessions.find(key, "uri"));
				const made = await download(session, format as DownloadFormat, sessions.redact);
				return { contents: [{ uri: uri.href, mimeType: mime, text: made.parts.join("") }] };
			},
		);
	}
}
