/**
 * The project's one seeded generator, for tests and the bench: the same numbers for the same
 * seed on every run, so that a failing seed can be run again.
 */

/** mulberry32: a small, fast, seedable 32-bit generator of numbers in [0, 1). */
export function mulberry32(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}
