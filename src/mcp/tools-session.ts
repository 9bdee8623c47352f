/**
 * The tools over one session: `get_tree` (an outline: branch points, leaves, labels,
 * compactions, straight runs folded), `get_context` (what the model receives at an entry, by
 * the facade's context rules), `get_entries` (whole entries, by id or along a path) and
 * `compare_branches` (two entries: their common ancestor and what each side holds after it).
 * Each reads the session through the facade and answers through reply.ts (redacted, quoted,
 * paged).
 */

import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { compareBranches } from "../core/compare.js";
import { estimateContextTokens } from "../core/tokens.js";
import type { SessionEntry } from "../core/types.js";
import { describeEntry, oneLine } from "../render/preview.js";
import { redactRecords } from "../render/redact.js";
import { layoutTree, TREE_FILTERS, type TreeFilter } from "../render/tree-layout.js";
import type { Session } from "../session.js";
import { badArgument, cursorOffset, listingOf, makeCursor, reply, takePage } from "./reply.js";
import { entryArgument, type McpSessions } from "./sessions.js";
import { cursorArgument, DEFAULT_MAX_CHARS, limitArgument, maxCharsArgument } from "./tools-catalog.js";

/** Characters of an entry's one line in an outline. */
const LINE_LENGTH = 160;

const sessionArgument = z.string().min(1).describe("the session: a key from list_sessions or search, or a session id");

/** An entry as one line: its kind and the start of its text, the text redacted (when asked) before it is cut. */
function entryLine(entry: SessionEntry, redact: boolean): { kind: string; text: string } {
	const safe = redact ? (redactRecords([entry]).records[0] as SessionEntry) : entry;
	const description = describeEntry(safe);
	return { kind: description.kind, text: oneLine(description.text, LINE_LENGTH) };
}

/** An entry as a listing shows it: id, parent, time, kind, one line, label. */
function entrySummary(session: Session, entry: SessionEntry, redact: boolean): Record<string, unknown> {
	const label = session.getLabel(entry.id);
	return {
		id: entry.id,
		parentId: entry.parentId,
		timestamp: entry.timestamp,
		...entryLine(entry, redact),
		...(label !== undefined ? { label } : {}),
	};
}

/** Registers the tools over one session. */
export function registerSessionTools(server: McpServer, sessions: McpSessions): void {
	server.registerTool(
		"get_tree",
		{
			title: "Outline of a session's tree",
			description:
				"The tree of one session as an outline, top to bottom: each row an entry (id, parent, kind, one line of " +
				"text, label, whether it is on the active path or the leaf, how many children: more than one is a branch " +
				"point), straight runs folded to their ends, deeper levels cut by depth. Use an entry id with get_entries " +
				"or get_context.",
			inputSchema: {
				session: sessionArgument,
				filter: z
					.enum(TREE_FILTERS as [TreeFilter, ...TreeFilter[]])
					.optional()
					.describe(
						'which entries (pi\'s /tree filters): "default" hides bookkeeping entries, "no-tools" also tool results, ' +
							'"user-only" user messages, "labeled-only" labelled entries, "all" everything; default "default"',
					),
				from: z.string().min(1).optional().describe("only the subtree of this entry (an id or a unique prefix)"),
				depth: z
					.number()
					.int()
					.min(0)
					.optional()
					.describe("show this many levels of forks below the start; deeper ones are counted"),
				fold: z.boolean().optional().describe("fold straight runs longer than 6 entries to their ends (default true)"),
				limit: limitArgument(100, 1000),
				cursor: cursorArgument,
				maxChars: maxCharsArgument,
			},
			annotations: { readOnlyHint: true, openWorldHint: false },
		},
		async (args) => {
			const listing = listingOf("get_tree", args);
			const offset = cursorOffset(args.cursor, listing);
			const indexed = await sessions.find(args.session);
			const session = await sessions.read(indexed);
			const from = args.from === undefined ? undefined : entryArgument(session, args.from, "from");
			const leafId = session.getLeafId();
			const layout = layoutTree(session.getTree(), {
				leafId,
				filter: args.filter ?? "default",
				...(from !== undefined ? { from } : {}),
				...(args.depth !== undefined ? { depth: args.depth } : {}),
				fold: args.fold !== false,
			});
			// Rows are made as the page reads them: a page of a 100,000-entry outline describes 100 entries.
			const rows = function* (): Iterable<Record<string, unknown>> {
				for (const row of layout.rows) {
					const level = Math.floor(row.prefix.length / 4);
					if (row.kind === "fold") yield { folded: row.count, level };
					else if (row.kind === "more")
						yield { more: row.count, below: row.parentId, branches: row.branches, leafBelow: row.leafBelow, level };
					else {
						const entry = row.node.entry;
						yield {
							...entrySummary(session, entry, sessions.redact),
							level,
							children: row.node.children.length,
							...(layout.active.has(entry.id) ? { active: true } : {}),
							...(entry.id === leafId ? { leaf: true } : {}),
						};
					}
				}
			};
			const page = takePage(rows(), offset, args.limit ?? 100, args.maxChars ?? DEFAULT_MAX_CHARS);
			return reply(
				{
					session: indexed.key,
					name: session.getSessionName() ?? null,
					entries: session.entryCount,
					leaves: session.listBranches().length,
					leafId,
					rowsTotal: layout.rows.length,
					offset,
					rows: page.items,
				},
				page.next === undefined ? undefined : makeCursor(listing, page.next),
				sessions.redact,
			);
		},
	);

	server.registerTool(
		"get_context",
		{
			title: "What the model receives at an entry",
			description:
				"The messages a model is sent when the conversation continues from an entry (default: the session's leaf), " +
				"by pi's context rules: the path from the root, compactions and branch summaries applied. Each message " +
				"with the id of the entry it comes from; the model and thinking level in effect; an estimate of the " +
				"context's tokens.",
			inputSchema: {
				session: sessionArgument,
				entry: z.string().min(1).optional().describe("the entry (an id or a unique prefix); default: the leaf"),
				limit: limitArgument(50, 500),
				cursor: cursorArgument,
				maxChars: maxCharsArgument,
			},
			annotations: { readOnlyHint: true, openWorldHint: false },
		},
		async (args) => {
			const listing = listingOf("get_context", args);
			const offset = cursorOffset(args.cursor, listing);
			const indexed = await sessions.find(args.session);
			const session = await sessions.read(indexed);
			const entry = args.entry === undefined ? undefined : entryArgument(session, args.entry, "entry");
			const context = session.buildSessionContext(entry);
			const entries = session.buildContextEntries(entry);
			const items = entries.map((item) => ({ entryId: item.entry.id, message: item.message }));
			const page = takePage(items, offset, args.limit ?? 50, args.maxChars ?? DEFAULT_MAX_CHARS);
			return reply(
				{
					session: indexed.key,
					entry: entry ?? session.getLeafId(),
					model: context.model ?? null,
					thinkingLevel: context.thinkingLevel,
					contextTokens: estimateContextTokens(context.messages).tokens,
					messagesTotal: items.length,
					offset,
					messages: page.items,
				},
				page.next === undefined ? undefined : makeCursor(listing, page.next),
				sessions.redact,
			);
		},
	);

	server.registerTool(
		"get_entries",
		{
			title: "Whole entries",
			description:
				"Entries of one session, whole: the given ids, or the path down to `to` (from `from`, an ancestor of it, " +
				"or from the root). Give ids or to, not both.",
			inputSchema: {
				session: sessionArgument,
				ids: z
					.array(z.string().min(1))
					.min(1)
					.max(200)
					.optional()
					.describe("entry ids (or unique prefixes), in the order wanted"),
				to: z.string().min(1).optional().describe("the last entry of a path (an id or a unique prefix)"),
				from: z
					.string()
					.min(1)
					.optional()
					.describe("with to: the first entry of the path, an ancestor of to (default: the root)"),
				limit: limitArgument(50, 500),
				cursor: cursorArgument,
				maxChars: maxCharsArgument,
			},
			annotations: { readOnlyHint: true, openWorldHint: false },
		},
		async (args) => {
			if ((args.ids === undefined) === (args.to === undefined))
				throw badArgument(
					args.ids === undefined ? "ids" : "to",
					"give either ids or to (a path), not both and not neither",
				);
			if (args.from !== undefined && args.to === undefined) throw badArgument("from", "from needs to");
			const listing = listingOf("get_entries", args);
			const offset = cursorOffset(args.cursor, listing);
			const indexed = await sessions.find(args.session);
			const session = await sessions.read(indexed);
			let ids: string[];
			if (args.ids !== undefined) ids = args.ids.map((id, index) => entryArgument(session, id, `ids[${index}]`));
			else {
				const to = entryArgument(session, args.to as string, "to");
				if (args.from === undefined) ids = session.getBranch(to).map((entry) => entry.id);
				else {
					const from = entryArgument(session, args.from, "from");
					const parts = compareBranches(session.getTreeIndex(), from, to);
					if (parts.onlyA.length > 0) throw badArgument("from", `${from} is not on the path to ${to}`);
					ids = [from, ...parts.onlyB];
				}
			}
			const items = function* (): Iterable<Record<string, unknown>> {
				for (const id of ids) {
					const entry = session.getEntry(id) as SessionEntry;
					const label = session.getLabel(id);
					yield { entry, ...(label !== undefined ? { label } : {}) };
				}
			};
			const page = takePage(items(), offset, args.limit ?? 50, args.maxChars ?? DEFAULT_MAX_CHARS);
			return reply(
				{ session: indexed.key, entriesTotal: ids.length, offset, entries: page.items },
				page.next === undefined ? undefined : makeCursor(listing, page.next),
				sessions.redact,
			);
		},
	);

	server.registerTool(
		"compare_branches",
		{
			title: "Compare two branches",
			description:
				"Two entries of one session (two leaves, say): the last entry their paths share and, one line each, what " +
				"each path holds after it. Use get_entries with from/to for whole bodies.",
			inputSchema: {
				session: sessionArgument,
				a: z.string().min(1).describe("the first entry (an id or a unique prefix)"),
				b: z.string().min(1).describe("the second entry (an id or a unique prefix)"),
				limit: limitArgument(50, 500).describe(
					"most entries of each side to return (1-500, default 50); nextCursor continues",
				),
				cursor: cursorArgument,
			},
			annotations: { readOnlyHint: true, openWorldHint: false },
		},
		async (args) => {
			const listing = listingOf("compare_branches", args);
			const offset = cursorOffset(args.cursor, listing);
			const indexed = await sessions.find(args.session);
			const session = await sessions.read(indexed);
			const a = entryArgument(session, args.a, "a");
			const b = entryArgument(session, args.b, "b");
			const parts = compareBranches(session.getTreeIndex(), a, b);
			const limit = args.limit ?? 50;
			const side = (ids: string[]) =>
				ids
					.slice(offset, offset + limit)
					.map((id) => entrySummary(session, session.getEntry(id) as SessionEntry, sessions.redact));
			const ancestor = parts.ancestorId === null ? null : session.getEntry(parts.ancestorId);
			const more = offset + limit < Math.max(parts.onlyA.length, parts.onlyB.length);
			return reply(
				{
					session: indexed.key,
					a,
					b,
					ancestor: ancestor ? entrySummary(session, ancestor, sessions.redact) : null,
					aTotal: parts.onlyA.length,
					bTotal: parts.onlyB.length,
					offset,
					onlyA: side(parts.onlyA),
					onlyB: side(parts.onlyB),
				},
				more ? makeCursor(listing, offset + limit) : undefined,
				sessions.redact,
			);
		},
	);
}
