/**
 * The one error class of session-tree. `code` is stable and meant for programs; `message` is
 * meant for people and names the file, the line and what is wrong where those are known.
 */
/** The error every session-tree operation throws for a foreseeable failure. */
export class SessionTreeError extends Error {
    code;
    file;
    line;
    constructor(code, message, where = {}, options) {
        super(formatMessage(message, where), options);
        this.name = "SessionTreeError";
        this.code = code;
        this.file = where.file;
        this.line = where.line;
    }
}
function formatMessage(message, where) {
    if (where.file === undefined)
        return where.line === undefined ? message : `line ${where.line}: ${message}`;
    return where.line === undefined ? `${where.file}: ${message}` : `${where.file}:${where.line}: ${message}`;
}
/** True when `error` is a {@link SessionTreeError}, optionally with the given code. */
export function isSessionTreeError(error, code) {
    return error instanceof SessionTreeError && (code === undefined || error.code === code);
}
//# sourceMappingURL=errors.js.map