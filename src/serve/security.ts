/**
 * The guards of `session-tree serve`, as for a notebook server (docs/serve.md, "Security"):
 * the Host header must name this server (no DNS rebinding), a request from another origin is
 * refused, a write must come from the page's own origin, and every request but the first
 * (which brings the token of the printed URL and gets a cookie for it) must carry that cookie
 * or an `Authorization: Bearer` header. Every response gets headers that keep the browser
 * from sniffing, framing or leaking the URL.
 */

import { timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { getCookie, setCookie } from "hono/cookie";

/** What the guards check against. */
export interface GuardOptions {
	/** The secret of the printed URL. */
	token: string;
	/** The host names this server answers to (each with the port: `127.0.0.1:8080`). */
	hosts: () => readonly string[];
	/** The cookie's name: one per port, as browsers share cookies between ports of one host. */
	cookie: () => string;
	/**
	 * Only an `Authorization: Bearer` header proves the token (an API for programs, as
	 * `session-tree mcp --http`): no `?token=`, no cookie. A browser never sends that header on
	 * its own, so a write needs no proof of its origin; an `Origin` that is not this server's is
	 * still refused. Default false.
	 */
	bearerOnly?: boolean;
}

/** The policy of responses that are not pages: nothing runs, nothing loads, nothing frames them. */
export const NO_CONTENT_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Constant-time comparison of a given secret with the token. */
export function sameSecret(given: string, token: string): boolean {
	const a = Buffer.from(given, "utf8");
	const b = Buffer.from(token, "utf8");
	return a.length === b.length && timingSafeEqual(a, b);
}

/** An error answer as JSON: `{ error: { code, message } }`. */
export function refuse(c: Context, status: 400 | 401 | 403 | 404 | 409 | 500, code: string, message: string): Response {
	return c.json({ error: { code, message } }, status);
}

/** The headers every response carries (a page sets its own Content-Security-Policy). */
export const securityHeaders: MiddlewareHandler = async (c, next) => {
	await next();
	c.header("X-Content-Type-Options", "nosniff");
	c.header("Referrer-Policy", "no-referrer");
	c.header("X-Frame-Options", "DENY");
	c.header("Cross-Origin-Opener-Policy", "same-origin");
	c.header("Cross-Origin-Resource-Policy", "same-origin");
	if (!c.res.headers.has("Cache-Control")) c.header("Cache-Control", "no-store");
	if (!c.res.headers.has("Content-Security-Policy")) c.header("Content-Security-Policy", NO_CONTENT_POLICY);
};

/**
 * Host, Origin, write and token checks, in that order. A request with `?token=` that matches
 * gets the cookie and is sent to the same URL without the token (so it stays out of the
 * history and of what the page could leak); a wrong token is 403, none at all 401.
 */
export function guard(options: GuardOptions): MiddlewareHandler {
	return async (c, next) => {
		const host = c.req.header("host") ?? "";
		if (!options.hosts().includes(host.toLowerCase()))
			return refuse(c, 403, "FOREIGN_HOST", "this server answers only to its own host name");
		const origin = c.req.header("origin");
		const own = `http://${host.toLowerCase()}`;
		if (origin !== undefined && origin.toLowerCase() !== own)
			return refuse(c, 403, "FOREIGN_ORIGIN", "requests from another origin are refused");
		const method = c.req.method;
		if (options.bearerOnly !== true && method !== "GET" && method !== "HEAD") {
			const site = c.req.header("sec-fetch-site");
			if (origin === undefined && site !== "same-origin")
				return refuse(c, 403, "FOREIGN_ORIGIN", "a write must come from this server's own pages");
		}
		const url = new URL(c.req.url);
		const given = options.bearerOnly === true ? null : url.searchParams.get("token");
		if (given !== null) {
			if (!sameSecret(given, options.token)) return refuse(c, 403, "BAD_TOKEN", "wrong token");
			setCookie(c, options.cookie(), options.token, { httpOnly: true, sameSite: "Strict", path: "/" });
			url.searchParams.delete("token");
			return c.redirect(`${url.pathname}${url.search}${url.hash}`, 303);
		}
		const bearer = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
		const cookie = options.bearerOnly === true ? undefined : getCookie(c, options.cookie());
		const presented = bearer ?? cookie;
		if (presented === undefined)
			return options.bearerOnly === true
				? refuse(c, 401, "NO_TOKEN", "send the token printed at the start as `Authorization: Bearer TOKEN`")
				: refuse(c, 401, "NO_TOKEN", "open the URL that `session-tree serve` printed");
		if (!sameSecret(presented, options.token)) return refuse(c, 403, "BAD_TOKEN", "wrong token");
		await next();
	};
}
