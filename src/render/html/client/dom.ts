/**
 * Building DOM nodes from data. Every piece of session content enters the page through
 * `textContent`, `Text` nodes or an attribute set with `setAttribute` (never as markup): this
 * module has no way to parse HTML, and the rest of the client uses only it and the DOM API.
 */

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
		for (const [name, value] of Object.entries(props.attrs)) if (value !== undefined) node.setAttribute(name, value);
	}
	if (props.text !== undefined) node.textContent = props.text;
	append(node, ...children);
	return node;
}

/** Appends children to a node (strings as Text nodes). */
export function append(parent: Node, ...children: Child[]): void {
	for (const child of children) {
		if (child === null || child === undefined || child === false) continue;
		parent.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
	}
}

/** A button (type button) with text and a click handler. */
export function button(label: string, props: Props, onClick: (event: MouseEvent) => void): HTMLButtonElement {
	const node = el("button", { ...props, attrs: { type: "button", ...props.attrs } }, label);
	node.addEventListener("click", onClick);
	return node;
}
