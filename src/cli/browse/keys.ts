/**
 * The keys of `session-tree browse`: what each does (an action the app applies to the model)
 * and the help `?` shows. Raw terminal input is read by pi-tui's key parser, which knows the
 * sequences of xterm, tmux, the Kitty keyboard protocol and modifyOtherKeys.
 */

// The module itself, not the package's index: that would load every pi-tui component.
import { parseKey } from "@mariozechner/pi-tui/dist/keys.js";

/** What a key asks for. */
export type BrowseAction =
	| { readonly type: "move"; readonly by: 1 | -1 }
	| { readonly type: "page"; readonly by: 1 | -1 }
	| { readonly type: "first" }
	| { readonly type: "last" }
	| { readonly type: "fold" }
	| { readonly type: "unfold" }
	| { readonly type: "branch"; readonly by: 1 | -1 }
	| { readonly type: "search" }
	| { readonly type: "match"; readonly by: 1 | -1 }
	| { readonly type: "filter" }
	| { readonly type: "label" }
	| { readonly type: "choose" }
	| { readonly type: "resize"; readonly by: 1 | -1 }
	| { readonly type: "help" }
	| { readonly type: "quit" };

/** Actions by key name (as pi-tui's `parseKey` names keys). */
const KEYS: Readonly<Record<string, BrowseAction>> = {
	up: { type: "move", by: -1 },
	k: { type: "move", by: -1 },
	down: { type: "move", by: 1 },
	j: { type: "move", by: 1 },
	pageUp: { type: "page", by: -1 },
	pageDown: { type: "page", by: 1 },
	home: { type: "first" },
	g: { type: "first" },
	end: { type: "last" },
	G: { type: "last" },
	"shift+g": { type: "last" },
	left: { type: "fold" },
	right: { type: "unfold" },
	"[": { type: "branch", by: -1 },
	"]": { type: "branch", by: 1 },
	"/": { type: "search" },
	n: { type: "match", by: 1 },
	N: { type: "match", by: -1 },
	"shift+n": { type: "match", by: -1 },
	f: { type: "filter" },
	l: { type: "label" },
	enter: { type: "choose" },
	"+": { type: "resize", by: 1 },
	"=": { type: "resize", by: 1 },
	"shift+=": { type: "resize", by: 1 },
	"-": { type: "resize", by: -1 },
	"?": { type: "help" },
	"shift+/": { type: "help" },
	q: { type: "quit" },
	escape: { type: "quit" },
	"ctrl+c": { type: "quit" },
};

/** The action of one key press (raw terminal input), if the key has one. */
export function keyAction(data: string): BrowseAction | undefined {
	const key = parseKey(data) ?? (data.length === 1 ? data : undefined);
	return key === undefined ? undefined : KEYS[key];
}

/** The keys `?` lists: keys, then what they do. */
export const KEY_HELP: ReadonlyArray<readonly [string, string]> = [
	["↑ ↓  k j", "move the selection"],
	["PgUp PgDn", "a page up or down"],
	["g G  Home End", "first or last row"],
	["←", "fold the selected entry's branch (or go to the entry above it)"],
	["→", "unfold it (or go to its first child)"],
	["[ ]", "previous or next branch point"],
	["/", "search (Enter finds, Esc cancels)"],
	["n N", "next or previous match"],
	["+ -", "more or fewer rows for the tree (the preview gets the rest)"],
	["f", "cycle the filters: default, no-tools, user-only, labeled-only, all"],
	["l", "set or clear the label (empty clears)"],
	["Enter", "choose: a user message gives the leaf to its parent (its text is printed"],
	["", "when the screen closes, to edit); any other entry becomes the leaf"],
	["q  Esc  Ctrl-C", "leave without a change"],
	["?", "this list (any key closes it)"],
];

/** The key hints of the footer, most useful first (cut at the terminal's width). */
export function footerHints(readOnly: boolean): string {
	return readOnly
		? "? keys  q quit  ←→ fold  / search  f filter"
		: "? keys  q quit  ⏎ choose  ←→ fold  / search  f filter  l label";
}
