/**
 * DOM helpers of the sessions and search pages. Every text of a session enters the page as a
 * Text node (`textContent`) or an attribute value, never as markup.
 */

/** An element with attributes and children (strings become Text nodes). */
export function h(
	tag: string,
	attrs: Readonly<Record<string, string | undefined>> = {},
	...children: Array<Node | string | null | undefined>
): HTMLElement {
	const node = document.createElement(tag);
	for (const [name, value] of Object.entries(attrs)) if (value !== undefined) node.setAttribute(name, value);
	for (const child of children) {
		if (child === null || child === undefined) continue;
		node.append(typeof child === "string" ? document.createTextNode(child) : child);
	}
	return node;
}

/** GETs JSON from the API; throws with the server's message. */
export async function getJson<T>(url: string): Promise<T> {
	const response = await fetch(url, { credentials: "same-origin" });
	const value = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
	if (!response.ok) throw new Error(value.error?.message ?? `HTTP ${response.status}`);
	return value as T;
}

/** The header of both pages. */
export function pageHeader(current: "list" | "search"): HTMLElement {
	const link = (href: string, text: string, page: string) =>
		h("a", { href, ...(page === current ? { "aria-current": "page" } : {}) }, text);
	return h(
		"header",
		{},
		h("h1", {}, "session-tree"),
		h("nav", {}, link("/", "Sessions", "list"), link("/search", "Search", "search")),
	);
}

/** A size in bytes, short. */
export function formatBytes(bytes: number): string {
	if (bytes < 1024) return `${bytes} B`;
	const units = ["KB", "MB", "GB"];
	let value = bytes / 1024;
	let unit = 0;
	while (value >= 1024 && unit < units.length - 1) {
		value /= 1024;
		unit++;
	}
	return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** A date, local, to the minute. */
export function formatDate(iso: string): string {
	const date = new Date(iso);
	const pad = (n: number) => String(n).padStart(2, "0");
	return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** The agent's name as the pages show it. */
export function agentName(agent: string | null): string {
	return agent ?? "store";
}
