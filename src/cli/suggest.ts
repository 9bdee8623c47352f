/** "Did you mean …?" for a mistyped command: the nearest name by edit distance. */

/**
 * The name of `names` nearest to `given` (Levenshtein distance, ties to the first), when it is
 * close enough to be a typo: 1 edit for a word of up to 3 letters, else 2.
 */
export function nearestName(given: string, names: readonly string[]): string | undefined {
	const word = given.toLowerCase();
	let best: string | undefined;
	let bestDistance = Number.POSITIVE_INFINITY;
	for (const name of names) {
		const distance = editDistance(word, name);
		if (distance < bestDistance) {
			best = name;
			bestDistance = distance;
		}
	}
	return bestDistance <= (word.length <= 3 ? 1 : 2) ? best : undefined;
}

/** The Levenshtein distance of two strings (two rows: short words, no recursion). */
export function editDistance(a: string, b: string): number {
	let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
	for (let i = 1; i <= a.length; i++) {
		const current = [i];
		for (let j = 1; j <= b.length; j++) {
			const cost = a[i - 1] === b[j - 1] ? 0 : 1;
			current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
		}
		previous = current;
	}
	return previous[b.length] ?? 0;
}
