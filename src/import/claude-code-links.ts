/**
 * Where the children of a Claude Code line attach (used by `claude-code.ts`). Lines that are
 * not conversation are "transparent": a later line naming the same parent hangs below them
 * instead of beside them, so hook and progress lines never make pseudo-branches.
 */

/** The key of "no parent": children of it are roots (unless a transparent line redirected it). */
export const ROOT = "\u0000root";

/**
 * Where children attach. Each line has a key (its uuid, or `#line`); a key's children attach at
 * its own entry, or at the end of the transparent lines that were hung below that point since
 * (a redirect). A line absorbed into an earlier entry (a merged assistant line) is an alias
 * of its parent's key.
 */
export class Links {
	private readonly own = new Map<string, string | null>([[ROOT, null]]);
	private readonly redirect = new Map<string, string>();
	private readonly alias = new Map<string, string>();
	/** Attach point → the keys that currently resolve to it. */
	private readonly at = new Map<string | null, Set<string>>([[null, new Set([ROOT])]]);

	knows(key: string): boolean {
		return this.own.has(key) || this.alias.has(key);
	}

	private canon(key: string): string {
		let k = key;
		for (let next = this.alias.get(k); next !== undefined; next = this.alias.get(k)) k = next;
		return k;
	}

	resolve(key: string): string | null {
		const k = this.canon(key);
		return this.redirect.get(k) ?? this.own.get(k) ?? null;
	}

	private keysAt(point: string | null): Set<string> {
		let keys = this.at.get(point);
		if (!keys) {
			keys = new Set();
			this.at.set(point, keys);
		}
		return keys;
	}

	/** A line hung at `point` now ends at `tail`, under `key`. */
	attached(point: string | null, tail: string, key: string, transparent: boolean): void {
		const keys = this.keysAt(point);
		if (transparent) {
			// Whatever would have attached at `point` attaches below this line from now on.
			const moved = this.keysAt(tail);
			for (const k of keys) {
				this.redirect.set(k, tail);
				moved.add(k);
			}
			keys.clear();
		} else {
			// A conversation line took the place: later children of those keys branch at their own entries.
			for (const k of [...keys]) {
				const home = this.own.get(k) ?? null;
				if (home === point) continue;
				this.redirect.delete(k);
				keys.delete(k);
				this.keysAt(home).add(k);
			}
		}
		this.own.set(key, tail);
		this.keysAt(tail).add(key);
	}

	/** `key` was absorbed into an earlier entry: its children attach where its parent's would. */
	absorbed(key: string, parentKey: string): void {
		this.alias.set(key, parentKey);
	}
}
