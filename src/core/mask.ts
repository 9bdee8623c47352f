/**
 * Passwords out of what people and logs see: the one formatter of a location for messages
 * ({@link maskPassword}) and its use over free text ({@link maskPasswords}), which every
 * SessionTreeError message and the CLI's error output pass through.
 */

/**
 * The location with its password (in the user part or a `password` query parameter) replaced
 * by `***`: what error messages show, so that logs never hold a password.
 */
export function maskPassword(location: string): string {
	const start = location.indexOf("://");
	if (start < 0) return location;
	const from = start + 3;
	const rest = location.slice(from);
	const end = rest.search(/[/?#]/);
	const authority = end < 0 ? rest : rest.slice(0, end);
	// The last @ ends the user part: a password may hold a raw @.
	const at = authority.lastIndexOf("@");
	const colon = at < 0 ? -1 : authority.indexOf(":");
	const masked = colon >= 0 && colon < at ? `${authority.slice(0, colon)}:***${authority.slice(at)}` : authority;
	const tail = (end < 0 ? "" : rest.slice(end)).replace(/([?&]password=)[^&#\s]*/gi, "$1***");
	return location.slice(0, from) + masked + tail;
}

/**
 * A URL in free text: a scheme, `://`, and everything up to white space or a quote. Linear: the
 * scheme is a run of letters before `://` and the rest a run of non-space characters.
 */
const URL_IN_TEXT = /[a-z][a-z0-9+.-]{0,31}:\/\/[^\s"'<>`]*/gi;

/** `text` with the password of every URL in it masked (see {@link maskPassword}). */
export function maskPasswords(text: string): string {
	if (!text.includes("://")) return text;
	return text.replace(URL_IN_TEXT, (url) => maskPassword(url));
}
