/**
 * A store written by a user against the published API (test/support/user-store.ts, which
 * imports only "session-tree") passes the suite imported by package name, as it would be from
 * npm: "session-tree/testing" resolves through package.json "exports" to dist/.
 */
import { storeConformance } from "session-tree/testing";
import { MapDatabase, MapSessionStore } from "../support/user-store.js";
const database = new MapDatabase();
let n = 0;
storeConformance("a user's store (JSON objects in a Map)", {
    newStore: () => new MapSessionStore(database, `user-${++n}`),
    sameSession: (store) => new MapSessionStore(database, store.name),
    readBackup: (backup) => {
        const rows = database.backup(backup);
        if (!rows)
            throw new Error(`no backup ${backup}`);
        return rows;
    },
    cleanup: () => database.sessions.clear(),
});
//# sourceMappingURL=user-store.test.js.map