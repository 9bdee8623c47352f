/**
 * Id generation. Uses the Web Crypto global (present in Node 20 and browsers), so the core
 * needs no Node module.
 */

/** Source of random bytes; replaceable for deterministic tests. */
export type RandomBytes = (length: number) => Uint8Array;

/** Bytes fetched from the platform at a time: each call into it costs far more than 4 bytes. */
const POOL_SIZE = 4096;
let pool = new Uint8Array(0);
let poolOffset = 0;

/** Cryptographically random bytes from the platform, drawn from a pool refilled 4 KiB at a time. */
export const cryptoRandomBytes: RandomBytes = (length) => {
	if (length > POOL_SIZE) return globalThis.crypto.getRandomValues(new Uint8Array(length));
	const at = takeFromPool(length);
	// A view, not a copy: a range is handed out once, and a refill makes a new pool.
	return pool.subarray(at, at + length);
};

/** Where `length` fresh bytes start in the pool (refilled when it runs out). */
function takeFromPool(length: number): number {
	if (poolOffset + length > pool.length) {
		pool = globalThis.crypto.getRandomValues(new Uint8Array(POOL_SIZE));
		poolOffset = 0;
	}
	const at = poolOffset;
	poolOffset += length;
	return at;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

function toHex(bytes: Uint8Array): string {
	let out = "";
	for (let i = 0; i < bytes.length; i++) out += HEX[bytes[i] ?? 0];
	return out;
}

/** 8 random hex digits straight from the pool: no view of it is made (an entry id per append). */
function pooledHex8(): string {
	const at = takeFromPool(4);
	return (HEX[pool[at] ?? 0] ?? "") + HEX[pool[at + 1] ?? 0] + HEX[pool[at + 2] ?? 0] + HEX[pool[at + 3] ?? 0];
}

/** True for a well-formed entry id: 8 lower-case hex characters. */
export function isEntryId(value: string): boolean {
	return /^[0-9a-f]{8}$/.test(value);
}

/**
 * A fresh 8-hex entry id that `taken` does not already hold. With 2^32 ids the loop ends
 * at once in practice; it gives up only if the id space is essentially full.
 */
export function newEntryId(taken: (id: string) => boolean, random: RandomBytes = cryptoRandomBytes): string {
	for (let attempt = 0; attempt < 1000; attempt++) {
		const id = random === cryptoRandomBytes ? pooledHex8() : toHex(random(4));
		if (!taken(id)) return id;
	}
	throw new Error("could not find a free entry id after 1000 attempts");
}

/**
 * A deterministic 8-hex id derived from `seed` (FNV-1a, 32 bits), skipping ids `taken` holds.
 * Migration uses it so that a v1 file, which has no ids, gets the same ids every time it is
 * opened without being rewritten.
 */
export function derivedEntryId(seed: string, taken: (id: string) => boolean): string {
	for (let attempt = 0; ; attempt++) {
		const id = hashHex(derivedHash(seed, attempt));
		if (!taken(id)) return id;
	}
}

/**
 * The hash behind {@link derivedEntryId}'s id for `seed` at `attempt` (0 first), as a signed
 * 32-bit number: a small integer, which a `Set<number>` holds and compares far more cheaply than
 * the id's text (an importer deriving 200,000 ids keeps such a set; see `DerivedIds`).
 */
export function derivedHash(seed: string, attempt: number): number {
	return fnv1a32(attempt === 0 ? seed : `${seed}#${attempt}`) | 0;
}

/** The entry id of a {@link derivedHash}: its 32 bits as 8 hex digits. */
export function hashHex(hash: number): string {
	return (hash >>> 0).toString(16).padStart(8, "0");
}

function fnv1a32(text: string): number {
	let hash = 0x811c9dc5;
	for (let i = 0; i < text.length; i++) {
		hash ^= text.charCodeAt(i);
		hash = Math.imul(hash, 0x01000193) >>> 0;
	}
	return hash;
}

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then random bits, so session ids
 * sort by creation time.
 */
export function newSessionId(nowMs: number = Date.now(), random: RandomBytes = cryptoRandomBytes): string {
	const bytes = random(16);
	let ms = Math.max(0, Math.floor(nowMs));
	for (let i = 5; i >= 0; i--) {
		bytes[i] = ms % 256;
		ms = Math.floor(ms / 256);
	}
	bytes[6] = 0x70 | ((bytes[6] ?? 0) & 0x0f);
	bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f);
	const hex = toHex(bytes);
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
