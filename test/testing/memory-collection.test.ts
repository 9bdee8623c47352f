/** The memory collection (every memory session of the process) passes the collection suite. */

import { MemoryCollection } from "../../src/index.js";
import { collectionConformance } from "../../src/testing/index.js";

collectionConformance("MemoryCollection", { newCollection: () => new MemoryCollection() });
