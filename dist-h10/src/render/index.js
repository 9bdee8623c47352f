/** Text renderers for session trees and model contexts. */
export * from "./color.js";
export * from "./context-text.js";
export * from "./preview.js";
export * from "./terminal.js";
export * from "./tree-text.js";
//# sourceMappingURL=index.js.map