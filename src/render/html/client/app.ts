/**
 * The page: decodes the session, builds the tree with the core, and wires the tree sidebar,
 * the conversation, the context panel and the search together around one selection, kept in
 * the URL hash (`#leaf=ID`, `#entry=ID`, or both) so that Back and Forward move between
 * selections. See docs/html.md for what the page shows and its DOM contract.
 */

import type { SessionTree } from "../../../core/tree.js";
import { TreeNode } from "../../../core/tree-node.js";
import { viewId } from "../../../core/tree-view.js";
import type { PathStep, SessionEntry, SessionTreeNode } from "../../../core/types.js";
import { countOf } from "../../preview.js";
import { takeShownHints } from "../../shown-hints.js";
import { firstPrompt, sessionTitle } from "../../title.js";
import { decideAssistantsShown, indexTreeNodes } from "../../tree-layout.js";
import { reportedTotals } from "../../usage.js";
import { ContextPanel, messagesOf } from "./context-panel.js";
import { Conversation } from "./conversation.js";
import { readSessionData, readViewOptions, type SessionData, type ViewOptions } from "./data.js";
import { el } from "./dom.js";
import { formatTime } from "./format.js";
import { Search } from "./search.js";
import { Sidebar } from "./sidebar.js";
import { splitter } from "./splitter.js";

type Theme = "light" | "dark";

/** The session as the page holds it. */
interface Model {
	readonly tree: SessionTree;
	readonly roots: SessionTreeNode[];
	readonly nodes: Map<string, SessionTreeNode>;
	/** The leaf the page opened with. */
	readonly initialLeaf: string | null;
}

/** A selection: the end of the path shown, and the entry selected on it. */
export interface Selection {
	leafId: string | null;
	selectedId: string | null;
}

const root = document.documentElement;

/** Sets the theme from the system's preference, and follows it until the user picks one. */
function initTheme(): { toggle(): void } {
	const query = window.matchMedia("(prefers-color-scheme: dark)");
	let chosen: Theme | undefined;
	const apply = (theme: Theme) => root.setAttribute("data-theme", theme);
	apply(query.matches ? "dark" : "light");
	query.addEventListener("change", () => {
		if (chosen === undefined) apply(query.matches ? "dark" : "light");
	});
	return {
		toggle() {
			chosen = root.getAttribute("data-theme") === "dark" ? "light" : "dark";
			apply(chosen);
		},
	};
}

/** The hash's selection, as given (not checked against the tree). */
function parseHash(hash: string): { leaf?: string; entry?: string } {
	const params = new URLSearchParams(hash.replace(/^#/, ""));
	const leaf = params.get("leaf");
	const entry = params.get("entry");
	return { ...(leaf ? { leaf } : {}), ...(entry ? { entry } : {}) };
}

/** The hash that stands for a selection. */
function hashOf(selection: Selection): string {
	const { leafId, selectedId } = selection;
	if (leafId === null) return "";
	if (selectedId === null || selectedId === leafId) return `#leaf=${encodeURIComponent(leafId)}`;
	return `#leaf=${encodeURIComponent(leafId)}&entry=${encodeURIComponent(selectedId)}`;
}

/**
 * What a page served by `session-tree serve` gives {@link boot} (live.ts): the data to show
 * instead of the embedded one (after an append), a signal that removes the page's listeners
 * (before it is built again), tools for the top bar, and a callback of each selection.
 */
export interface BootOptions {
	data?: SessionData;
	view?: ViewOptions;
	signal?: AbortSignal;
	tools?: readonly HTMLElement[];
	onSelection?: (selection: Selection) => void;
}

/** The theme, set up once: a page built again keeps the one the user chose. */
let pageTheme: { toggle(): void } | undefined;

/** Starts the page; `data-ready="true"` is set on `<html>` when the first render is done. */
export async function boot(options: BootOptions = {}): Promise<void> {
	pageTheme ??= initTheme();
	const theme = pageTheme;
	const signal = options.signal;
	const view = options.view ?? readViewOptions();
	const data = options.data ?? (await readSessionData());
	const tree = data.load.tree;
	const roots = tree.getTree();
	const nodes = indexTreeNodes(roots);
	// Which assistant messages pi's filter shows, as the export's hints say, else read from
	// their bytes: the sidebar's first layout parses no body but those of the rows it draws.
	if (view.shown !== undefined) takeShownHints(tree.nodesInOrder(), view.shown);
	decideAssistantsShown(roots);
	const initialLeaf = view.leafId !== null && tree.has(view.leafId) ? view.leafId : tree.getLeafId();
	const model: Model = { tree, roots, nodes, initialLeaf };
	performance.mark("session-tree:indexed");
	const header = tree.header;

	let selection: Selection = { leafId: null, selectedId: null };
	/** Ids on the path of the initial leaf: a path through an entry prefers it. */
	const initialPath = new Set(initialLeaf === null ? [] : tree.getPath(initialLeaf).map((node) => node.id));

	const go = (next: Selection) => {
		const hash = hashOf(next);
		if (hash === "" || hash === window.location.hash) apply(next, "center");
		else window.location.hash = hash;
	};
	const goLeaf = (id: string) => go({ leafId: id, selectedId: id });
	const goEntry = (id: string) => go(throughEntry(id));

	/** The selection of an entry: on the current path it stays; else the path through it. */
	const throughEntry = (id: string): Selection => {
		if (conversation.indexOf(id) !== undefined) return { leafId: selection.leafId, selectedId: id };
		return { leafId: pathEndThrough(model, id, initialPath), selectedId: id };
	};

	const sidebar = new Sidebar({ roots, nodes }, goLeaf);
	const conversation = new Conversation(
		{ label: (id) => tree.getLabel(id), thinkingOpen: false, outputOpen: false },
		goEntry,
	);
	const context = new ContextPanel(goEntry);
	const search = new Search(tree.nodesInOrder(), goLeaf);

	/** Shows a selection. */
	const apply = (next: Selection, scroll: "center" | "nearest" | "end") => {
		const leafChanged = next.leafId !== selection.leafId || conversation.entries.length === 0;
		const changed = leafChanged || next.selectedId !== selection.selectedId;
		selection = next;
		const started = performance.now();
		// Every pane is written before anything is scrolled: a scroll lays the page out, and a
		// layout read between two panes' writes lays it out again (a leaf change of the bench's
		// 100,000-entry page laid out three times, 30–40 ms). The sidebar goes first, as it reads
		// where its list is scrolled before it writes.
		sidebar.setSelection(next.leafId, next.selectedId);
		const sidebarDone = performance.now();
		// The path as the tree's own nodes: the context panel reads them as steps (their type and
		// role without a copy per entry), the conversation their entries.
		let path: readonly TreeNode[] | undefined;
		if (leafChanged) {
			path = next.leafId === null ? [] : tree.getPath(next.leafId);
			conversation.setPath(path, next.selectedId);
		} else if (changed) conversation.mark(next.selectedId);
		const conversationDone = performance.now();
		if (changed || leafChanged) context.show(contextPath(next.selectedId, path));
		const contextDone = performance.now();
		// The path's last entry at the bottom, when it is the one selected on a new path.
		if (leafChanged || changed)
			conversation.scrollToSelected(leafChanged && next.selectedId === next.leafId ? "end" : scroll);
		sidebar.applyScroll();
		measure("session-tree:sidebar", started, sidebarDone);
		measure("session-tree:conversation", sidebarDone, conversationDone);
		measure("session-tree:context", conversationDone, contextDone);
		measure("session-tree:scroll", contextDone, performance.now());
		options.onSelection?.(next);
	};

	/**
	 * The root-to-entry path of the selected entry for the context panel: the slice of the path
	 * just read when the entry is on it (no second walk to the root), else read.
	 */
	const contextPath = (id: string | null, path: readonly TreeNode[] | undefined): readonly PathStep[] => {
		if (id === null) return [];
		if (path !== undefined) {
			if (path.at(-1)?.id === id) return path;
			const at = conversation.indexOf(id);
			if (at !== undefined && path[at]?.id === id) return path.slice(0, at + 1);
		}
		return tree.getPath(id);
	};

	/** The selection a hash asks for, or undefined when it names no entry. */
	const fromHash = (): Selection | undefined => {
		const { leaf, entry } = parseHash(window.location.hash);
		if (leaf !== undefined && tree.has(leaf)) {
			const onPath = entry !== undefined && tree.has(entry) && tree.getPath(leaf).some((node) => node.id === entry);
			return { leafId: leaf, selectedId: onPath ? (entry as string) : leaf };
		}
		if (entry !== undefined && tree.has(entry)) return throughEntry(entry);
		return undefined;
	};
	const initial = (): Selection => ({ leafId: initialLeaf, selectedId: initialLeaf });

	// ---- the page ---------------------------------------------------------------------------

	const name = tree.getSessionName();
	const themeButton = el("button", {
		class: "theme-toggle",
		attrs: {
			type: "button",
			"data-role": "theme-toggle",
			title: "Light or dark",
			"aria-label": "Toggle light or dark theme",
		},
		text: "◐",
	});
	themeButton.addEventListener("click", () => theme.toggle());
	const download = el("a", {
		class: "download",
		attrs: {
			"data-role": "download",
			// A Blob URL is made when the link is first pointed at, focused or followed (below).
			href: "#download",
			download: `${header.id}.jsonl`,
			title: "The session's records as a JSONL file (redacted unless exported with --no-redact)",
		},
		text: "Download JSONL",
	});
	let jsonlUrl: string | undefined;
	const makeUrl = () => {
		if (jsonlUrl !== undefined) return;
		jsonlUrl = URL.createObjectURL(new Blob(data.jsonl as BlobPart[], { type: "application/x-ndjson" }));
		download.setAttribute("href", jsonlUrl);
	};
	// A click's default action follows the href as it is after the listeners ran.
	for (const type of ["pointerdown", "focus", "contextmenu", "click"])
		download.addEventListener(type, makeUrl, { signal });
	const facts: string[] = [
		`id ${header.id}`,
		`cwd ${header.cwd}`,
		`created ${formatTime(header.timestamp)}`,
		`version ${String(header.version ?? 3)}${view.fileVersion < 3 ? ` (stored as v${view.fileVersion})` : ""}`,
		countOf(tree.size, "entry"),
	];
	const problems = data.load.problems.length + data.unreadable;
	if (problems > 0) facts.push(`${countOf(problems, "problem")} worked around`);
	const help = el(
		"details",
		{ class: "help" },
		el("summary", { text: "Keys" }),
		el(
			"dl",
			{},
			...[
				["↑ ↓  j k", "previous / next entry on the path"],
				["[  ]", "previous / next branch point on the path"],
				["/", "search"],
				["t", "open or close all thinking"],
				["o", "expand or collapse all tool output"],
				["Esc", "clear the search"],
			].flatMap(([keys, what]) => [el("dt", { text: keys }), el("dd", { text: what })]),
		),
	);
	const top = el(
		"header",
		{ class: "topbar" },
		el(
			"div",
			{ class: "title" },
			el("h1", { text: sessionTitle({ name, prompt: firstPrompt(userMessages(tree)), sessionId: header.id }) }),
			el("p", { class: "facts" }, ...facts.map((fact) => el("span", { text: fact }))),
		),
		el("div", { class: "tools" }, search.input, download, ...(options.tools ?? []), themeButton, help),
	);
	sidebar.element.prepend(search.results);
	// The filter that shows the tree's custom entries shows them in the conversation too.
	sidebar.select.addEventListener("change", () => conversation.setShowBookkeeping(sidebar.select.value === "all"));
	const app = document.getElementById("app") ?? document.body.appendChild(el("div", { attrs: { id: "app" } }));
	const panes = el("div", { class: "panes" });
	panes.append(
		sidebar.element,
		splitter(panes, sidebar.element, context.element),
		conversation.element,
		context.element,
	);
	app.replaceChildren(top, panes);
	app.classList.remove("loading");

	apply(fromHash() ?? initial(), "end");
	performance.mark("session-tree:rendered");
	readBodies(tree, signal, () => {
		context.bodiesRead(reportedTotals(messagesOf(tree.getEntries())));
		performance.mark("session-tree:bodies");
	});

	window.addEventListener(
		"hashchange",
		() => apply(fromHash() ?? initial(), window.location.hash.includes("entry=") ? "center" : "end"),
		{ signal },
	);
	let thinkingOpen = false;
	let outputOpen = false;
	const onKey = (event: KeyboardEvent) => {
		if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
		const target = event.target;
		if (target instanceof HTMLElement && target.closest("input, select, textarea, [contenteditable]")) return;
		const path = conversation.entries;
		const at = selection.selectedId === null ? -1 : (conversation.indexOf(selection.selectedId) ?? -1);
		const move = (index: number) => {
			// Over the entries the conversation hides (bookkeeping), in the direction of the move.
			const step = index < at ? -1 : 1;
			while (conversation.isHidden(index) && index + step >= 0 && index + step < path.length) index += step;
			const entry = path[index];
			if (!entry) return;
			event.preventDefault();
			go({ leafId: selection.leafId, selectedId: entry.id });
		};
		switch (event.key) {
			case "ArrowDown":
			case "j":
				move(at + 1);
				break;
			case "ArrowUp":
			case "k":
				move(at < 0 ? path.length - 1 : at - 1);
				break;
			case "[":
			case "]": {
				const step = event.key === "]" ? 1 : -1;
				for (let i = at + step; i >= 0 && i < path.length; i += step) {
					const node = nodes.get((path[i] as PathStep).id);
					if (node && node.children.length > 1) {
						move(i);
						break;
					}
				}
				break;
			}
			case "/":
				event.preventDefault();
				search.focus();
				break;
			case "t":
				thinkingOpen = !thinkingOpen;
				conversation.setThinkingOpen(thinkingOpen);
				break;
			case "o":
				outputOpen = !outputOpen;
				conversation.setOutputOpen(outputOpen);
				break;
			case "Escape":
				if (search.open) search.clear();
				help.open = false;
				break;
			default:
				return;
		}
	};
	document.addEventListener("keydown", onKey, { signal });
	root.setAttribute("data-ready", "true");
	performance.mark("session-tree:ready");
}

/** Records how long a part of a selection took (`performance.getEntriesByName`), for `npm run bench`. */
function measure(name: string, start: number, end: number): void {
	performance.clearMeasures(name);
	performance.measure(name, { start, end });
}

/**
 * The leaf of the path through an entry: from it down, at each fork the child towards the
 * initial leaf if there is one, else the newest (the last in display order). Iterative.
 */
function pathEndThrough(model: Model, id: string, initialPath: ReadonlySet<string>): string {
	let node = model.nodes.get(id);
	let end = id;
	while (node && node.children.length > 0) {
		const children = node.children;
		const next = children.find((child) => initialPath.has(viewId(child))) ?? children[children.length - 1];
		if (!next) break;
		end = viewId(next);
		node = next;
	}
	return end;
}

/** The user messages in file order, parsing no other body (their roles are known from the envelopes). */
function* userMessages(tree: SessionTree): Generator<SessionEntry> {
	for (const node of tree.nodesInOrder()) {
		if (node.type === "message" && (node.role === undefined || node.role === "user")) yield node.entry;
	}
}

/** Entries of a session whose bodies are parsed at once; past this, in the background (see {@link readBodies}). */
const BODIES_AT_ONCE = 20_000;
/** Bodies parsed per task in the background: 15–30 ms of a 125 MB session's in Chromium. */
const BODIES_PER_TASK = 1_000;

/**
 * Parses every body the loader left unparsed, then calls `done` (the usage totals add up every
 * message). In a session of up to {@link BODIES_AT_ONCE} entries at once: its page is drawn
 * with its totals. A larger one's in tasks of {@link BODIES_PER_TASK} after the first render,
 * so the page is drawn and takes input before them (a 125 MB session's bodies took 2.3–2.7 s),
 * and so does a served page drawn again for an append while they are read (parsing the rest
 * at once there held the new entry back).
 */
function readBodies(tree: SessionTree, signal: AbortSignal | undefined, done: () => void): void {
	const nodes = tree.nodesInOrder().filter((node) => !node.loaded);
	if (tree.size <= BODIES_AT_ONCE) {
		TreeNode.load(nodes);
		done();
		return;
	}
	let at = 0;
	const task = () => {
		if (signal?.aborted) return;
		const stop = Math.min(nodes.length, at + BODIES_PER_TASK);
		TreeNode.load(nodes.slice(at, stop));
		at = stop;
		if (at < nodes.length) setTimeout(task, 0);
		else done();
	};
	setTimeout(task, 0);
}
