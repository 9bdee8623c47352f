/** The Model Context Protocol server of `session-tree mcp` (docs/mcp.md). */

export { type McpHttpOptions, type RunningMcpHttp, startHttp } from "./http.js";
export { QUOTED_NOTICE } from "./reply.js";
export { createMcpServer, type McpOptions, openSessions, runStdio } from "./server.js";
