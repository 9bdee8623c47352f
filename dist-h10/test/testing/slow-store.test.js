/**
 * A store whose answers arrive late and out of order (test/support/slow-store.ts) around the
 * memory store and around the file store passes the conformance suite: the facade and the
 * compare-and-append protocol do not depend on operations completing in the order they began.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { FileSessionStore, MemorySessionStore } from "../../src/index.js";
import { storeConformance } from "../../src/testing/index.js";
import { SlowStore } from "../support/slow-store.js";
const seed = Number(process.env.SLOW_STORE_SEED ?? Math.floor(Math.random() * 2 ** 32));
process.stdout.write(`slow store seed ${seed} (repeat with SLOW_STORE_SEED=${seed})\n`);
let seeds = seed;
const nextSeed = () => {
    seeds = (seeds * 1103515245 + 12345) % 2 ** 32;
    return seeds;
};
const slow = (store) => new SlowStore(store, { seed: nextSeed() });
const inner = (store) => {
    if (!(store instanceof SlowStore))
        throw new Error("not a slow store");
    return store.inner;
};
let n = 0;
storeConformance("SlowStore around MemorySessionStore", {
    newStore: () => slow(new MemorySessionStore(`slow-conformance-${process.pid}-${++n}`)),
    sameSession: (store) => slow(new MemorySessionStore(inner(store).location)),
});
const dir = mkdtempSync(join(tmpdir(), "st-slow-"));
after(() => rmSync(dir, { recursive: true, force: true }));
storeConformance("SlowStore around FileSessionStore", {
    newStore: () => slow(new FileSessionStore(join(dir, `session-${++n}.jsonl`))),
    sameSession: (store) => slow(new FileSessionStore(inner(store).location)),
    readBackup: (backup) => readFileSync(backup, "utf8")
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => JSON.parse(line)),
});
describe("SlowStore", () => {
    test("answers operations out of the order they were started in", async () => {
        const store = slow(new MemorySessionStore(`slow-order-${process.pid}`));
        await store.create({ type: "session", version: 3, id: "order", timestamp: new Date().toISOString(), cwd: "/" });
        const order = [];
        await Promise.all(Array.from({ length: 20 }, (_, i) => store.exists().then(() => order.push(i))));
        assert.equal(order.length, 20);
        assert.notDeepEqual(order, [...order].sort((a, b) => a - b), "some answers overtake others");
        inner(store).delete();
    });
});
//# sourceMappingURL=slow-store.test.js.map