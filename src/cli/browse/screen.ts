/**
 * The screen of `session-tree browse` once pi-tui is loaded (after the first frame,
 * first-frame.ts): pi's TUI library (`@mariozechner/pi-tui`, the one pi draws `/tree` with) runs
 * it: raw input split into keys, differential redraws in synchronized output, redraws on resize,
 * the one-line input of search and labels. This module wires it to the model (model.ts), the
 * screen (view.ts) and the session: labels are written through the session at once; the entry
 * chosen with Enter is handed back (app.ts).
 */

// pi-tui's modules themselves, not the package's index: that would load every component.
import { Input } from "@mariozechner/pi-tui/dist/components/input.js";
import { type Component, TUI } from "@mariozechner/pi-tui/dist/tui.js";
import { truncateToWidth, visibleWidth } from "@mariozechner/pi-tui/dist/utils.js";
import { sanitize } from "../../render/preview.js";
import type { Session } from "../../session.js";
import type { DeviceTerminal } from "./device.js";
import {
	type BrowseOptions,
	type BrowseOutcome,
	contextAt,
	type FirstModel,
	sessionFacts,
	sourceOf,
	wholeModel,
} from "./first-frame.js";
import { type BrowseAction, keyAction } from "./keys.js";
import { type BrowseModel, type BrowseSource, SearchTexts } from "./model.js";
import { type ContextSize, paneHeights, renderScreen, type ScreenFacts } from "./view.js";

/** Contexts kept for entries visited (recomputed when evicted). */
const CONTEXT_CACHE = 256;
/** How long the selection must rest before its context is computed (held keys skip it). */
const CONTEXT_DELAY_MS = 30;
/** The longest slice of work done between two keys while the search texts are made. */
const SLICE_MS = 1;
/** How long after the first frame the search texts start to be made. */
const SEARCH_TEXTS_DELAY_MS = 20;
/** How long after a key the search texts wait, so that the key's frame is drawn first. */
const KEY_PAUSE_MS = 50;

/** An input line open in the footer. */
interface OpenInput {
	readonly prompt: string;
	readonly field: Input;
}

/** The one component on the screen: draws the model and turns keys into actions. */
class BrowseScreen implements Component {
	private model: BrowseModel;
	private help = false;
	private status: string | undefined;
	private input: OpenInput | undefined;
	private query = "";
	private readonly contexts = new Map<string, ContextSize | { error: string }>();
	private contextTimer: NodeJS.Timeout | undefined;
	/** The next slice of the search texts, and the wait before the first (see fillSearchTexts). */
	private textsSlice: NodeJS.Immediate | undefined;
	private textsTimer: NodeJS.Timeout | undefined;
	/** When the last key came (the search texts wait after one). */
	private lastKeyAt = 0;
	/** The whole layout is under way (after the rows around the leaf were drawn). */
	private layingOut = false;
	/** Keys pressed before the whole layout was made (taken once it is). */
	private readonly pendingKeys: string[] = [];
	/** The tree the rows around the leaf were made of, for the whole layout after them. */
	private aroundSource: BrowseSource | undefined;
	/** Rows moved from the preview to the tree with `+` and `-`. */
	private treeShift = 0;

	/**
	 * @param first the model of the first frame (first-frame.ts): the rows around the leaf, laid
	 * out whole after this screen's first frame (see render), or the whole layout already
	 */
	constructor(
		private readonly session: Session,
		private readonly options: BrowseOptions,
		private readonly tui: TUI,
		first: FirstModel,
		private readonly finish: (outcome: BrowseOutcome) => void,
		private readonly fail: (error: unknown) => void,
	) {
		this.model = first.model;
		if (first.model.partial) this.aroundSource = first.source;
		else this.adopt(first.model, first.source);
	}

	/** Lays the whole tree out into the model, then takes the keys pressed meanwhile. */
	private loadWhole(source: BrowseSource): void {
		this.adopt(
			wholeModel(source, this.options.filter, paneHeights(this.tui.terminal.rows, this.treeShift).tree),
			source,
		);
		this.tui.requestRender();
		const keys = this.pendingKeys.splice(0);
		for (const data of keys) this.handleInput(data);
	}

	/** Takes a whole layout as the model: its search texts are made after the next frame. */
	private adopt(model: BrowseModel, source: BrowseSource): void {
		model.searchTexts = new SearchTexts(source);
		this.model = model;
		this.selectionChanged();
		this.textsTimer = setTimeout(() => this.fillSearchTexts(model.searchTexts), SEARCH_TEXTS_DELAY_MS);
	}

	/** Makes the search texts a slice at a time, keys and frames going between the slices. */
	private fillSearchTexts(texts: SearchTexts | undefined): void {
		this.textsTimer = undefined;
		this.textsSlice = undefined;
		if (texts === undefined || texts.done) return;
		const sinceKey = performance.now() - this.lastKeyAt;
		if (sinceKey < KEY_PAUSE_MS) {
			this.textsTimer = setTimeout(() => this.fillSearchTexts(texts), KEY_PAUSE_MS - sinceKey);
			return;
		}
		const end = performance.now() + SLICE_MS;
		try {
			texts.fill(() => performance.now() >= end);
		} catch (error) {
			// A body that cannot be read (strict): the browse ends with the error, as before the first frame.
			this.fail(error);
			return;
		}
		this.textsSlice = setImmediate(() => this.fillSearchTexts(texts));
	}

	render(width: number): string[] {
		if (this.model.partial && !this.layingOut) {
			// The whole layout once the rows around the leaf are on the screen (again: pi-tui's
			// first frame draws over first-frame.ts's).
			this.layingOut = true;
			const source = this.aroundSource;
			this.aroundSource = undefined;
			// A new view only if the rows' one is gone (never expected), made outside the frame.
			this.later(() => this.loadWhole(source ?? sourceOf(this.session)));
		}
		// The facts of first-frame.ts's frame, and the screen's state.
		const facts: ScreenFacts = {
			...sessionFacts(this.session, this.options),
			...(this.help ? { help: true } : {}),
			...(this.status !== undefined ? { status: this.status } : {}),
			context: this.contextFacts(),
			...(this.treeShift !== 0 ? { treeShift: this.treeShift } : {}),
			...(this.input ? { input: this.inputFacts(this.input) } : {}),
		};
		const lines = renderScreen(this.model, facts, width, this.tui.terminal.rows);
		// pi-tui refuses a line wider than the terminal by its own measure; cut (never seen) to be safe.
		return lines.map((line) => (visibleWidth(line) > width ? truncateToWidth(line, width, "") : line));
	}

	invalidate(): void {}

	/** Runs `step` after this frame is written; an error ends the browse. */
	private later(step: () => void): void {
		setImmediate(() => {
			try {
				step();
			} catch (error) {
				this.fail(error);
			}
		});
	}

	private inputFacts(input: OpenInput): NonNullable<ScreenFacts["input"]> {
		return { prompt: input.prompt, line: (width) => input.field.render(width)[0] ?? "" };
	}

	private contextFacts(): NonNullable<ScreenFacts["context"]> {
		const id = this.model.selectedEntry()?.node.entry.id;
		return (id === undefined ? undefined : this.contexts.get(id)) ?? "pending";
	}

	/** Computes the context at the selection once it rests (only for the entry selected). */
	private selectionChanged(): void {
		const id = this.model.selectedEntry()?.node.entry.id;
		if (id === undefined || this.contexts.has(id)) return;
		if (this.contextTimer) clearTimeout(this.contextTimer);
		this.contextTimer = setTimeout(() => {
			this.contextTimer = undefined;
			if (this.model.selectedEntry()?.node.entry.id !== id) return;
			let size: ContextSize | { error: string };
			try {
				size = contextAt(this.session, id);
			} catch (error) {
				size = { error: error instanceof Error ? error.message : String(error) };
			}
			if (this.contexts.size >= CONTEXT_CACHE) {
				const oldest = this.contexts.keys().next().value;
				if (oldest !== undefined) this.contexts.delete(oldest);
			}
			this.contexts.set(id, size);
			this.tui.requestRender();
		}, CONTEXT_DELAY_MS);
	}

	handleInput(data: string): void {
		this.lastKeyAt = performance.now();
		if (this.input) {
			this.input.field.handleInput(data);
			return;
		}
		this.status = undefined;
		if (this.help) {
			this.help = false;
			return;
		}
		const model = this.model;
		if (model.partial) {
			const action = keyAction(data);
			if (action?.type === "quit") this.leave({ kind: "quit" });
			// Keys pressed while the tree is read and laid out are taken once the whole layout is made.
			else this.pendingKeys.push(data);
			return;
		}
		const action = keyAction(data);
		if (action) this.apply(model, action);
		this.selectionChanged();
	}

	private apply(model: BrowseModel, action: BrowseAction): void {
		const rows = this.tui.terminal.rows;
		const page = Math.max(1, paneHeights(rows, this.treeShift).tree - 1);
		switch (action.type) {
			case "move":
				model.moveBy(action.by);
				return;
			case "page":
				model.moveBy(action.by * page);
				return;
			case "first":
				model.first();
				return;
			case "last":
				model.last();
				return;
			case "fold":
				model.foldLeft();
				return;
			case "unfold":
				model.unfoldRight();
				return;
			case "branch":
				if (!model.branchPoint(action.by)) this.status = `no branch point ${action.by > 0 ? "below" : "above"}`;
				return;
			case "search":
				this.openInput("search", "", (query) => {
					if (query !== "") this.query = query;
					this.findMatch(model, 1);
				});
				return;
			case "match":
				this.findMatch(model, action.by);
				return;
			case "filter":
				model.cycleFilter();
				return;
			case "label":
				this.label(model);
				return;
			case "choose":
				this.choose(model);
				return;
			case "resize": {
				// Only as far as the panes move: a shift past the limit would have to be undone key by key.
				const next = this.treeShift + action.by;
				if (paneHeights(rows, next).tree !== paneHeights(rows, this.treeShift).tree) this.treeShift = next;
				else this.status = action.by > 0 ? "the tree has all the rows it can get" : "the tree has its fewest rows";
				return;
			}
			case "help":
				this.help = true;
				return;
			case "quit":
				this.leave({ kind: "quit" });
				return;
		}
	}

	private findMatch(model: BrowseModel, dir: 1 | -1): void {
		if (this.query === "") {
			this.status = "nothing to search for yet: press /";
			return;
		}
		if (!model.search(this.query, dir)) this.status = `no match for ${JSON.stringify(this.query)} in the rows shown`;
	}

	private openInput(prompt: string, value: string, submit: (value: string) => void): void {
		const field = new Input();
		field.setValue(value);
		// The cursor after the text given (Ctrl-E: the input's "end of line").
		field.handleInput("\u0005");
		field.onSubmit = (text) => {
			this.input = undefined;
			submit(text);
			this.selectionChanged();
		};
		field.onEscape = () => {
			this.input = undefined;
		};
		this.input = { prompt, field };
	}

	private label(model: BrowseModel): void {
		if (this.options.readOnly !== undefined) {
			this.status = `read-only: ${this.options.readOnly}`;
			return;
		}
		const row = model.selectedEntry();
		if (!row) {
			this.status = "select an entry to label";
			return;
		}
		const id = row.node.entry.id;
		// The input draws its text as it is: the label is given as the views show it.
		this.openInput(`label ${id} (empty clears)`, sanitize(row.node.label ?? ""), (text) => {
			this.status = "writing the label…";
			this.session.appendLabelChange(id, text === "" ? undefined : text).then(
				() => {
					model.setSource(sourceOf(this.session));
					this.status = text === "" ? `label of ${id} cleared` : `label of ${id} set`;
					this.tui.requestRender();
				},
				(error: unknown) => {
					this.status = `label not written: ${error instanceof Error ? error.message : String(error)}`;
					this.tui.requestRender();
				},
			);
		});
	}

	private choose(model: BrowseModel): void {
		const row = model.selectedRow();
		if (row?.kind === "more") {
			model.unfoldRight();
			return;
		}
		if (row?.kind !== "entry") return;
		if (this.options.readOnly !== undefined) {
			this.status = `read-only: ${this.options.readOnly}`;
			return;
		}
		this.leave({ kind: "choose", id: row.node.entry.id });
	}

	private leave(outcome: BrowseOutcome): void {
		if (this.contextTimer) clearTimeout(this.contextTimer);
		this.stopFilling();
		this.finish(outcome);
	}

	/** Stops making the search texts (the browser is left). */
	private stopFilling(): void {
		if (this.textsTimer) clearTimeout(this.textsTimer);
		if (this.textsSlice) clearImmediate(this.textsSlice);
		this.textsTimer = undefined;
		this.textsSlice = undefined;
	}
}

/**
 * Starts the screen on `terminal` with the first frame's model: pi-tui draws its first frame
 * from the top left corner, over first-frame.ts's (the same lines), then takes the keys.
 * @returns the TUI, to stop when the browser ends
 */
export function runScreen(
	session: Session,
	options: BrowseOptions,
	terminal: DeviceTerminal,
	first: FirstModel,
	finish: (outcome: BrowseOutcome) => void,
	fail: (error: unknown) => void,
): TUI {
	const tui = new TUI(terminal);
	const screen = new BrowseScreen(session, options, tui, first, finish, fail);
	tui.addChild(screen);
	tui.setFocus(screen);
	tui.start();
	return tui;
}
