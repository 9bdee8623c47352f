/**
 * A session page served by `session-tree serve` (view option `server`, see
 * src/serve/session-page.ts): the export's page, built by {@link boot}, plus the live tail
 * and the served tools (actions.ts). The tail is a server-sent event stream
 * (src/serve/events.ts) of the records appended after those the page holds; each batch is
 * applied to the tree by the core's reducer that read the page's records (the loader's rules,
 * without reading the rest again) and the page is built again around it, keeping the selection (it is in the URL hash; without one, the page follows the
 * session's leaf).
 */

import { settleStream } from "../../../core/load.js";
import type { ParsedLine, RawRecord } from "../../../core/records.js";
import { isObject } from "../../../core/validate.js";
import { type ServedTools, type ServedView, servedTools } from "./actions.js";
import { boot, type Selection } from "./app.js";
import { fetchSessionData, readSessionData, type SessionData, type ViewOptions } from "./data.js";

/** One batch of the tail. */
interface Batch {
	from: number;
	records: unknown[];
	leafId: string | null;
}

function parseBatch(text: string): Batch | undefined {
	try {
		const value: unknown = JSON.parse(text);
		if (!isObject(value) || typeof value.from !== "number" || !Array.isArray(value.records)) return undefined;
		return { from: value.from, records: value.records, leafId: typeof value.leafId === "string" ? value.leafId : null };
	} catch {
		return undefined;
	}
}

/** Starts a served page. */
export async function bootServed(given: ViewOptions, served: ServedView): Promise<void> {
	let view = given;
	let first: SessionData;
	if (served.records === null) first = await readSessionData();
	else {
		const fetched = await fetchSessionData(served.records, served.build);
		first = fetched.data;
		view = { ...fetched.view, ...(given.server ? { server: given.server } : {}) };
	}
	const lines: ParsedLine[] = [...first.lines];
	let load = first.load;
	let jsonl = first.jsonl;
	let leafId = view.leafId;
	let controller = new AbortController();
	let selection: Selection = { leafId: null, selectedId: null };
	const tools: ServedTools = servedTools(served, () => selection);
	const render = (data: SessionData) =>
		boot({
			data,
			view: { ...view, leafId },
			signal: controller.signal,
			tools: tools.elements,
			onSelection: (next) => {
				selection = next;
			},
		});
	await render(first);

	/** The records held after the header. */
	const held = () => lines.length - 1;
	const source = new EventSource(`${served.events}?since=${held()}`);
	source.addEventListener("open", () => tools.setLive(true));
	source.addEventListener("error", () => tools.setLive(false));
	source.addEventListener("reset", () => window.location.reload());
	let queue: Promise<void> = Promise.resolve();
	source.addEventListener("records", (event) => {
		const batch = parseBatch((event as MessageEvent<string>).data);
		if (!batch) return;
		queue = queue.then(async () => {
			// A reconnected stream starts again from where the page first was: skip what it holds.
			const fresh = batch.records.slice(Math.max(0, held() - batch.from));
			if (batch.from > held()) return window.location.reload();
			if (fresh.length === 0 && batch.leafId === leafId) return;
			const added: ParsedLine[] = [];
			for (const record of fresh)
				if (isObject(record)) added.push({ line: lines.length + added.length + 1, record: record as RawRecord });
			lines.push(...added);
			leafId = batch.leafId;
			// The reducer that read the page's records takes the new ones: the same rules, without reading the rest again.
			load.reducer.applyLines(added);
			load = settleStream(load.reducer);
			jsonl = [...jsonl, added.map((line) => `${JSON.stringify(line.record)}\n`).join("")];
			controller.abort();
			controller = new AbortController();
			await render({ jsonl, load, unreadable: first.unreadable, lines });
			document.documentElement.setAttribute("data-records", String(held()));
		});
	});
	document.documentElement.setAttribute("data-records", String(held()));
}
