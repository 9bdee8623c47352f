/**
 * The routes of `session-tree serve`: the pages (`/`, `/search`, `/s/KEY`), the JSON API
 * (api.ts), a session's live tail, downloads and actions. Every route behind the guards of
 * security.ts. A session is found only by its key in the index; an unknown key is 404.
 */

import { type Context, Hono } from "hono";
import { SessionTreeError } from "../core/errors.js";
import { ACTIONS, type ActionName, runAction } from "./actions.js";
import { listProjects, listSessions, search } from "./api.js";
import type { IndexedSession, ServeCatalog } from "./catalog.js";
import { keyOf } from "./catalog.js";
import { DOWNLOAD_FORMATS, type DownloadFormat, download } from "./downloads.js";
import { liveTail } from "./events.js";
import type { SessionFollowers } from "./follow.js";
import { type PageDataCache, recordsResponse } from "./page-data.js";
import { shellPage } from "./pages.js";
import { type GuardOptions, guard, refuse, securityHeaders } from "./security.js";
import { sessionPage } from "./session-page.js";
import type { SessionOpener } from "./sources.js";

/** What the routes work with. */
export interface RouteContext {
	catalog: ServeCatalog;
	opener: SessionOpener;
	/** The sessions the live tails follow (one reader per session). */
	followers: SessionFollowers;
	/** The records of session pages, made once per version of a session (page-data.ts). */
	pages: PageDataCache;
	/** Brings the index up to date (at most every so often unless `force`). */
	refresh(force?: boolean): Promise<void>;
	guard: GuardOptions;
}

/** The HTTP status of a library error. */
function statusOf(error: SessionTreeError): 400 | 403 | 404 | 409 | 500 {
	switch (error.code) {
		case "NOT_WRITABLE":
			return 403;
		case "ENTRY_NOT_FOUND":
		case "FILE_NOT_FOUND":
			return 404;
		case "LOCKED":
		case "WRITE_CONFLICT":
			return 409;
		case "INVALID_ARGUMENT":
		case "AMBIGUOUS_ID":
			return 400;
		default:
			return 500;
	}
}

/** The app. */
export function routes(ctx: RouteContext): Hono {
	const app = new Hono();
	app.use("*", securityHeaders);
	app.use("*", guard(ctx.guard));
	app.onError((error, c) => {
		if (error instanceof SessionTreeError) return refuse(c, statusOf(error), error.code, error.message);
		return refuse(c, 500, "INTERNAL", error instanceof Error ? error.message : String(error));
	});

	/** The session of a key, the index refreshed once when it does not know it (a session just made). */
	const lookup = async (c: Context): Promise<IndexedSession | undefined> => {
		const key = c.req.param("key") ?? "";
		if (!/^[0-9a-f]{16}$/.test(key)) return undefined;
		const row = ctx.catalog.session(key);
		if (row) return row;
		await ctx.refresh(true);
		return ctx.catalog.session(key);
	};
	const unknown = (c: Context) => refuse(c, 404, "UNKNOWN_SESSION", "no session has this key");

	const shell = (page: "list" | "search") => async (c: Context) => {
		const { html, policy } = await shellPage(page);
		c.header("Content-Security-Policy", policy);
		return c.html(html);
	};
	app.get("/", shell("list"));
	app.get("/search", shell("search"));

	app.get("/s/:key", async (c) => {
		const row = await lookup(c);
		if (!row) return unknown(c);
		// The records are made while the browser loads the page, which then asks for them; the
		// build begins once this answer is made (its open would hold the thread before).
		const build = await ctx.pages.start(row, true);
		const { html, policy } = await sessionPage(row, build);
		setImmediate(() => build.begin());
		c.header("Content-Security-Policy", policy);
		return c.html(html);
	});

	app.get("/api/sessions/:key/records", async (c) => {
		const row = await lookup(c);
		if (!row) return unknown(c);
		const given = ctx.pages.byId(c.req.query("build") ?? "");
		const build = given?.key === row.key ? given : await ctx.pages.start(row);
		return recordsResponse(c, build);
	});
	app.get("/api/sessions/:key/records/meta", async (c) => {
		const row = await lookup(c);
		if (!row) return unknown(c);
		const build = ctx.pages.byId(c.req.query("build") ?? "");
		if (build?.key !== row.key)
			return refuse(c, 404, "UNKNOWN_BUILD", "no such build of this session: ask for the records again");
		build.begin();
		while (!build.ended) await build.whenChanged();
		if (build.view === undefined) throw build.error;
		return c.json(build.view);
	});

	app.get("/api/sessions", async (c) => {
		await ctx.refresh();
		return listSessions(c, ctx.catalog);
	});
	app.get("/api/projects", async (c) => {
		await ctx.refresh();
		return listProjects(c, ctx.catalog);
	});
	app.get("/api/search", async (c) => {
		await ctx.refresh();
		return search(c, ctx.catalog);
	});

	app.get("/api/sessions/:key/events", async (c) => {
		const row = await lookup(c);
		if (!row) return unknown(c);
		const since = Number.parseInt(c.req.query("since") ?? "0", 10);
		return liveTail(c, row, ctx.followers, Number.isFinite(since) && since >= 0 ? since : 0);
	});

	app.get("/api/sessions/:key/download", async (c) => {
		const row = await lookup(c);
		if (!row) return unknown(c);
		const format = (c.req.query("format") ?? "jsonl") as DownloadFormat;
		if (!DOWNLOAD_FORMATS.includes(format)) return refuse(c, 400, "INVALID_ARGUMENT", "format: jsonl, html or md");
		const session = await ctx.opener.read(row);
		try {
			const file = await download(session, format, c.req.query("redact") !== "0");
			const name = `${row.id.replace(/[^A-Za-z0-9._-]/g, "_")}.${file.extension}`;
			c.header("Content-Disposition", `attachment; filename="${name}"`);
			c.header("Content-Type", file.type);
			return c.body(file.parts.join(""));
		} finally {
			await session.close();
		}
	});

	app.post("/api/sessions/:key/:action", async (c) => {
		const action = c.req.param("action") as ActionName;
		if (!ACTIONS.includes(action)) return refuse(c, 404, "UNKNOWN_ACTION", `actions: ${ACTIONS.join(", ")}`);
		const row = await lookup(c);
		if (!row) return unknown(c);
		if (!row.writable) return refuse(c, 403, "NOT_WRITABLE", "this session is another agent's file: read-only");
		if (!(c.req.header("content-type") ?? "").startsWith("application/json"))
			return refuse(c, 400, "INVALID_ARGUMENT", "send JSON (Content-Type: application/json)");
		const body: unknown = await c.req.json().catch(() => undefined);
		if (body === null || typeof body !== "object" || Array.isArray(body))
			return refuse(c, 400, "INVALID_ARGUMENT", "the body is a JSON object");
		const session = await ctx.opener.write(row);
		try {
			const result = await runAction(session, action, body as Record<string, unknown>);
			if ("location" in result) {
				await ctx.refresh(true);
				return c.json({ key: keyOf(result.location), location: result.location });
			}
			return c.json(result);
		} finally {
			await session.close();
		}
	});

	app.notFound((c) => refuse(c, 404, "NOT_FOUND", "no such page"));
	return app;
}
