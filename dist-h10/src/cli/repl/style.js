/**
 * The REPL's styles as named functions (`style.bold(text)`), built on the one colour module,
 * `render/terminal.ts`, which also decides whether to colour and fits lines to a width.
 */
import { painter } from "../../render/terminal.js";
/** Styles that colour when `enabled` (see `shouldColor`), and do nothing otherwise. */
export function makeStyle(enabled) {
    const paint = painter(enabled);
    return {
        enabled,
        bold: (text) => paint(text, "bold"),
        dim: (text) => paint(text, "dim"),
        red: (text) => paint(text, "red"),
        green: (text) => paint(text, "green"),
        yellow: (text) => paint(text, "yellow"),
        cyan: (text) => paint(text, "cyan"),
        magenta: (text) => paint(text, "magenta"),
    };
}
//# sourceMappingURL=style.js.map