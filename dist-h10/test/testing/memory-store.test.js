/** The memory store passes the conformance suite. */
import { MemorySessionStore } from "../../src/index.js";
import { storeConformance } from "../../src/testing/index.js";
let n = 0;
const made = [];
storeConformance("MemorySessionStore", {
    newStore: () => {
        const store = new MemorySessionStore(`conformance-${process.pid}-${++n}`);
        made.push(store);
        return store;
    },
    sameSession: (store) => new MemorySessionStore(store.location),
    cleanup: () => {
        for (const store of made)
            store.delete();
    },
});
//# sourceMappingURL=memory-store.test.js.map