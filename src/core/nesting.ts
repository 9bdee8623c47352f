/**
 * How deep a record may nest: the one limit on nested arrays and objects that every reader and
 * writer applies, so that no record can overflow the stack of whatever handles it next.
 *
 * V8's `JSON.parse` is iterative and reads any depth, but `JSON.stringify`, `structuredClone`,
 * database drivers and every recursive walk are not: on Node 20 `JSON.stringify` throws
 * "Maximum call stack size exceeded" at about 4,100 levels, `structuredClone` of nested
 * objects at about 1,900, and less with a deeper stack or a smaller one (a worker, a browser).
 * A file `validate` called fine could thus crash `html`, `ctx --json` or a copy. So a record
 * nested deeper than {@link MAX_NESTING} levels is damage where it is read (the codec, lazy
 * bodies, the importers) and is refused where it is written (the codec's encoding), the same
 * in every store. docs/durability.md says what happens to such a record.
 *
 * The checks cost nearly nothing on the hot paths: a JSON text nests at most half as deep as it
 * is long, and at most as deep as it has `[` and `{`, so only a line longer than twice the
 * limit holding more than a few dozen of those has its value walked (iteratively) at all.
 */

/**
 * The most levels of arrays and objects one record may nest, the record itself being level 1
 * (`{"a":[[1]]}` nests 3 deep). Far above any agent record (tool arguments and results nest a
 * few dozen levels at most), about half of what the most fragile operation above survives on
 * Node 20, and the limit SQLite's JSON functions have.
 */
export const MAX_NESTING = 1000;

/** Characters of a key path that a message shows before it is cut short with `…`. */
const SHOWN_PATH = 48;

/**
 * How many `[` and `{` {@link mayNestDeeper} counts before it gives up and has the value walked:
 * counting costs a search per bracket, walking a step per array or object, so text full of
 * brackets inside strings (code, JSON a tool printed) is cheaper to walk (it is a few values).
 */
const COUNTED = 64;

/**
 * False when the JSON text `text` certainly nests no deeper than `limit`: it is too short (a
 * level takes two characters), or holds few `[` and `{` (strings' included). True means its
 * value has to be walked ({@link nestingPath}).
 */
export function mayNestDeeper(text: string, limit = MAX_NESTING): boolean {
	if (text.length <= 2 * limit) return false;
	const counted = Math.min(limit, COUNTED);
	let openers = 0;
	for (let at = text.indexOf("{"); at !== -1; at = text.indexOf("{", at + 1)) if (++openers > counted) return true;
	for (let at = text.indexOf("["); at !== -1; at = text.indexOf("[", at + 1)) if (++openers > counted) return true;
	return false;
}

/**
 * True when the JSON text `text` nests deeper than `limit` (arrays and objects): one pass over
 * its characters, strings skipped, nothing allocated. For a text already parsed (so well
 * formed); cheaper than walking its value (on an 85 MiB export, about 155 ms against 250 to
 * 650 ms), so the value is walked ({@link nestingPath}) only to name where a text nests too deep.
 */
export function textNestsDeeper(text: string, limit = MAX_NESTING): boolean {
	let depth = 0;
	for (let i = 0, length = text.length; i < length; i++) {
		const code = text.charCodeAt(i);
		if (code === 0x22) {
			// A string: to its closing quote, the first one after an even run of backslashes.
			// `indexOf` skips a string's text far faster than a loop over its characters (on the
			// bench's 85 MiB ChatGPT export, about 230 ms against 350 ms), and text is mostly strings.
			for (;;) {
				const quote = text.indexOf('"', i + 1);
				if (quote === -1) return false;
				let before = quote - 1;
				while (text.charCodeAt(before) === 0x5c) before--;
				i = quote;
				if ((quote - 1 - before) % 2 === 0) break;
			}
		} else if (code === 0x5b || code === 0x7b) {
			if (++depth > limit) return true;
		} else if (code === 0x5d || code === 0x7d) depth--;
	}
	return false;
}

/** One container on the walk's stack: its keys (or length) and how far through them the walk is. */
interface Frame {
	readonly value: Record<string, unknown> | unknown[];
	readonly keys: string[] | undefined;
	next: number;
}

/**
 * Where `value` nests deeper than `limit` (arrays and objects; `value` itself is level 1): the
 * keys and indices from `value` down to the first container past the limit, or undefined when
 * it nests no deeper. Iterative, so any depth is measured without recursion. A value reached
 * twice is walked twice (a cycle reads as too deep: it cannot be written as JSON either).
 */
export function nestingPath(value: unknown, limit = MAX_NESTING): Array<string | number> | undefined {
	if (!isContainer(value)) return undefined;
	const stack: Frame[] = [frameOf(value)];
	while (stack.length > 0) {
		const top = stack[stack.length - 1] as Frame;
		const size = top.keys ? top.keys.length : (top.value as unknown[]).length;
		if (top.next >= size) {
			stack.pop();
			continue;
		}
		const at = top.next++;
		const child = top.keys
			? (top.value as Record<string, unknown>)[top.keys[at] as string]
			: (top.value as unknown[])[at];
		if (!isContainer(child)) continue;
		if (stack.length >= limit) return pathOf(stack);
		stack.push(frameOf(child));
	}
	return undefined;
}

/** The key or index each frame of the walk is at: the path from the walk's start to its current value. */
function pathOf(stack: readonly Frame[]): Array<string | number> {
	return stack.map((frame) => (frame.keys ? (frame.keys[frame.next - 1] as string) : frame.next - 1));
}

function isContainer(value: unknown): value is Record<string, unknown> | unknown[] {
	return value !== null && typeof value === "object";
}

function frameOf(value: Record<string, unknown> | unknown[]): Frame {
	return { value, keys: Array.isArray(value) ? undefined : Object.keys(value), next: 0 };
}

/**
 * Why the parsed JSON text `text` (its value `value`) is refused, or undefined when it nests
 * no deeper than {@link MAX_NESTING}: "nested deeper than 1000 levels at message.details[0]…".
 */
export function nestingProblem(text: string, value: unknown): string | undefined {
	if (!mayNestDeeper(text) || !textNestsDeeper(text)) return undefined;
	return nestingProblemOf(value);
}

/** {@link nestingProblem} for a value without its text (a value an application gave, or one that could not be encoded). */
export function nestingProblemOf(value: unknown): string | undefined {
	const path = nestingPath(value);
	return path ? `nested deeper than ${MAX_NESTING} levels of arrays and objects at ${formatPath(path)}` : undefined;
}

/**
 * `JSON.stringify(value)`, or why `value` is refused instead: it nests deeper than
 * {@link MAX_NESTING} (found without recursion, also where `JSON.stringify` itself would
 * overflow the stack). Only a long text with many brackets is walked (see {@link mayNestDeeper}).
 * @throws what `JSON.stringify` throws for anything else (a cycle, a BigInt)
 */
export function stringifyNested(value: unknown): { json: string; problem?: undefined } | { problem: string } {
	let json: string;
	try {
		json = JSON.stringify(value);
	} catch (cause) {
		const problem = cause instanceof RangeError ? nestingProblemOf(value) : undefined;
		if (problem) return { problem };
		throw cause;
	}
	// JSON.stringify gives undefined (typed string) for a function or undefined: nothing nests there.
	const problem = json !== undefined && mayNestDeeper(json) ? nestingProblemOf(value) : undefined;
	return problem ? { problem } : { json };
}

/** A key path as JavaScript writes it (`message.details[0]["a b"]`), cut short with `…` past {@link SHOWN_PATH} characters. */
export function formatPath(path: ReadonlyArray<string | number>): string {
	let text = "";
	for (const [i, key] of path.entries()) {
		if (text.length >= SHOWN_PATH) return `${text}…`;
		if (typeof key === "number") text += `[${key}]`;
		else if (/^[A-Za-z_$][\w$]*$/.test(key)) text += i === 0 ? key : `.${key}`;
		else text += `[${JSON.stringify(key)}]`;
	}
	return text;
}
