/**
 * Splitting a REPL line into words, shell-like but small:
 *
 * - words are separated by spaces and tabs;
 * - `"a b"` is one word; inside double quotes `\"`, `\\`, `\n` and `\t` are escapes;
 * - `'a b'` is one word taken literally;
 * - outside quotes a backslash makes the next character literal (`a\ b` is one word);
 * - quotes may sit inside a word (`--cwd="/my dir"`), and `""` is an empty word.
 *
 * The tokenizer keeps each word's position in the line, so that completion can replace the
 * word under the cursor, and it tolerates an unterminated quote (a line being typed).
 */

/** One word of a line. */
export interface Token {
	/** The word with quotes and escapes resolved. */
	value: string;
	/** Index of its first character in the line (a quote, if it starts with one). */
	start: number;
	/** Index just after its last character. */
	end: number;
	/** Whether any part of it was quoted. */
	quoted: boolean;
}

/** The words of a line and how the line ends. */
export interface Tokenized {
	tokens: Token[];
	/** The quote left open at the end of the line, if any. */
	openQuote: '"' | "'" | undefined;
	/** Whether the line ends in a separator (so the next word has not started yet). */
	endsInSpace: boolean;
}

const DOUBLE_QUOTE_ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", n: "\n", t: "\t" };

function isSpace(char: string): boolean {
	return char === " " || char === "\t";
}

/** An empty word that starts at `at`. */
function newToken(at: number): Token {
	return { value: "", start: at, end: at, quoted: false };
}

/** Splits a line into words; never throws (see {@link splitWords} for the strict form). */
export function tokenize(line: string): Tokenized {
	const tokens: Token[] = [];
	/** The word being read, started by the first character that belongs to it. */
	let current: Token | undefined;
	let quote: '"' | "'" | undefined;
	let i = 0;
	while (i < line.length) {
		const char = line.charAt(i);
		if (quote === "'") {
			if (char === "'") quote = undefined;
			else {
				current ??= newToken(i);
				current.value += char;
			}
			i++;
		} else if (quote === '"') {
			if (char === '"') {
				quote = undefined;
				i++;
			} else if (char === "\\" && i + 1 < line.length) {
				const next = line.charAt(i + 1);
				const escaped = DOUBLE_QUOTE_ESCAPES[next];
				current ??= newToken(i);
				current.value += escaped ?? `\\${next}`;
				i += 2;
			} else {
				current ??= newToken(i);
				current.value += char;
				i++;
			}
		} else if (isSpace(char)) {
			if (current) {
				current.end = i;
				tokens.push(current);
				current = undefined;
			}
			i++;
		} else if (char === '"' || char === "'") {
			current ??= newToken(i);
			current.quoted = true;
			quote = char;
			i++;
		} else if (char === "\\" && i + 1 < line.length) {
			current ??= newToken(i);
			current.value += line.charAt(i + 1);
			i += 2;
		} else {
			current ??= newToken(i);
			current.value += char;
			i++;
		}
	}
	const inWord = current !== undefined;
	if (current) {
		current.end = line.length;
		tokens.push(current);
	}
	return { tokens, openQuote: quote, endsInSpace: !inWord && line.length > 0 };
}

/** A line that cannot be split: an unterminated quote. */
export class TokenizeError extends Error {
	constructor(message: string) {
		super(message);
		this.name = "TokenizeError";
	}
}

/**
 * The words of a complete line.
 * @throws TokenizeError when a quote is not closed
 */
export function splitWords(line: string): string[] {
	const { tokens, openQuote } = tokenize(line);
	if (openQuote !== undefined) throw new TokenizeError(`unterminated ${openQuote === '"' ? "double" : "single"} quote`);
	return tokens.map((token) => token.value);
}

/**
 * Quotes a word so that {@link tokenize} gives it back unchanged: as is when it needs no
 * quotes (unless `force`), else in double quotes, left open when `close` is false.
 */
export function quoteWord(
	word: string,
	{ close = true, force = false }: { close?: boolean; force?: boolean } = {},
): string {
	if (!force && word !== "" && !/[\s"'\\]/.test(word)) return word;
	const escaped = word
		.replace(/["\\]/g, (char) => `\\${char}`)
		.replace(/\n/g, "\\n")
		.replace(/\t/g, "\\t");
	return `"${escaped}${close ? '"' : ""}`;
}
