/**
 * A store that wraps another and waits a random while before and after each operation, so
 * that operations started in one order complete in another. The wrapped operation itself runs
 * as it is, atomically: only the moments it starts and its answer arrives move. Derived stores
 * are slow too. Delays come from a seeded generator, so a failing run can be repeated.
 */
/** mulberry32: a small seeded generator of numbers in [0, 1). */
function generator(seed) {
    let state = seed >>> 0;
    return () => {
        state = (state + 0x6d2b79f5) >>> 0;
        let t = state;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}
/** A {@link SessionStore} that answers late, in random order; see the module comment. */
export class SlowStore {
    inner;
    seed;
    readTail;
    random;
    maxDelayMs;
    constructor(inner, options = {}) {
        this.inner = inner;
        this.seed = options.seed ?? Math.floor(Math.random() * 2 ** 32);
        this.random = generator(this.seed);
        this.maxDelayMs = options.maxDelayMs ?? 3;
        const readTail = inner.readTail?.bind(inner);
        if (readTail)
            this.readTail = (count) => this.slowly(() => readTail(count));
    }
    get location() {
        return this.inner.location;
    }
    get capabilities() {
        return this.inner.capabilities;
    }
    exists() {
        return this.slowly(() => this.inner.exists());
    }
    create(header) {
        return this.slowly(() => this.inner.create(header));
    }
    read() {
        return this.slowly(() => this.inner.read());
    }
    readSince(position) {
        return this.slowly(() => this.inner.readSince(position));
    }
    append(records, expected) {
        return this.slowly(() => this.inner.append(records, expected));
    }
    replace(records, expected) {
        return this.slowly(() => this.inner.replace(records, expected));
    }
    derive(header) {
        return new SlowStore(this.inner.derive(header), { maxDelayMs: this.maxDelayMs, seed: this.nextSeed() });
    }
    /** Another slow store object around `inner` (for a second writer of the same session). */
    sibling(inner) {
        return new SlowStore(inner, { maxDelayMs: this.maxDelayMs, seed: this.nextSeed() });
    }
    flush() {
        return this.slowly(() => this.inner.flush());
    }
    close() {
        return this.slowly(() => this.inner.close());
    }
    nextSeed() {
        return Math.floor(this.random() * 2 ** 32);
    }
    /** Waits, runs `operation` (unchanged), waits again, answers. */
    async slowly(operation) {
        await this.pause();
        let result;
        try {
            result = await operation();
        }
        catch (error) {
            await this.pause();
            throw error;
        }
        await this.pause();
        return result;
    }
    /** A random wait: often none at all (a microtask), else up to the longest delay. */
    pause() {
        const roll = this.random();
        if (roll < 0.25)
            return Promise.resolve();
        if (roll < 0.4)
            return new Promise((done) => setImmediate(done));
        return new Promise((done) => setTimeout(done, Math.floor(this.random() * (this.maxDelayMs + 1))));
    }
}
//# sourceMappingURL=slow-store.js.map