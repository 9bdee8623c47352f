/**
 * What `session-tree browse` does before its screen library is loaded: the first model of the
 * tree (the rows around the leaf for a large session, else the whole layout) and its frame,
 * written to the terminal as pi-tui writes one. pi-tui's modules cost more to load than any other
 * part of the browser (80 ms of a 2-core machine: its width rules make a Unicode emoji pattern
 * and a grapheme segmenter as they load), so the first frame comes before them (issue 28): the
 * screen (screen.ts, pi-tui) is loaded after it, starts with the same model and draws the same
 * lines over it, then takes the keys, which the terminal held for it meanwhile.
 *
 * Nothing here imports pi-tui (a test holds the bundle to it: test/cli/bundle.test.ts).
 */

import type { SessionTreeNode } from "../../core/types.js";
import type { TreeFilter } from "../../render/tree-layout.js";
import { layoutWindow } from "../../render/tree-window.js";
import { contextSize } from "../../render/usage.js";
import type { Session } from "../../session.js";
import type { TerminalDevice } from "./device.js";
import { BrowseModel, type BrowseSource } from "./model.js";
import { type ContextSize, paneHeights, renderScreen, type ScreenFacts } from "./view.js";

/**
 * From this many entries the first frame shows the rows around the leaf, made alone when they
 * can be (render/tree-window.ts), and the whole layout follows it (about a second for 100,000
 * entries); a smaller session is laid out whole before its first frame (a few milliseconds).
 */
const WINDOW_FIRST_ENTRIES = 5_000;

/** Begins and ends a synchronized update (the terminal shows the frame whole), as pi-tui's frames. */
const SYNC_BEGIN = "\u001b[?2026h";
const SYNC_END = "\u001b[?2026l";
/** The cursor hidden; to the top left corner. */
const HIDE_CURSOR = "\u001b[?25l";
const HOME = "\u001b[H";

/**
 * The session's tree as the model reads it (asked again after every write). Its views are made
 * when first read (`getTree`: 40 ms for 100,000 entries), so not before the first frame of a large
 * session, whose rows around the leaf are made from the tree's nodes (render/tree-window.ts).
 */
export function sourceOf(session: Session): BrowseSource {
	const index = session.getTreeIndex();
	let roots: readonly SessionTreeNode[] | undefined;
	return {
		get roots() {
			roots ??= index.getTree();
			return roots;
		},
		leafId: session.getLeafId(),
		parentOf: (id) => index.getParentId(id),
	};
}

/** The size of the model's context at an entry. */
export function contextAt(session: Session, id: string): ContextSize {
	const { messages } = session.buildSessionContext(id);
	return contextSize(messages);
}

/** How the browser ended: left without a change, or an entry chosen with Enter. */
export type BrowseOutcome = { readonly kind: "quit" } | { readonly kind: "choose"; readonly id: string };

/** What every frame says of the session (screen.ts adds the state of the screen). */
export interface FrameSettings {
	readonly color: boolean;
	/** The session's name or location, for the header. */
	readonly title: string;
	/** Why the session cannot be written (Enter and `l` are off then). */
	readonly readOnly?: string | undefined;
}

/** How to browse. */
export interface BrowseOptions extends FrameSettings {
	readonly filter: TreeFilter;
	/** The terminal to draw on (device.ts): stdin and stdout, or `/dev/tty`. */
	readonly device: TerminalDevice;
}

/** The facts of every frame of `session` (the header's title and count, the footer's read-only). */
export function sessionFacts(session: Session, settings: FrameSettings): ScreenFacts {
	return {
		title: settings.title,
		entryCount: session.entryCount,
		color: settings.color,
		...(settings.readOnly !== undefined ? { readOnly: settings.readOnly } : {}),
	};
}

/** The model the browser starts with, and the tree it was made of (for the whole layout after it). */
export interface FirstModel {
	readonly model: BrowseModel;
	readonly source: BrowseSource;
}

/**
 * The rows around the leaf of a large session (a partial model: the whole layout comes after
 * its frame), or undefined when the session is small or they cannot be made alone.
 */
function windowModel(
	session: Session,
	source: BrowseSource,
	filter: TreeFilter,
	height: number,
): BrowseModel | undefined {
	const leafId = source.leafId;
	if (leafId === null || session.entryCount < WINDOW_FIRST_ENTRIES) return undefined;
	const window = layoutWindow(session.getTreeIndex(), { leafId, filter }, height, height);
	if (!window) return undefined;
	const model = BrowseModel.around(source, filter, window);
	model.center(height);
	return model;
}

/** The whole layout of `source`, the leaf's row in the middle of a tree pane of `height` rows. */
export function wholeModel(source: BrowseSource, filter: TreeFilter, height: number): BrowseModel {
	// No body is parsed for the layout: pi's filters read the assistant messages' bytes
	// (decideAssistantsShown); the search texts read the bodies in slices after the first frame.
	const model = new BrowseModel(source, filter);
	model.center(height);
	return model;
}

/**
 * The first model of `session` (see {@link windowModel}, else the whole layout), its frame
 * written on `write` before it is returned. A large session laid out whole shows a frame that
 * says it is being read first.
 */
export function drawFirstFrame(
	session: Session,
	settings: FrameSettings & { readonly filter: TreeFilter },
	size: { readonly columns: number; readonly rows: number },
	write: (text: string) => void,
): FirstModel {
	const facts = sessionFacts(session, settings);
	const height = paneHeights(size.rows).tree;
	// One view of the tree for the whole layout after the first frame (made when first read): no
	// write comes between the two (keys wait for the whole layout), and each `getTree` of a
	// 100,000-entry session makes its 100,000 views again (20–25 ms).
	const source = sourceOf(session);
	let model = windowModel(session, source, settings.filter, height);
	if (model === undefined) {
		if (session.entryCount >= WINDOW_FIRST_ENTRIES) {
			write(frameText(renderScreen(undefined, { ...facts, loading: true }, size.columns, size.rows)));
		}
		model = wholeModel(source, settings.filter, height);
	}
	// The context of the selection is computed once it rests, after the screen started.
	write(frameText(renderScreen(model, { ...facts, context: "pending" }, size.columns, size.rows)));
	return { model, source };
}

/**
 * A frame as pi-tui's first one is written: the lines from the top left corner in one
 * synchronized update, the cursor hidden; then back to the corner, where pi-tui's own first
 * frame starts (it writes its lines from the cursor, the same lines over these). The lines are
 * as wide as the screen by the view's measure (view.ts fits each).
 */
function frameText(lines: readonly string[]): string {
	return `${HIDE_CURSOR}${SYNC_BEGIN}${HOME}${lines.join("\r\n")}${SYNC_END}${HOME}`;
}
