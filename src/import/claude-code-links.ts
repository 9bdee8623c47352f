/**
 * Where the children of a Claude Code line attach (used by `claude-code.ts`). Lines that are
 * not conversation are "transparent": a later line naming the same parent hangs below them
 * instead of beside them, so hook and progress lines never make pseudo-branches.
 */

/** The key of "no parent": children of it are roots (unless a transparent line redirected it). */
export const ROOT = "\u0000root";

/** The keys that currently attach at one point (an entry id, or null for a root). */
interface Cell {
	point: string | null;
	readonly keys: Set<string>;
}

/**
 * Where children attach. Each line has a key (its uuid, or `#line`); a key's children attach at
 * its own entry, or at the end of the transparent lines that were hung below that point since
 * (a redirect). A line absorbed into an earlier entry (a merged assistant line) is an alias
 * of its parent's key. The keys that attach at one point share a cell, so that a transparent
 * line moves them all at once: a run of 100,000 progress lines costs linear time, not quadratic.
 */
export class Links {
	private readonly own = new Map<string, string | null>([[ROOT, null]]);
	private readonly alias = new Map<string, string>();
	private readonly cellOf = new Map<string, Cell>();
	private readonly cellAt = new Map<string | null, Cell>();

	constructor() {
		const root: Cell = { point: null, keys: new Set([ROOT]) };
		this.cellOf.set(ROOT, root);
		this.cellAt.set(null, root);
	}

	knows(key: string): boolean {
		return this.own.has(key) || this.alias.has(key);
	}

	private canon(key: string): string {
		let k = key;
		for (let next = this.alias.get(k); next !== undefined; next = this.alias.get(k)) k = next;
		return k;
	}

	resolve(key: string): string | null {
		return this.cellOf.get(this.canon(key))?.point ?? null;
	}

	private cell(point: string | null): Cell {
		let cell = this.cellAt.get(point);
		if (!cell) {
			cell = { point, keys: new Set() };
			this.cellAt.set(point, cell);
		}
		return cell;
	}

	private join(key: string, point: string | null): void {
		const cell = this.cell(point);
		cell.keys.add(key);
		this.cellOf.set(key, cell);
	}

	/** A line hung at `point` now ends at `tail`, under `key`. */
	attached(point: string | null, tail: string, key: string, transparent: boolean): void {
		const here = this.cellAt.get(point);
		if (transparent && here) {
			// Whatever would have attached at `point` attaches below this line from now on.
			this.cellAt.delete(point);
			const there = this.cellAt.get(tail);
			if (!there) {
				here.point = tail;
				this.cellAt.set(tail, here);
			} else {
				// Merge the smaller cell into the larger.
				const [big, small] = here.keys.size >= there.keys.size ? [here, there] : [there, here];
				for (const k of small.keys) {
					big.keys.add(k);
					this.cellOf.set(k, big);
				}
				big.point = tail;
				this.cellAt.set(tail, big);
			}
		} else if (!transparent && here) {
			// A conversation line took the place: later children of those keys branch at their own entries.
			for (const k of [...here.keys]) {
				const home = this.own.get(k) ?? null;
				if (home === point) continue;
				here.keys.delete(k);
				this.join(k, home);
			}
		}
		this.own.set(key, tail);
		this.join(key, tail);
	}

	/** `key` was absorbed into an earlier entry: its children attach where its parent's would. */
	absorbed(key: string, parentKey: string): void {
		this.alias.set(key, parentKey);
	}
}
