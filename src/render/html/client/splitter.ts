/**
 * The splitter between the tree and the conversation: a `role="separator"` that widens or
 * narrows the tree pane, dragged with the mouse (or a pen, or a finger: pointer events) or moved
 * with the keys (← → by 16 px, with Shift by 64, Home and End to the narrowest and widest). The
 * width is the CSS variable `--tree-width` of the panes (set through the CSSOM, which the page's
 * Content-Security-Policy allows; there are no inline handlers or style attributes), and is
 * remembered for the browser tab in `sessionStorage` when the page may use it (a `file:` page
 * in some browsers may not: then each load starts at the default).
 */

import { el } from "./dom.js";

/** Where the width is remembered (`sessionStorage`). */
const STORAGE_KEY = "session-tree:tree-width";
/** The narrowest tree pane, in pixels. */
export const MIN_TREE_WIDTH = 180;
/** Room the conversation keeps at the widest tree pane, in pixels. */
const MIN_CONVERSATION = 320;
/** Pixels a key moves the splitter (with Shift: {@link BIG_STEP}). */
const STEP = 16;
const BIG_STEP = 64;

function remembered(): number | undefined {
	try {
		const value = Number(window.sessionStorage.getItem(STORAGE_KEY));
		return Number.isFinite(value) && value > 0 ? value : undefined;
	} catch {
		return undefined;
	}
}

function remember(width: number): void {
	try {
		window.sessionStorage.setItem(STORAGE_KEY, String(Math.round(width)));
	} catch {
		// Storage refused (a file: page, private mode): the width lasts as long as the page.
	}
}

/**
 * The splitter of `panes` (the grid whose first column is `tree`); `context` is the pane whose
 * width the conversation cannot take when the tree widens.
 */
export function splitter(panes: HTMLElement, tree: HTMLElement, context: HTMLElement): HTMLElement {
	const node = el("div", {
		class: "splitter",
		attrs: {
			role: "separator",
			"aria-orientation": "vertical",
			"aria-label": "Resize the tree pane (← → keys, Home, End)",
			"data-role": "splitter",
			tabindex: "0",
			title: "Drag to widen or narrow the tree (or focus it and use ← →)",
		},
	});
	const widest = () => Math.max(MIN_TREE_WIDTH, panes.clientWidth - context.offsetWidth - MIN_CONVERSATION);
	const set = (width: number, save: boolean) => {
		const clamped = Math.round(Math.min(widest(), Math.max(MIN_TREE_WIDTH, width)));
		panes.style.setProperty("--tree-width", `${clamped}px`);
		node.setAttribute("aria-valuenow", String(clamped));
		node.setAttribute("aria-valuemin", String(MIN_TREE_WIDTH));
		node.setAttribute("aria-valuemax", String(Math.round(widest())));
		if (save) remember(clamped);
	};
	const current = () => tree.getBoundingClientRect().width;

	let drag: { x: number; width: number } | undefined;
	node.addEventListener("pointerdown", (event) => {
		if (event.button !== 0) return;
		event.preventDefault();
		node.setPointerCapture(event.pointerId);
		drag = { x: event.clientX, width: current() };
		node.classList.add("dragging");
	});
	node.addEventListener("pointermove", (event) => {
		if (drag) set(drag.width + event.clientX - drag.x, false);
	});
	const end = (event: PointerEvent) => {
		if (!drag) return;
		drag = undefined;
		node.classList.remove("dragging");
		if (node.hasPointerCapture(event.pointerId)) node.releasePointerCapture(event.pointerId);
		set(current(), true);
	};
	node.addEventListener("pointerup", end);
	node.addEventListener("pointercancel", end);
	node.addEventListener("keydown", (event) => {
		const step = event.shiftKey ? BIG_STEP : STEP;
		let width: number;
		if (event.key === "ArrowLeft") width = current() - step;
		else if (event.key === "ArrowRight") width = current() + step;
		else if (event.key === "Home") width = MIN_TREE_WIDTH;
		else if (event.key === "End") width = widest();
		else return;
		// Handled here: the page's own keys (↑ ↓ j k …) are not for the splitter.
		event.preventDefault();
		event.stopPropagation();
		set(width, true);
	});
	// A width remembered from another window size stays within this one.
	window.addEventListener("resize", () => {
		if (panes.style.getPropertyValue("--tree-width") !== "") set(current(), false);
	});
	const saved = remembered();
	// After the first layout: the limits need the panes' widths.
	requestAnimationFrame(() => {
		if (saved !== undefined) set(saved, false);
		else {
			node.setAttribute("aria-valuenow", String(Math.round(current())));
			node.setAttribute("aria-valuemin", String(MIN_TREE_WIDTH));
			node.setAttribute("aria-valuemax", String(Math.round(widest())));
		}
	});
	return node;
}
