/**
 * Whether pi's `/tree` filters show an assistant message, decided from the raw bytes of its
 * line without parsing it into objects.
 *
 * pi's filters hide an assistant message that has no text (no `text` block whose text is not
 * blank, nor a non-blank string as its content) unless it stopped for another reason than
 * `stop` or `toolUse` (an error, an abort) or is the leaf (render/tree-layout.ts,
 * `treeFilterShows`). Deciding that by parsing meant a read and a `JSON.parse` of every
 * assistant body before a filtered tree could be laid out (43,986 of the 100,000 lines of the
 * bench's session): the views' first frame waited for all of them. This scanner walks the
 * line's bytes once, validating them as JSON as it goes (strings, escapes, numbers, nesting),
 * and follows only the keys the rule reads: the entry's own `type`, `id`, `parentId`,
 * `timestamp` and `message`, the message's own `role`, `content` and `stopReason`, and the
 * `type` and `text` of each block directly in `content`. Anything nested deeper (a tool call's
 * arguments that look like a text block) is skipped as a value. Duplicate keys count as
 * `JSON.parse` counts them: the last one wins.
 *
 * The answer is {@link SHOWN}, {@link HIDDEN} or {@link UNKNOWN}. It is exact: for every line it
 * answers, the parse (`LazyBodies`, lazy.ts) would give an entry without problems, of the
 * expected id and parent, that `treeFilterShows` shows or hides the same way. Whatever it
 * cannot be sure of (invalid JSON, a body that would not be a valid entry, a number as the stop
 * reason, a line nested deeper than {@link MAX_DEPTH}) is UNKNOWN, and the caller parses the
 * body as before. Pure: bytes in, a number out.
 */

/** The filters' rule lets the assistant message through: it has text, or it stopped with an error or was aborted. */
export const SHOWN = 1;
/** The filters hide the assistant message (unless it is the leaf). */
export const HIDDEN = 2;
/** Not decided from the bytes: parse the body. */
export const UNKNOWN = 3;
/**
 * With an expectation: a message of another role than "assistant", the role the envelope
 * says (the filters then decide by the role alone, as they would after the parse).
 */
export const OTHER_ROLE = 4;

/** One of {@link SHOWN}, {@link HIDDEN}, {@link UNKNOWN}, {@link OTHER_ROLE}. */
export type ShownAnswer = typeof SHOWN | typeof HIDDEN | typeof UNKNOWN | typeof OTHER_ROLE;

/** What the envelope says of the line: the parsed entry must have the same id, parent and role. */
export interface ShownExpectation {
	readonly id: string;
	readonly parentId: string | null;
	/** The message's role as the envelope read it; undefined: "assistant" (the one answered). */
	readonly role?: string | undefined;
}

/**
 * Nesting beyond which a line is UNKNOWN: far below the codec's limit (`MAX_NESTING`), so that a
 * line refused as too deep is never answered, and a bound on the scanner's recursion.
 */
export const MAX_DEPTH = 128;

// A tri-state inside the scanner.
const NO = 0;
const YES = 1;
const MAYBE = 2;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** ASCII bytes of a key or value compared without decoding. */
function ascii(text: string): Uint8Array {
	const out = new Uint8Array(text.length);
	for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
	return out;
}

const K_TYPE = ascii("type");
const K_ID = ascii("id");
const K_PARENT = ascii("parentId");
const K_TIMESTAMP = ascii("timestamp");
const K_MESSAGE = ascii("message");
const K_ROLE = ascii("role");
const K_CONTENT = ascii("content");
const K_STOP = ascii("stopReason");
const K_TEXT = ascii("text");
const V_MESSAGE = K_MESSAGE;
const V_ASSISTANT = ascii("assistant");
const V_TEXT = K_TEXT;
const V_STOP = ascii("stop");
const V_TOOL_USE = ascii("toolUse");

/**
 * True for a UTF-16 code unit that `String.prototype.trim` removes (WhiteSpace and
 * LineTerminator of ECMAScript: the Zs category, tab, vertical tab, form feed, BOM, line feed,
 * carriage return, line and paragraph separators).
 */
export function isTrimmedUnit(unit: number): boolean {
	return (
		(unit >= 0x09 && unit <= 0x0d) ||
		unit === 0x20 ||
		unit === 0xa0 ||
		unit === 0x1680 ||
		(unit >= 0x2000 && unit <= 0x200a) ||
		unit === 0x2028 ||
		unit === 0x2029 ||
		unit === 0x202f ||
		unit === 0x205f ||
		unit === 0x3000 ||
		unit === 0xfeff
	);
}

/** 1 for a byte that a JSON string holds as it is: not a quote, a backslash or a control character. */
const PLAIN = new Uint8Array(256);
for (let byte = 0x20; byte < 256; byte++) if (byte !== QUOTE && byte !== BACKSLASH) PLAIN[byte] = 1;

function hexValue(byte: number): number {
	if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
	const lower = byte | 0x20;
	if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
	return -1;
}

let decoder: InstanceType<typeof TextDecoder> | undefined;

/**
 * The closing bytes of the containers {@link Scanner.skip} is inside (at most {@link MAX_DEPTH}):
 * one array for every scanner, since `skip` runs to its end without calling out (an array per
 * scanner, one per line, cost 70 ms and its garbage on the 96,840 message lines of s100k).
 */
const CLOSERS = new Uint8Array(MAX_DEPTH + 1);

function isAscii(text: string): boolean {
	for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= 0x80) return false;
	return true;
}

/**
 * The bytes of one line, walked once. Each method starts at `at` and leaves it after what it
 * read; a method that finds the text is not JSON returns false (or NO), and the line is UNKNOWN.
 */
class Scanner {
	at: number;
	/** Set by {@link string}: the string held a backslash (its bytes are not its value). */
	escaped = false;
	/** Set by {@link string} with `blank`: YES when every character of the string is trimmed by `trim`. */
	blank = YES;

	constructor(
		private readonly bytes: Uint8Array,
		start: number,
		readonly end: number,
	) {
		this.at = start;
	}

	space(): void {
		const { bytes, end } = this;
		let at = this.at;
		while (at < end) {
			const byte = bytes[at] as number;
			if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) break;
			at++;
		}
		this.at = at;
	}

	/** The next byte after blanks, -1 at the end. */
	peek(): number {
		this.space();
		return this.at < this.end ? (this.bytes[this.at] as number) : -1;
	}

	/**
	 * A string at `at` (its opening quote): validated, with {@link escaped} set, and with
	 * `measureBlank` {@link blank} too. Returns false when it is not a valid JSON string.
	 */
	string(measureBlank: boolean): boolean {
		const { bytes, end } = this;
		let at = this.at + 1;
		let escaped = false;
		// Until a character that `trim` keeps is seen (then the rest is only validated).
		let blank = measureBlank;
		for (;;) {
			// Most of a line is the text of strings: a run of plain bytes is one load and one test
			// each (the run stops at the line's newline or the buffer's end at the latest).
			if (!blank) while (PLAIN[bytes[at] as number] === 1) at++;
			if (at >= end) return false;
			const byte = bytes[at] as number;
			if (byte === QUOTE) break;
			if (byte < 0x20) return false;
			if (byte === BACKSLASH) {
				escaped = true;
				if (at + 1 >= end) return false;
				const next = bytes[at + 1] as number;
				if (next === 0x75) {
					if (at + 5 >= end) return false;
					let unit = 0;
					for (let k = 2; k < 6; k++) {
						const digit = hexValue(bytes[at + k] as number);
						if (digit < 0) return false;
						unit = unit * 16 + digit;
					}
					if (blank && !isTrimmedUnit(unit)) blank = false;
					at += 6;
					continue;
				}
				// \t \n \r \f are trimmed; \b \" \\ \/ are not.
				if (next === 0x74 || next === 0x6e || next === 0x72 || next === 0x66) {
					at += 2;
					continue;
				}
				if (next !== 0x62 && next !== QUOTE && next !== BACKSLASH && next !== 0x2f) return false;
				blank = false;
				at += 2;
				continue;
			}
			if (blank) {
				if (byte === 0x20) {
					at++;
					continue;
				}
				if (byte < 0x80) {
					blank = false;
				} else {
					const length = this.trimmedSequence(at);
					if (length > 0) {
						at += length;
						continue;
					}
					// Any other sequence, valid or not, decodes to a character `trim` keeps (U+FFFD if invalid).
					blank = false;
				}
			}
			at++;
		}
		this.at = at + 1;
		this.escaped = escaped;
		this.blank = measureBlank && blank ? YES : NO;
		return true;
	}

	/**
	 * The length of the UTF-8 sequence at `at` when it encodes a character `trim` removes
	 * (U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF); else 0.
	 */
	private trimmedSequence(at: number): number {
		const { bytes, end } = this;
		const b0 = bytes[at] as number;
		const b1 = at + 1 < end ? (bytes[at + 1] as number) : -1;
		if (b0 === 0xc2) return b1 === 0xa0 ? 2 : 0;
		const b2 = at + 2 < end ? (bytes[at + 2] as number) : -1;
		if (b0 === 0xe1) return b1 === 0x9a && b2 === 0x80 ? 3 : 0;
		if (b0 === 0xe2) {
			if (b1 === 0x80) return (b2 >= 0x80 && b2 <= 0x8a) || b2 === 0xa8 || b2 === 0xa9 || b2 === 0xaf ? 3 : 0;
			return b1 === 0x81 && b2 === 0x9f ? 3 : 0;
		}
		if (b0 === 0xe3) return b1 === 0x80 && b2 === 0x80 ? 3 : 0;
		if (b0 === 0xef) return b1 === 0xbb && b2 === 0xbf ? 3 : 0;
		return 0;
	}

	/**
	 * Whether the string `bytes[from, to)` (quotes included; `escaped` when it holds a backslash)
	 * is `literal`.
	 */
	is(from: number, to: number, escaped: boolean, literal: Uint8Array): boolean {
		const { bytes } = this;
		if (escaped) {
			const value = this.value(from, to);
			if (value.length !== literal.length) return false;
			for (let i = 0; i < literal.length; i++) if (value.charCodeAt(i) !== literal[i]) return false;
			return true;
		}
		if (to - from - 2 !== literal.length) return false;
		for (let i = 0; i < literal.length; i++) if (bytes[from + 1 + i] !== literal[i]) return false;
		return true;
	}

	/** Whether the string just read (from `from`, its opening quote) is `literal`. */
	isLast(from: number, literal: Uint8Array): boolean {
		return this.is(from, this.at, this.escaped, literal);
	}

	/**
	 * Whether the string just read (from `from`, its opening quote) has the value `text`. An id
	 * or a parent compared on every line: without an escape, an ASCII `text` is equal exactly
	 * when the bytes are (a non-ASCII byte decodes to a character no ASCII text holds), so
	 * nothing is decoded; anything else is compared by value.
	 */
	lastEquals(from: number, text: string): boolean {
		const { bytes } = this;
		const to = this.at;
		if (!this.escaped && isAscii(text)) {
			if (to - from - 2 !== text.length) return false;
			for (let i = 0; i < text.length; i++) if (bytes[from + 1 + i] !== text.charCodeAt(i)) return false;
			return true;
		}
		return this.value(from, to) === text;
	}

	/** The value of the string `bytes[from, to)`, quotes included (one the scan found valid). */
	value(from: number, to = this.at): string {
		decoder ??= new TextDecoder();
		return JSON.parse(decoder.decode(this.bytes.subarray(from, to))) as string;
	}

	/** The key {@link object} read last (one object, reused: read before the member's value is). */
	private readonly keyAt: Key = { start: 0, end: 0, escaped: false };

	/** Whether a key read by {@link object} is `literal`. */
	keyIs(key: Key, literal: Uint8Array): boolean {
		return this.is(key.start, key.end, key.escaped, literal);
	}

	/** A key and its colon; false when there is none. `this.at` is then at the value. */
	key(): boolean {
		if (this.peek() !== QUOTE) return false;
		if (!this.string(false)) return false;
		this.keyAt.end = this.at;
		this.keyAt.escaped = this.escaped;
		if (this.peek() !== 0x3a) return false;
		this.at++;
		this.space();
		return true;
	}

	/** After a member: true and `more` for a comma, true for the closing `close`, false otherwise. */
	private after(close: number): number {
		const next = this.peek();
		this.at++;
		if (next === 0x2c) return 1;
		if (next === close) return 0;
		return -1;
	}

	/**
	 * The members of an object at `at` (its `{`): `member(key)` is called at each value
	 * (the key read just before) and must read the value. False if not JSON.
	 */
	object(member: (key: Key) => boolean): boolean {
		this.at++;
		if (this.peek() === 0x7d) {
			this.at++;
			return true;
		}
		for (;;) {
			const key = this.keyAt;
			key.start = this.peekAt();
			if (!this.key()) return false;
			if (!member(key)) return false;
			const next = this.after(0x7d);
			if (next === 0) return true;
			if (next < 0) return false;
		}
	}

	/** The position of the next non-blank byte. */
	private peekAt(): number {
		this.space();
		return this.at;
	}

	/**
	 * Any value at `at`, validated and skipped; `depth` is the nesting of the container it is in.
	 * Iterative, with the open containers' closing bytes on a stack: most of a line's structure
	 * (a tool call's arguments, usage, anything the rule does not read) goes through here, and a
	 * callback per member cost more than the bytes.
	 */
	skip(depth: number): boolean {
		const closers = CLOSERS;
		let open = 0;
		for (;;) {
			// A value at `at`.
			const byte = this.peek();
			if (byte === QUOTE) {
				if (!this.string(false)) return false;
			} else if (byte === 0x7b || byte === 0x5b) {
				if (depth + open + 1 > MAX_DEPTH) return false;
				const close = byte === 0x7b ? 0x7d : 0x5d;
				this.at++;
				if (this.peek() === close) this.at++;
				else {
					closers[open++] = close;
					if (close === 0x7d && !this.key()) return false;
					continue;
				}
			} else if (byte === 0x74) {
				if (!this.word("true")) return false;
			} else if (byte === 0x66) {
				if (!this.word("false")) return false;
			} else if (byte === 0x6e) {
				if (!this.word("null")) return false;
			} else if (!this.number()) return false;
			// After a value: the next member or element, or the end of containers.
			for (;;) {
				if (open === 0) return true;
				const close = closers[open - 1] as number;
				const next = this.peek();
				this.at++;
				if (next === 0x2c) {
					if (close === 0x7d && !this.key()) return false;
					break;
				}
				if (next !== close) return false;
				open--;
			}
		}
	}

	/** The elements of an array at `at` (its `[`), each read by `element`. False if not JSON. */
	array(element: () => boolean): boolean {
		this.at++;
		if (this.peek() === 0x5d) {
			this.at++;
			return true;
		}
		for (;;) {
			if (!element()) return false;
			const next = this.after(0x5d);
			if (next === 0) return true;
			if (next < 0) return false;
		}
	}

	word(text: string): boolean {
		const { bytes, end } = this;
		if (this.at + text.length > end) return false;
		for (let i = 0; i < text.length; i++) if (bytes[this.at + i] !== text.charCodeAt(i)) return false;
		this.at += text.length;
		return true;
	}

	/** A JSON number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`. */
	number(): boolean {
		const { bytes, end } = this;
		let at = this.at;
		const digit = (): boolean => at < end && (bytes[at] as number) >= 0x30 && (bytes[at] as number) <= 0x39;
		if (bytes[at] === 0x2d) at++;
		if (!digit()) return false;
		if (bytes[at] === 0x30) at++;
		else while (digit()) at++;
		if (at < end && bytes[at] === 0x2e) {
			at++;
			if (!digit()) return false;
			while (digit()) at++;
		}
		if (at < end && (bytes[at] === 0x65 || bytes[at] === 0x45)) {
			at++;
			if (at < end && (bytes[at] === 0x2b || bytes[at] === 0x2d)) at++;
			if (!digit()) return false;
			while (digit()) at++;
		}
		this.at = at;
		return true;
	}
}

/** Where a key is: `bytes[start, end)`, quotes included. */
interface Key {
	start: number;
	end: number;
	escaped: boolean;
}

/** What the scan found of the entry and its message; the last of duplicate keys wins, as in `JSON.parse`. */
class Found {
	typeOk = false;
	idOk = false;
	parentOk = false;
	timestampOk = false;
	/** The message is an object. */
	messageOk = false;
	/** Its role is the string "assistant". */
	roleOk = false;
	/** Its role is the string the expectation names (another role than "assistant"). */
	otherRoleOk = false;
	/** The rule's `hasText(content)`. */
	hasText = NO;
	/** The rule's "stopped with an error or aborted". */
	errorOrAborted = NO;
}

/**
 * Whether pi's filters let the assistant message of this line through (see the module's
 * documentation): {@link SHOWN}, {@link HIDDEN} or {@link UNKNOWN}. `bytes[start, end)` is the
 * line, UTF-8 as stored. With `expect`, a line is answered only when its parse would be an
 * entry without problems (a string `type` "message", a non-empty string `id` and a `parentId`
 * equal to `expect`'s, a string `timestamp`, a message object with a string role) whose message
 * is an assistant's; without it, only the type, the message and its role are checked.
 */
export function assistantShownBytes(
	bytes: Uint8Array,
	start: number,
	end: number,
	expect?: ShownExpectation,
): ShownAnswer {
	const scan = new Scanner(bytes, start, end);
	const found = new Found();
	try {
		if (!scanEntry(scan, found, expect)) return UNKNOWN;
	} catch {
		// A string that JSON.parse refused after the scan took it (it should not happen): not decided.
		return UNKNOWN;
	}
	if (!found.typeOk || !found.messageOk) return UNKNOWN;
	if (expect && (!found.idOk || !found.parentOk || !found.timestampOk)) return UNKNOWN;
	if (found.otherRoleOk) return OTHER_ROLE;
	if (!found.roleOk) return UNKNOWN;
	if (found.hasText === YES || found.errorOrAborted === YES) return SHOWN;
	if (found.hasText === NO && found.errorOrAborted === NO) return HIDDEN;
	return UNKNOWN;
}

function scanEntry(scan: Scanner, found: Found, expect: ShownExpectation | undefined): boolean {
	if (scan.peek() !== 0x7b) return false;
	const ok = scan.object((key) => {
		const same = (literal: Uint8Array): boolean => scan.keyIs(key, literal);
		const byte = scan.peek();
		if (same(K_MESSAGE)) {
			found.messageOk = false;
			found.roleOk = false;
			found.otherRoleOk = false;
			found.hasText = NO;
			found.errorOrAborted = NO;
			if (byte !== 0x7b) return scan.skip(1);
			found.messageOk = true;
			return scanMessage(scan, found, expect);
		}
		const checked = same(K_TYPE) ? 1 : same(K_ID) ? 2 : same(K_PARENT) ? 3 : same(K_TIMESTAMP) ? 4 : 0;
		if (checked === 0) return scan.skip(1);
		const from = scan.at;
		const isString = byte === QUOTE;
		if (!scan.skip(1)) return false;
		if (checked === 1) found.typeOk = isString && scan.isLast(from, V_MESSAGE);
		else if (checked === 2) {
			found.idOk = isString && scan.at - from > 2 && (expect === undefined || scan.lastEquals(from, expect.id));
		} else if (checked === 3) {
			if (byte === 0x6e) found.parentOk = expect === undefined || expect.parentId === null;
			else
				found.parentOk =
					isString && (expect === undefined || (expect.parentId !== null && scan.lastEquals(from, expect.parentId)));
		} else found.timestampOk = isString;
		return true;
	});
	if (!ok) return false;
	scan.space();
	return scan.at === scan.end;
}

function scanMessage(scan: Scanner, found: Found, expect: ShownExpectation | undefined): boolean {
	const other = expect?.role !== undefined && expect.role !== "assistant" ? expect.role : undefined;
	return scan.object((key) => {
		const same = (literal: Uint8Array): boolean => scan.keyIs(key, literal);
		const byte = scan.peek();
		const from = scan.at;
		if (same(K_ROLE)) {
			if (!scan.skip(2)) return false;
			const isString = byte === QUOTE;
			found.roleOk = isString && other === undefined && scan.isLast(from, V_ASSISTANT);
			found.otherRoleOk = isString && other !== undefined && scan.lastEquals(from, other);
			return true;
		}
		if (same(K_CONTENT)) {
			if (byte === QUOTE) {
				if (!scan.string(true)) return false;
				found.hasText = scan.blank === YES ? NO : YES;
				return true;
			}
			if (byte !== 0x5b) {
				found.hasText = NO;
				return scan.skip(2);
			}
			let hasText = NO;
			const ok = scan.array(() => {
				if (scan.peek() !== 0x7b) return scan.skip(3);
				const block = scanBlock(scan);
				if (block < 0) return false;
				if (block === YES) hasText = YES;
				return true;
			});
			found.hasText = hasText;
			return ok;
		}
		if (same(K_STOP)) {
			if (!scan.skip(2)) return false;
			if (byte === QUOTE) {
				// A non-empty string other than "stop" and "toolUse".
				// (A string with an escape is never empty: an escape stands for a character.)
				found.errorOrAborted =
					scan.at - from > 2 && !scan.isLast(from, V_STOP) && !scan.isLast(from, V_TOOL_USE) ? YES : NO;
			} else if (byte === 0x7b || byte === 0x5b || byte === 0x74) found.errorOrAborted = YES;
			else if (byte === 0x66 || byte === 0x6e) found.errorOrAborted = NO;
			// A number: zero is falsy, and which texts are zero is the parser's business.
			else found.errorOrAborted = MAYBE;
			return true;
		}
		return scan.skip(2);
	});
}

/** A block of `content` (an object at `scan.at`): YES when it is a text block with non-blank text, -1 if not JSON. */
function scanBlock(scan: Scanner): number {
	let isText = false;
	let textBlank = YES;
	let textString = false;
	const ok = scan.object((key) => {
		const byte = scan.peek();
		const from = scan.at;
		if (scan.keyIs(key, K_TYPE)) {
			if (!scan.skip(4)) return false;
			isText = byte === QUOTE && scan.isLast(from, V_TEXT);
			return true;
		}
		if (scan.keyIs(key, K_TEXT)) {
			textString = byte === QUOTE;
			if (!textString) return scan.skip(4);
			if (!scan.string(true)) return false;
			textBlank = scan.blank;
			return true;
		}
		return scan.skip(4);
	});
	if (!ok) return -1;
	return isText && textString && textBlank === NO ? YES : NO;
}
