/**
 * Reading members of a ZIP archive (a ChatGPT data export, zipped Open WebUI chats) within
 * limits, so that an archive crafted to inflate to gigabytes (a "ZIP bomb") is refused with an
 * error instead of filling the memory until the process dies.
 *
 * The archive is read through a file descriptor, never whole: the central directory in 1 MiB
 * windows (only the members a caller wants are kept), then each wanted member's data, inflated
 * 64 KiB of input at a time (fflate's streaming `Inflate`) into a buffer of the size the
 * central directory declares. So:
 *
 * - a member whose declared size is over the per-member limit, or members whose declared sizes
 *   add up to more than the total limit, are refused before anything is inflated
 *   ({@link checkZipLimits});
 * - a member whose data inflates past its declared size (the directory lies) is stopped right
 *   there: at most one 64 KiB input chunk's output (about 64 MiB at deflate's best ratio) is
 *   ever held beyond the declared size;
 * - an archive that lists more members than the member-count limit is refused before its
 *   directory is read.
 *
 * The limits come from the caller, else from the environment (`SESSION_TREE_ZIP_MEMBER_LIMIT`,
 * `SESSION_TREE_ZIP_TOTAL_LIMIT`, `SESSION_TREE_ZIP_MEMBERS_LIMIT`), else {@link DEFAULT_ZIP_LIMITS}.
 * Members are never written to disk, so no member name can reach outside a directory.
 */

import { closeSync, fstatSync, readSync } from "node:fs";
import { Inflate } from "fflate";
import { SessionTreeError } from "../core/errors.js";
import { openRegularFile } from "../storage/regular-file.js";
import { formatBytes } from "./format-bytes.js";

/** How much the members read from one archive may inflate to. */
export interface ZipLimits {
	/** Bytes one member may inflate to. */
	readonly member: number;
	/** Bytes all the members read from one archive may inflate to together. */
	readonly total: number;
	/** Members (files and folders) an archive may list. */
	readonly members: number;
}

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

/**
 * The limits when neither the caller nor the environment sets them. A member of 512 MiB is
 * about the longest text V8 can hold as one string (a bigger `conversations.json` could not be
 * parsed in any case), and parsing that much JSON takes a few GiB of memory already. The
 * largest real ChatGPT exports hold a `conversations.json` of a few hundred MiB and, with
 * images and voice recordings, tens of thousands of members.
 */
export const DEFAULT_ZIP_LIMITS: ZipLimits = { member: 512 * MiB, total: 4 * GiB, members: 1_000_000 };

/** The environment variable of each limit. */
export const ZIP_LIMIT_VARIABLES: Readonly<Record<keyof ZipLimits, string>> = {
	member: "SESSION_TREE_ZIP_MEMBER_LIMIT",
	total: "SESSION_TREE_ZIP_TOTAL_LIMIT",
	members: "SESSION_TREE_ZIP_MEMBERS_LIMIT",
};

const UNITS: Readonly<Record<string, number>> = {
	"": 1,
	b: 1,
	k: KiB,
	kb: KiB,
	kib: KiB,
	m: MiB,
	mb: MiB,
	mib: MiB,
	g: GiB,
	gb: GiB,
	gib: GiB,
	t: 1024 * GiB,
	tb: 1024 * GiB,
	tib: 1024 * GiB,
};

/**
 * A size as people write it: `1048576`, `64KiB`, `512 MiB`, `2G` (units are powers of 1024).
 * @throws SessionTreeError INVALID_ARGUMENT for anything else, naming `what`
 */
export function parseByteSize(text: string, what: string): number {
	const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
	const unit = match ? UNITS[(match[2] ?? "").toLowerCase()] : undefined;
	const bytes = match && unit !== undefined ? Math.floor(Number(match[1]) * unit) : Number.NaN;
	if (!Number.isSafeInteger(bytes) || bytes <= 0) {
		throw new SessionTreeError(
			"INVALID_ARGUMENT",
			`${what}: ${JSON.stringify(text)} is not a size (a positive number of bytes, or with KiB, MiB, GiB)`,
		);
	}
	return bytes;
}

/**
 * The limits in effect: those given, else the environment's, else the defaults.
 * @throws SessionTreeError INVALID_ARGUMENT for an environment variable that is not a size or count
 */
export function zipLimits(given: Partial<ZipLimits> = {}, env: NodeJS.ProcessEnv = process.env): ZipLimits {
	const pick = (key: keyof ZipLimits): number => {
		const value = given[key];
		if (value !== undefined) {
			if (!Number.isSafeInteger(value) || value <= 0) {
				throw new SessionTreeError("INVALID_ARGUMENT", `zip limit ${key}: ${value} is not a positive whole number`);
			}
			return value;
		}
		const variable = ZIP_LIMIT_VARIABLES[key];
		const text = env[variable];
		return text === undefined || text === "" ? DEFAULT_ZIP_LIMITS[key] : parseByteSize(text, variable);
	};
	return { member: pick("member"), total: pick("total"), members: pick("members") };
}

/** A file member of an archive, as its central directory lists it. */
export interface ZipMember {
	readonly name: string;
	/** Bytes it inflates to, as declared. */
	readonly size: number;
	readonly compressedSize: number;
	/** 0 stored, 8 deflated. */
	readonly method: number;
	readonly flags: number;
	/** Where its local header starts. */
	readonly offset: number;
}

/** An archive problem as an error naming the archive. */
function zipError(archive: string, message: string): SessionTreeError {
	return new SessionTreeError("INVALID_ARGUMENT", message, { file: archive });
}

function damaged(archive: string, why: string): SessionTreeError {
	return zipError(archive, `not a readable ZIP archive (${why})`);
}

/** Reads exactly `length` bytes at `position`, or fails naming the archive. */
function readAt(fd: number, archive: string, position: number, length: number): Uint8Array {
	const bytes = new Uint8Array(length);
	let done = 0;
	while (done < length) {
		const read = readSync(fd, bytes, done, length - done, position + done);
		if (read === 0) throw damaged(archive, `it ends at byte ${position + done}, before the data its directory names`);
		done += read;
	}
	return bytes;
}

const u16 = (b: Uint8Array, at: number): number => (b[at] ?? 0) | ((b[at + 1] ?? 0) << 8);
const u32 = (b: Uint8Array, at: number): number => (u16(b, at) + u16(b, at + 2) * 0x10000) >>> 0;
const u64 = (b: Uint8Array, at: number): number => u32(b, at) + u32(b, at + 4) * 0x1_0000_0000;

const END_OF_DIRECTORY = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_END = 0x06064b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;

/** The central directory's place and length, and how many members it lists (ZIP64 included). */
function findDirectory(fd: number, archive: string, size: number): { offset: number; length: number; count: number } {
	if (size < 22) throw damaged(archive, "too short");
	const tailLength = Math.min(size, 22 + 0xffff);
	const tail = readAt(fd, archive, size - tailLength, tailLength);
	let at = tailLength - 22;
	while (at >= 0 && u32(tail, at) !== END_OF_DIRECTORY) at--;
	if (at < 0) throw damaged(archive, "no end of central directory");
	if (u16(tail, at + 4) !== 0 || u16(tail, at + 6) !== 0) throw damaged(archive, "an archive split over several files");
	let count = u16(tail, at + 10);
	let length = u32(tail, at + 12);
	let offset = u32(tail, at + 16);
	if (count === 0xffff || length === 0xffffffff || offset === 0xffffffff) {
		const locator = at - 20;
		if (locator >= 0 && u32(tail, locator) === ZIP64_LOCATOR) {
			const end = readAt(fd, archive, u64(tail, locator + 8), 56);
			if (u32(end, 0) !== ZIP64_END) throw damaged(archive, "a broken ZIP64 end of central directory");
			count = u64(end, 32);
			length = u64(end, 40);
			offset = u64(end, 48);
		}
	}
	if (offset + length > size) throw damaged(archive, "its central directory lies past its end");
	return { offset, length, count };
}

/** The ZIP64 extra field's sizes and offset, where the directory entry's own are 0xffffffff. */
function zip64Fields(
	extra: Uint8Array,
	fields: { size: number; compressedSize: number; offset: number },
): { size: number; compressedSize: number; offset: number } {
	for (let at = 0; at + 4 <= extra.length; at += 4 + u16(extra, at + 2)) {
		if (u16(extra, at) !== 0x0001) continue;
		let next = at + 4;
		const take = (value: number) => {
			if (value !== 0xffffffff || next + 8 > extra.length) return value;
			next += 8;
			return u64(extra, next - 8);
		};
		const size = take(fields.size);
		const compressedSize = take(fields.compressedSize);
		return { size, compressedSize, offset: take(fields.offset) };
	}
	return fields;
}

const utf8 = new TextDecoder("utf-8");
const latin1 = new TextDecoder("latin1");

/**
 * The file members of an archive that `want` takes (by name), in directory order; folders
 * left out. Only the end of the archive and its central directory are read.
 * @throws SessionTreeError INVALID_ARGUMENT for what is no readable archive, or one that lists
 *   more members than `limits.members`
 */
export function zipMembers(
	archive: string,
	limits: ZipLimits,
	want: (name: string) => boolean = () => true,
): ZipMember[] {
	const { fd } = openRegularFile(archive);
	try {
		const size = fstatSync(fd).size;
		const directory = findDirectory(fd, archive, size);
		if (directory.count > limits.members) {
			throw zipError(
				archive,
				`the archive lists ${directory.count.toLocaleString("en-US")} members, more than the limit of ${limits.members.toLocaleString("en-US")} (${ZIP_LIMIT_VARIABLES.members} raises it): nothing of it was read`,
			);
		}
		const end = directory.offset + directory.length;
		// A window of the directory: entries are read from it, and it moves on when one does not fit.
		let window: Uint8Array = new Uint8Array(0);
		let windowAt = directory.offset;
		const bytes = (at: number, length: number): Uint8Array => {
			if (at + length > end) throw damaged(archive, "its central directory is cut short");
			if (at + length > windowAt + window.length) {
				window = readAt(fd, archive, at, Math.min(end - at, Math.max(length, MiB)));
				windowAt = at;
			}
			return window.subarray(at - windowAt, at - windowAt + length);
		};
		const members: ZipMember[] = [];
		let at = directory.offset;
		for (let index = 0; index < directory.count; index++) {
			const entry = bytes(at, 46);
			if (u32(entry, 0) !== DIRECTORY_ENTRY) throw damaged(archive, `its central directory is broken at byte ${at}`);
			const flags = u16(entry, 8);
			const method = u16(entry, 10);
			const nameLength = u16(entry, 28);
			const extraLength = u16(entry, 30);
			const fields = { compressedSize: u32(entry, 20), size: u32(entry, 24), offset: u32(entry, 42) };
			const commentLength = u16(entry, 32);
			const nameBytes = bytes(at + 46, nameLength);
			// Bit 11 says the name is UTF-8; else it is CP437, read as Latin-1 (as fflate reads it).
			const name = (flags & 0x800 ? utf8 : latin1).decode(nameBytes);
			if (!name.endsWith("/") && want(name)) {
				const { size, compressedSize, offset } = zip64Fields(bytes(at + 46 + nameLength, extraLength), fields);
				members.push({ name, size, compressedSize, method, flags, offset });
			}
			at += 46 + nameLength + extraLength + commentLength;
		}
		return members;
	} finally {
		closeSync(fd);
	}
}

/**
 * Refuses members to be read that would inflate past the limits, by their declared sizes
 * (before anything is inflated; {@link readZipMember} holds each to its declared size).
 * @throws SessionTreeError INVALID_ARGUMENT naming the archive, the member, the limit and the variable that raises it
 */
export function checkZipLimits(archive: string, members: readonly ZipMember[], limits: ZipLimits): void {
	let total = 0;
	for (const member of members) {
		if (member.size > limits.member) {
			throw zipError(
				archive,
				`member ${member.name} inflates to ${formatBytes(member.size)}, more than the limit of ${formatBytes(limits.member)} per member (${ZIP_LIMIT_VARIABLES.member}=SIZE raises it, e.g. ${ZIP_LIMIT_VARIABLES.member}=1GiB): nothing of the archive was read`,
			);
		}
		total += member.size;
	}
	if (total > limits.total) {
		throw zipError(
			archive,
			`its ${members.length} members to read inflate to ${formatBytes(total)} together, more than the limit of ${formatBytes(limits.total)} per archive (${ZIP_LIMIT_VARIABLES.total}=SIZE raises it): nothing of the archive was read`,
		);
	}
}

/** Input bytes handed to the inflater at a time: its output for one chunk is at most about 64 MiB. */
const INFLATE_CHUNK = 64 * KiB;

/**
 * A member's bytes, inflated into a buffer of its declared size: data that inflates past that
 * size is stopped there (a directory that lies: a damaged archive or a ZIP bomb).
 * @throws SessionTreeError INVALID_ARGUMENT naming the archive and the member, for data that
 *   is encrypted, of a compression method other than stored or deflate, damaged, or not of its declared size
 */
export function readZipMember(archive: string, member: ZipMember): Uint8Array {
	const fail = (why: string) => zipError(archive, `member ${member.name}: ${why}`);
	if (member.flags & 0x1) throw fail("encrypted, which session-tree cannot read");
	if (member.method !== 0 && member.method !== 8) {
		throw fail(`compressed with method ${member.method}; session-tree reads stored and deflated members only`);
	}
	const { fd } = openRegularFile(archive);
	try {
		const header = readAt(fd, archive, member.offset, 30);
		if (u32(header, 0) !== LOCAL_HEADER) throw fail(`no local header at byte ${member.offset}: a damaged archive`);
		const start = member.offset + 30 + u16(header, 26) + u16(header, 28);
		if (start + member.compressedSize > fstatSync(fd).size) throw fail("its data runs past the end of the archive");
		if (member.method === 0) {
			if (member.compressedSize !== member.size) throw fail("stored, yet its two sizes differ: a damaged archive");
			return readAt(fd, archive, start, member.size);
		}
		if (member.compressedSize === 0) {
			if (member.size === 0) return new Uint8Array(0);
			throw fail("no data, yet a size: a damaged archive");
		}
		const out = new Uint8Array(member.size);
		let filled = 0;
		let overflow = false;
		const inflater = new Inflate((chunk) => {
			if (overflow) return;
			if (filled + chunk.length > out.length) overflow = true;
			else {
				out.set(chunk, filled);
				filled += chunk.length;
			}
		});
		const end = start + member.compressedSize;
		try {
			for (let at = start; at < end && !overflow; ) {
				const input = readAt(fd, archive, at, Math.min(MiB, end - at));
				for (let i = 0; i < input.length && !overflow; i += INFLATE_CHUNK) {
					const last = at + i + INFLATE_CHUNK >= end;
					inflater.push(input.subarray(i, i + INFLATE_CHUNK), last);
				}
				at += input.length;
			}
		} catch (cause) {
			if (cause instanceof SessionTreeError) throw cause;
			throw fail(
				`its data does not inflate (${cause instanceof Error ? cause.message : String(cause)}): a damaged archive`,
			);
		}
		if (overflow) {
			throw fail(
				`inflates past the ${formatBytes(member.size)} its archive declares (stopped there): a damaged archive or a ZIP bomb; nothing of it was imported`,
			);
		}
		if (filled !== member.size) {
			throw fail(`inflates to ${filled} bytes, not the ${member.size} its archive declares: a damaged archive`);
		}
		return out;
	} finally {
		closeSync(fd);
	}
}
