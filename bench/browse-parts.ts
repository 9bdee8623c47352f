/**
 * The parts of `browse`'s first frame, in one fresh process (issue 28): what bench/browse.ts
 * prints under its table, so that the first frame's figure says where it goes. Loads a build's
 * modules (`DIST`: its `dist` directory) and times, in order, the import of the session and
 * layout modules, `Session.open` of the file as browse opens it, `getTree`, pi's filter decided
 * from the bytes of every message (`decideAssistantsShown`, when the build has it), and the
 * layout under the default filter. Prints one line of JSON: milliseconds by part.
 *
 * `node bench/data/.build/bench/browse-parts.js DIST FILE`
 */

import { join } from "node:path";
import { pathToFileURL } from "node:url";

type Layout = (roots: unknown, options: { leafId: string | null; filter: string }) => { rows: unknown[] };
interface Opened {
	getTree(): unknown;
	getLeafId(): string | null;
}

const [dist, file] = process.argv.slice(2);
if (dist === undefined || file === undefined) throw new Error("usage: browse-parts.js DIST FILE");
const at = (path: string) => pathToFileURL(join(dist, path)).href;
const parts: Record<string, number> = {};
let last = performance.now();
const lap = (name: string) => {
	const now = performance.now();
	parts[name] = now - last;
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
const roots = session.getTree();
lap("getTree");
if (layoutModule.decideAssistantsShown) {
	layoutModule.decideAssistantsShown(roots);
	lap("decide");
}
const layout = layoutModule.layoutTree(roots, { leafId: session.getLeafId(), filter: "default" });
lap("layout");
console.log(JSON.stringify({ parts, rows: layout.rows.length }));
