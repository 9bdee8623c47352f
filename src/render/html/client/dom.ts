/**
 * Building DOM nodes from data. Every piece of session content enters the page through
 * `textContent`, `Text` nodes or an attribute set with `setAttribute` (never as markup): this
 * module has no way to parse HTML, and the rest of the client uses only it and the DOM API.
 *
 * Text goes in through {@link textNode} (and {@link el}, {@link append}, which use it), where
 * each bidi control becomes a visible marker (`<U+202E>`, see `showBidiControls`): no name,
 * label or message can reorder what the page shows ("report\u202Efdp.exe" would read
 * "reportexe.pdf"). So do the attributes a reader sees (`title`, `aria-label`, `alt`,
 * `placeholder`); the others (ids in `data-*`) are data the page looks entries up by, and are
 * kept exact.
 */

import { showBidiControls } from "../../sanitize.js";

/** Attributes whose value the reader sees (as a tooltip, or read aloud). */
const SHOWN_ATTRIBUTES: ReadonlySet<string> = new Set(["title", "aria-label", "alt", "placeholder"]);

/** A Text node holding `value`, its bidi controls shown as markers. */
export function textNode(value: string): Text {
	return document.createTextNode(showBidiControls(value));
}

/** Sets an attribute; the value of one the reader sees has its bidi controls shown as markers. */
export function setAttr(node: Element, name: string, value: string): void {
	node.setAttribute(name, SHOWN_ATTRIBUTES.has(name) ? showBidiControls(value) : value);
}

/** What {@link el} appends: nodes, text (as a Text node), or nothing. */
export type Child = Node | string | null | undefined | false;

/** Properties of an element made by {@link el}. */
export interface Props {
	/** Class names, separated by spaces. */
	class?: string;
	/** Attributes, set with `setAttribute` (values are data, never markup). */
	attrs?: Readonly<Record<string, string | undefined>>;
	/** Text content (a Text node). */
	text?: string;
}

/** A new element with its class, attributes and children. */
export function el<K extends keyof HTMLElementTagNameMap>(
	tag: K,
	props: Props = {},
	...children: Child[]
): HTMLElementTagNameMap[K] {
	const node = document.createElement(tag);
	if (props.class !== undefined && props.class !== "") node.className = props.class;
	if (props.attrs) {
		for (const [name, value] of Object.entries(props.attrs)) if (value !== undefined) setAttr(node, name, value);
	}
	if (props.text !== undefined && props.text !== "") node.append(textNode(props.text));
	append(node, ...children);
	return node;
}

/** Appends children to a node (strings as Text nodes). */
export function append(parent: Node, ...children: Child[]): void {
	for (const child of children) {
		if (child === null || child === undefined || child === false) continue;
		parent.appendChild(typeof child === "string" ? textNode(child) : child);
	}
}

/** A button (type button) with text and a click handler. */
export function button(label: string, props: Props, onClick: (event: MouseEvent) => void): HTMLButtonElement {
	const node = el("button", { ...props, attrs: { type: "button", ...props.attrs } }, label);
	node.addEventListener("click", onClick);
	return node;
}
