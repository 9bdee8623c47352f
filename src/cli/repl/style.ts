/**
 * The REPL's styles as named functions (`style.bold(text)`), built on the one colour module,
 * `render/terminal.ts`, which also decides whether to colour and fits lines to a width.
 */

import { painter } from "../../render/terminal.js";

/** The styles the REPL uses; each is the identity when colours are off. */
export interface Style {
	readonly enabled: boolean;
	bold(text: string): string;
	dim(text: string): string;
	green(text: string): string;
	yellow(text: string): string;
	cyan(text: string): string;
	magenta(text: string): string;
}

/** Styles that colour when `enabled` (see `shouldColor`), and do nothing otherwise. */
export function makeStyle(enabled: boolean): Style {
	const paint = painter(enabled);
	return {
		enabled,
		bold: (text) => paint(text, "bold"),
		dim: (text) => paint(text, "dim"),
		green: (text) => paint(text, "green"),
		yellow: (text) => paint(text, "yellow"),
		cyan: (text) => paint(text, "cyan"),
		magenta: (text) => paint(text, "magenta"),
	};
}
