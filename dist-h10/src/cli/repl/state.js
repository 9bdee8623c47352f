/**
 * The state of one REPL, independent of the terminal: the current session, where output goes,
 * and how errors become messages for the user.
 */
import { basename } from "node:path";
import { isSessionTreeError } from "../../core/errors.js";
import { sanitize } from "../../render/preview.js";
import { truncateToWidth } from "../../render/terminal.js";
import { makeStyle } from "./style.js";
import { TokenizeError } from "./tokenize.js";
/** A command that could not do its job; the message is shown to the user as is. */
export class ReplError extends Error {
    constructor(message) {
        super(message);
        this.name = "ReplError";
    }
}
/** The state of one REPL: the current session and where output goes. */
export class ReplState {
    session;
    env;
    /** Set by `exit`: no more lines are to be read. */
    exitRequested = false;
    constructor(env) {
        this.env = env;
    }
    /** The current session, or an error saying how to get one. */
    requireSession() {
        if (!this.session)
            throw new ReplError("no session: start one with `new` or open one with `load FILE`");
        return this.session;
    }
    /** Makes `session` the current one, closing the previous. */
    async switchTo(session) {
        const previous = this.session;
        // Switch first: should closing the old one fail, the new one is still the current one.
        this.session = session;
        if (previous && previous !== session)
            await previous.close();
    }
    /** Closes the current session's file handle. */
    async close() {
        await this.session?.close();
    }
    /** Ids of the current session's entries (for completion). */
    ids() {
        return this.session ? this.session.getEntries().map((entry) => entry.id) : [];
    }
    /** The session name (or file name) and the leaf, for the prompt. */
    promptParts() {
        const session = this.session;
        if (!session)
            return undefined;
        return { title: sessionTitle(session), leaf: session.getLeafId() ?? "(root)" };
    }
    /** `name 1a2b3c4d`: {@link promptParts} as one string. */
    promptLabel() {
        const parts = this.promptParts();
        return parts && `${parts.title} ${parts.leaf}`;
    }
    /** Writes one line of output. */
    line(text) {
        this.env.out(`${text}\n`);
    }
    /** Lines of a listing, each cut to the width when there is one. */
    listing(lines) {
        const width = this.env.width?.();
        const fitted = width === undefined ? lines : lines.map((line) => truncateToWidth(line, width));
        this.env.out(fitted.map((line) => `${line}\n`).join(""));
    }
    /** An entry id as shown (coloured), `(root)` for null. */
    id(id) {
        return id === null ? "(root)" : this.env.style.yellow(id);
    }
}
/** The session's name, else its file name without `.jsonl` (shortened when long). */
export function sessionTitle(session) {
    const name = session.getSessionName();
    if (name !== undefined && name.trim() !== "")
        return shorten(sanitize(name.trim()), 32);
    const file = session.file === undefined ? "(memory)" : basename(session.file).replace(/\.jsonl$/, "");
    // pi's file names are <timestamp>_<uuid v7>: the uuid's random end tells them apart best.
    const pi = /^\d{4}-\d\d-\d\dT[\d-]+Z_[0-9a-f-]*([0-9a-f]{8})$/i.exec(file);
    return pi ? `…${pi[1]}` : shorten(sanitize(file), 32);
}
function shorten(text, max) {
    return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
/** A message for an error: the file is left out when it is the current session's own. */
export function errorMessage(state, error) {
    if (error instanceof ReplError || error instanceof TokenizeError)
        return { message: error.message };
    if (isSessionTreeError(error)) {
        const file = state.session?.file;
        const prefix = file === undefined ? undefined : `${file}: `;
        const message = prefix !== undefined && error.file === file && error.message.startsWith(prefix)
            ? error.message.slice(prefix.length)
            : error.message;
        return { message };
    }
    if (error instanceof Error && typeof error.code === "string") {
        return { message: error.message };
    }
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    return { message: `internal error: ${detail}`, internal: true };
}
/** A state for tests and scripts: plain output collected in strings. */
export function collectingState(options = {}) {
    let out = "";
    let err = "";
    const state = new ReplState({
        out: (text) => {
            out += text;
        },
        err: (text) => {
            err += text;
        },
        style: makeStyle(false),
        ...(options.width !== undefined ? { width: () => options.width } : {}),
        ...(options.dir !== undefined ? { dir: options.dir } : {}),
    });
    return {
        state,
        output: () => {
            const text = out;
            out = "";
            return text;
        },
        errors: () => {
            const text = err;
            err = "";
            return text;
        },
    };
}
//# sourceMappingURL=state.js.map