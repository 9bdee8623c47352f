/**
 * A collection whose answers arrive late and out of order (SlowCollection, test/support/
 * slow-store.ts), and whose stores are slow stores, around the memory collection and around a
 * directory collection passes the collection suite: creates and removes at once do not depend
 * on operations completing in the order they began.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { DirectoryCollection, FileSessionStore, MemoryCollection } from "../../src/index.js";
import { collectionConformance } from "../../src/testing/index.js";
import { SlowCollection, SlowStore } from "../support/slow-store.js";

const seed = Number(process.env.SLOW_STORE_SEED ?? Math.floor(Math.random() * 2 ** 32));
process.stdout.write(`slow collection seed ${seed} (repeat with SLOW_STORE_SEED=${seed})\n`);
let seeds = seed;
const nextSeed = () => {
	seeds = (seeds * 1103515245 + 12345) % 2 ** 32;
	return seeds;
};

collectionConformance("SlowCollection around MemoryCollection", {
	newCollection: () => new SlowCollection(new MemoryCollection(), { seed: nextSeed() }),
});

const root = mkdtempSync(join(tmpdir(), "st-slow-collection-"));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
collectionConformance("SlowCollection around DirectoryCollection", {
	newCollection: () =>
		new SlowCollection(new DirectoryCollection(mkdtempSync(join(root, "sessions-"))), { seed: nextSeed() }),
	otherSession: () =>
		new SlowStore(new FileSessionStore(join(mkdtempSync(join(root, "other-")), `elsewhere-${++n}.jsonl`)), {
			seed: nextSeed(),
		}),
});
