/** The JSON that `--json` prints. */

import { BIDI_CONTROL_CLASS } from "../render/sanitize.js";

/**
 * Characters JSON.stringify leaves raw that a terminal acts on or that reorder what follows:
 * DEL and the C1 controls (U+009B is a CSI to some terminals), the line and paragraph
 * separators, the bidi controls. Only strings hold them, and in a string `\uXXXX` is the same
 * character, so escaping them keeps the data exact.
 */
const RAW_UNSAFE = new RegExp(`[\\u007f-\\u009f\\u2028\\u2029${BIDI_CONTROL_CLASS}]`, "g");
/** The same, to look for one first: a test costs less than a `replace` that finds nothing. */
const HAS_RAW_UNSAFE = new RegExp(RAW_UNSAFE.source);

/**
 * `value` as one line of JSON and a newline: the exact data, with nothing a terminal would act
 * on (JSON.stringify escapes the C0 controls, ESC among them; the rest are escaped here).
 */
export function jsonLine(value: unknown): string {
	const json = JSON.stringify(value) ?? "null";
	if (!HAS_RAW_UNSAFE.test(json)) return `${json}\n`;
	return `${json.replace(RAW_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)}\n`;
}
