/** The local web app of `session-tree serve` (docs/serve.md). */

export { agentSources, type IndexSource, openCatalog, type ServeCatalog } from "./catalog.js";
export { createServer, isLoopback, type RunningServer, type ServeOptions } from "./server.js";
export { storeSource } from "./sources.js";
