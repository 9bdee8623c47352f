/**
 * Finding the sources of an import: files as they are, directories (recursively: their
 * `*.json`, `*.jsonl` and `*.zip` files, hidden entries and `node_modules` left out), and ZIP
 * files (ChatGPT's data export): their `conversations.json`, or else their `*.json` and
 * `*.jsonl` members. Nothing is read until a source's text is asked for, so a folder of many
 * files is never held in memory at once.
 */

import { closeSync, readdirSync, readSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { SessionTreeError } from "../core/errors.js";
import { openRegularFile, readRegularFile, requireRegular } from "../storage/regular-file.js";
import { withoutBom } from "./common.js";
import { formatBytes } from "./format-bytes.js";
import { checkZipLimits, readZipMember, type ZipLimits, type ZipMember, zipLimits, zipMembers } from "./zip.js";

/** A source found but not read yet. */
export interface PendingSource {
	/** A path, or `archive.zip!member`. */
	readonly name: string;
	/** True when the user named it (a file given as an input), false when found in a directory or archive. */
	readonly explicit: boolean;
	/** Its text (UTF-8, a byte order mark removed). */
	read(): string;
	/** The file, for a source that is one (not a member of an archive): a transcript is read from it line by line. */
	readonly path?: string;
}

/** An input that could not be used, and why. */
export interface SourceProblem {
	readonly name: string;
	readonly error: SessionTreeError;
}

/** File names a directory walk takes. */
const SOURCE_FILE = /\.(json|jsonl|zip)$/i;

/**
 * UTF-8 bytes as text, a byte order mark removed; a byte that is not UTF-8 becomes U+FFFD.
 * `Buffer#toString` rather than `TextDecoder`: the same text, in about half the time on a large
 * export (270 ms against 430 ms for 85 MiB, docs/performance.md "ChatGPT import").
 */
export function decodeText(bytes: Uint8Array): string {
	const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
	return withoutBom(buffer.toString("utf8"));
}

/** True for bytes that start a ZIP archive (`PK\x03\x04`, or `PK\x05\x06` for an empty one). */
export function isZip(bytes: Uint8Array): boolean {
	return bytes[0] === 0x50 && bytes[1] === 0x4b && (bytes[2] === 0x03 || bytes[2] === 0x05);
}

/**
 * The members of a ZIP archive to import: `conversations.json` (in any folder) when the archive
 * has one (a ChatGPT data export; its other JSON files are account data), else every `*.json`
 * and `*.jsonl` member, in archive order. Only the archive's directory is read here; a
 * member's data is read (and inflated) when its text is asked for, and no other member's is.
 * @throws SessionTreeError INVALID_ARGUMENT for a file that is no readable archive, or members
 *   that would inflate past the limits (see `zip.ts`): nothing of the archive is read then
 */
export function zipSources(archive: string, limits: Partial<ZipLimits> = {}): PendingSource[] {
	const effective = zipLimits(limits);
	const members = zipMembers(archive, effective, (member) => /\.jsonl?$/i.test(member));
	const conversations = members.filter((member) => basename(member.name) === "conversations.json");
	const chosen = conversations.length > 0 ? conversations : members;
	checkZipLimits(archive, chosen, effective);
	return chosen.map((member) => ({
		name: `${archive}!${member.name}`,
		explicit: false,
		read: () => memberText(archive, member),
	}));
}

/** A member's text. */
function memberText(archive: string, member: ZipMember): string {
	const bytes = readZipMember(archive, member);
	try {
		return decodeText(bytes);
	} catch (cause) {
		// A member over V8's longest string (about 512 MiB, the default member limit) when the limit is raised.
		throw new SessionTreeError(
			"INVALID_ARGUMENT",
			`member ${member.name}: ${formatBytes(bytes.length)} cannot be read as one text (${cause instanceof Error ? cause.message : String(cause)})`,
			{ file: archive },
		);
	}
}

/** Every source under a directory, sorted by path. */
function walk(dir: string, out: PendingSource[], problems: SourceProblem[], zip: Partial<ZipLimits>): void {
	let items: string[];
	try {
		items = readdirSync(dir).sort();
	} catch (cause) {
		problems.push({ name: dir, error: ioProblem(dir, cause) });
		return;
	}
	for (const item of items) {
		if (item.startsWith(".") || item === "node_modules") continue;
		const path = join(dir, item);
		let stats: ReturnType<typeof statSync>;
		try {
			stats = statSync(path);
		} catch {
			continue;
		}
		if (stats.isDirectory()) walk(path, out, problems, zip);
		else if (stats.isFile() && SOURCE_FILE.test(item)) out.push(...fileSources(path, false, problems, zip));
	}
}

function ioProblem(name: string, cause: unknown): SessionTreeError {
	const code = cause instanceof Error && "code" in cause ? (cause as { code?: unknown }).code : undefined;
	if (code === "ENOENT") return new SessionTreeError("FILE_NOT_FOUND", "no such file or directory", { file: name });
	return new SessionTreeError("IO_ERROR", cause instanceof Error ? cause.message : String(cause), { file: name });
}

/** A file as sources: itself, or the members of an archive. */
function fileSources(
	path: string,
	explicit: boolean,
	problems: SourceProblem[],
	zip: Partial<ZipLimits>,
): PendingSource[] {
	if (/\.zip$/i.test(path) || (explicit && startsLikeZip(path))) {
		try {
			return zipSources(path, zip);
		} catch (cause) {
			problems.push({ name: path, error: cause instanceof SessionTreeError ? cause : ioProblem(path, cause) });
			return [];
		}
	}
	return [
		{
			name: path,
			explicit,
			read: () => decodeText(readRegularFile(path)),
			path,
		},
	];
}

/** True for a file whose first bytes are a ZIP archive's (a download saved without its extension). */
export function startsLikeZip(path: string): boolean {
	try {
		const { fd } = openRegularFile(path);
		try {
			const head = new Uint8Array(4);
			return readSync(fd, head, 0, 4, 0) === 4 && isZip(head);
		} finally {
			closeSync(fd);
		}
	} catch {
		return false;
	}
}

/**
 * The sources the inputs name: files as they are (a ZIP file by its members), directories
 * walked recursively. Inputs that do not exist or cannot be read are returned as problems, and
 * so are archives past the limits (`zipLimits`, else the environment's; see `zip.ts`).
 */
export function expandInputs(
	inputs: readonly string[],
	options: { zipLimits?: Partial<ZipLimits> } = {},
): { sources: PendingSource[]; problems: SourceProblem[] } {
	const zip = options.zipLimits ?? {};
	const sources: PendingSource[] = [];
	const problems: SourceProblem[] = [];
	for (const input of inputs) {
		let stats: ReturnType<typeof statSync>;
		try {
			stats = statSync(input);
		} catch (cause) {
			problems.push({ name: input, error: ioProblem(input, cause) });
			continue;
		}
		if (stats.isDirectory()) {
			walk(input, sources, problems, zip);
			continue;
		}
		try {
			requireRegular(input, stats); // a FIFO would block the read, /dev/zero never end it
		} catch (cause) {
			problems.push({ name: input, error: cause as SessionTreeError });
			continue;
		}
		sources.push(...fileSources(input, true, problems, zip));
	}
	return { sources, problems };
}
