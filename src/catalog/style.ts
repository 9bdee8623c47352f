/**
 * Terminal styling for `ls` and `search`: ANSI colours only on a terminal, honouring
 * `NO_COLOR` and `FORCE_COLOR` (the same rules as the rest of the command line).
 */

/** The styles used here. */
export type Style = "bold" | "dim" | "red" | "magenta" | "green";

const CODES: Record<Style, [number, number]> = {
	bold: [1, 22],
	dim: [2, 22],
	red: [31, 39],
	magenta: [35, 39],
	green: [32, 39],
};

/** Styles text, or leaves it alone when colour is off. */
export type Paint = (text: string, ...styles: Style[]) => string;

/** A painter: colours when `enabled`, else the identity. */
export function paint(enabled: boolean): Paint {
	if (!enabled) return (text) => text;
	return (text, ...styles) => {
		if (text === "") return text;
		let out = text;
		for (const style of styles) {
			const [open, close] = CODES[style];
			out = `\u001b[${open}m${out}\u001b[${close}m`;
		}
		return out;
	};
}

/**
 * Whether to colour output to `stream`: `FORCE_COLOR` decides when set (`0`/`false` forbid),
 * else a non-empty `NO_COLOR` forbids, `TERM=dumb` forbids, and otherwise only a terminal
 * gets colours.
 */
export function colorEnabled(
	stream: { isTTY?: boolean } | undefined,
	env: Record<string, string | undefined> = process.env,
): boolean {
	const force = env.FORCE_COLOR;
	if (force !== undefined) return force !== "0" && force.toLowerCase() !== "false";
	if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
	if (env.TERM === "dumb") return false;
	return stream?.isTTY === true;
}

/**
 * The width to fit lines into: the terminal's columns, else `COLUMNS` when it is a number,
 * else undefined (piped output is not cut to a width).
 */
export function outputWidth(
	stream: { isTTY?: boolean; columns?: number } | undefined,
	env: Record<string, string | undefined> = process.env,
): number | undefined {
	if (stream?.isTTY && typeof stream.columns === "number" && stream.columns > 0) return stream.columns;
	const columns = Number(env.COLUMNS);
	return Number.isInteger(columns) && columns > 0 ? columns : undefined;
}
