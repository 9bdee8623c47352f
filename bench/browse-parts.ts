/**
 * The parts of `browse`'s first frame, in one fresh process (issue 28): what bench/browse.ts
 * prints under its table, so that the first frame's figure says where it goes. Loads a build's
 * modules (`DIST`: its `dist` directory) and times, in order, the import of the session and
 * layout modules, `Session.open` of the file as browse opens it, the rows around the leaf that
 * browse draws first (`layoutWindow`, when the build has it: what it decides is not decided
 * again; before `getTree` from the twenty-first round on, after it before), `getTree`, pi's filter decided from the bytes of every message (`decideAssistantsShown`,
 * when the build has it), and the layout under the default filter. Prints one line of JSON:
 * milliseconds by part, and for each part (`NAME gc`) the garbage collector's pauses in it.
 *
 * `node bench/data/.build/bench/browse-parts.js DIST FILE`
 */

import { join } from "node:path";
import { PerformanceObserver } from "node:perf_hooks";
import { pathToFileURL } from "node:url";

type Layout = (roots: unknown, options: { leafId: string | null; filter: string }) => { rows: unknown[] };
interface Opened {
	getTree(): unknown;
	getLeafId(): string | null;
	getTreeIndex(): { getParentId(id: string): string | null | undefined; getTree(rootId?: string): unknown };
	readonly entryCount: number;
}
type Window = (
	tree: unknown,
	options: { leafId: string; filter: string; parentOf?(id: string): string | null | undefined; size?: number },
	above: number,
	below: number,
) => unknown;

const [dist, file] = process.argv.slice(2);
if (dist === undefined || file === undefined) throw new Error("usage: browse-parts.js DIST FILE");
const at = (path: string) => pathToFileURL(join(dist, path)).href;
const parts: Record<string, number> = {};
/** Each part's span, for the collector's pauses in it (below). */
const spans: Array<{ name: string; from: number; to: number }> = [];
// The garbage collector's pauses on this thread (each an entry with its start and duration):
// how much of each part is the collector's, which no change of the part's own code removes
// while it keeps the objects it makes (issue 28, twenty-second round).
const pauses: Array<{ start: number; duration: number }> = [];
const observer = new PerformanceObserver((list) => {
	for (const entry of list.getEntries()) pauses.push({ start: entry.startTime, duration: entry.duration });
});
observer.observe({ entryTypes: ["gc"] });
let last = performance.now();
const lap = (name: string) => {
	const now = performance.now();
	parts[name] = now - last;
	spans.push({ name, from: last, to: now });
	last = now;
};
const { Session } = (await import(at("session.js"))) as { Session: { open(file: string): Promise<Opened> } };
const layoutModule = (await import(at("render/tree-layout.js"))) as {
	layoutTree: Layout;
	decideAssistantsShown?: (roots: unknown) => void;
};
lap("import");
const session = await Session.open(file);
lap("open");
const windowModule = (await import(at("render/tree-window.js")).catch(() => undefined)) as
	| { layoutWindow: Window }
	| undefined;
const leafId = session.getLeafId();
const index = session.getTreeIndex();
// Builds from the twenty-first round on lay the window out from the tree's nodes, before any view
// of the whole tree is made (as browse does); earlier ones from `getTree`'s views (which then
// took no argument: `getTree(rootId)` came with the change).
const fromNodes = index.getTree.length > 0;
// browse's tree pane in a 120×40 terminal: 23 rows above and below.
if (windowModule && leafId !== null && fromNodes) {
	windowModule.layoutWindow(index, { leafId, filter: "default" }, 23, 23);
	lap("window");
}
const roots = session.getTree();
lap("getTree");
if (windowModule && leafId !== null && !fromNodes) {
	windowModule.layoutWindow(
		roots,
		{ leafId, filter: "default", parentOf: (id) => index.getParentId(id), size: session.entryCount },
		23,
		23,
	);
	lap("window");
}
if (layoutModule.decideAssistantsShown) {
	layoutModule.decideAssistantsShown(roots);
	lap("decide");
}
const layout = layoutModule.layoutTree(roots, { leafId: session.getLeafId(), filter: "default" });
lap("layout");
// The observer is told of the pauses after they end, in a later turn of the event loop.
await new Promise((done) => setTimeout(done, 50));
observer.disconnect();
for (const { name, from, to } of spans) {
	let gc = 0;
	for (const pause of pauses) if (pause.start >= from && pause.start < to) gc += pause.duration;
	parts[`${name} gc`] = gc;
}
console.log(JSON.stringify({ parts, rows: layout.rows.length }));
