/**
 * The directory collection (JSONL files) passes the collection suite, each case in a directory
 * of its own; a session of another directory is the one `remove` must refuse.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DirectoryCollection, FileSessionStore } from "../../src/index.js";
import { collectionConformance } from "../../src/testing/index.js";

const root = mkdtempSync(join(tmpdir(), "st-collection-"));
let n = 0;

collectionConformance("DirectoryCollection", {
	newCollection: () => new DirectoryCollection(mkdtempSync(join(root, "sessions-"))),
	otherSession: () => new FileSessionStore(join(mkdtempSync(join(root, "other-")), `elsewhere-${++n}.jsonl`)),
	cleanup: () => rmSync(root, { recursive: true, force: true }),
});
