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
const DOUBLE_QUOTE_ESCAPES = { '"': '"', "\\": "\\", n: "\n", t: "\t" };
function isSpace(char) {
    return char === " " || char === "\t";
}
/** Splits a line into words; never throws (see {@link splitWords} for the strict form). */
export function tokenize(line) {
    const tokens = [];
    let current;
    let quote;
    let i = 0;
    const word = (at) => {
        current ??= { value: "", start: at, end: at, quoted: false };
        return current;
    };
    while (i < line.length) {
        const char = line[i];
        if (quote === "'") {
            if (char === "'")
                quote = undefined;
            else
                word(i).value += char;
            i++;
        }
        else if (quote === '"') {
            if (char === '"') {
                quote = undefined;
                i++;
            }
            else if (char === "\\" && i + 1 < line.length) {
                const next = line[i + 1];
                const escaped = DOUBLE_QUOTE_ESCAPES[next];
                word(i).value += escaped ?? `\\${next}`;
                i += 2;
            }
            else {
                word(i).value += char;
                i++;
            }
        }
        else if (isSpace(char)) {
            if (current) {
                current.end = i;
                tokens.push(current);
                current = undefined;
            }
            i++;
        }
        else if (char === '"' || char === "'") {
            const token = word(i);
            token.quoted = true;
            quote = char;
            i++;
        }
        else if (char === "\\" && i + 1 < line.length) {
            word(i).value += line[i + 1];
            i += 2;
        }
        else {
            word(i).value += char;
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
    constructor(message) {
        super(message);
        this.name = "TokenizeError";
    }
}
/**
 * The words of a complete line.
 * @throws TokenizeError when a quote is not closed
 */
export function splitWords(line) {
    const { tokens, openQuote } = tokenize(line);
    if (openQuote !== undefined)
        throw new TokenizeError(`unterminated ${openQuote === '"' ? "double" : "single"} quote`);
    return tokens.map((token) => token.value);
}
/**
 * Quotes a word so that {@link tokenize} gives it back unchanged: as is when it needs no
 * quotes (unless `force`), else in double quotes, left open when `close` is false.
 */
export function quoteWord(word, { close = true, force = false } = {}) {
    if (!force && word !== "" && !/[\s"'\\]/.test(word))
        return word;
    const escaped = word
        .replace(/["\\]/g, (char) => `\\${char}`)
        .replace(/\n/g, "\\n")
        .replace(/\t/g, "\\t");
    return `"${escaped}${close ? '"' : ""}`;
}
//# sourceMappingURL=tokenize.js.map