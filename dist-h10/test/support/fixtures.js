/** Access to the golden pi fixtures in test/fixtures/pi-v3 and helpers to compare with them. */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
const here = dirname(fileURLToPath(import.meta.url));
/** The repository root (tests run from dist-test/test/...). */
export const repoRoot = resolve(here, "..", "..", "..");
/** The pi-v3 fixture folder (copied into the repository with its README and provenance). */
export const fixtureDir = resolve(repoRoot, "test", "fixtures", "pi-v3");
/** Names of every fixture case. */
export function fixtureNames() {
    return readdirSync(fixtureDir)
        .filter((name) => name.endsWith(".jsonl"))
        .map((name) => name.slice(0, -".jsonl".length))
        .sort();
}
export function fixtureFile(name) {
    return join(fixtureDir, `${name}.jsonl`);
}
export function expected(name) {
    return JSON.parse(readFileSync(join(fixtureDir, `${name}.expected.json`), "utf8"));
}
/** A value as JSON sees it (undefined fields dropped), as pi's expected files were written. */
export function asJson(value) {
    return JSON.parse(JSON.stringify(value));
}
/** The session's tree as the fixture's flat rows. */
export function treeRows(session) {
    return session.flattenTree().map(({ entry, depth, label }) => {
        const row = { id: entry.id, parentId: entry.parentId, type: entry.type, depth };
        if (label !== undefined)
            row.label = label;
        return row;
    });
}
/** `[{role, text}]` of context messages, as the fixture README defines `contextRoles`. */
export function contextRoles(messages) {
    return messages.map((message) => {
        const role = String(message.role);
        if (role === "compactionSummary" || role === "branchSummary")
            return { role, text: String(message.summary) };
        const content = message.content;
        if (typeof content === "string")
            return { role, text: content };
        const parts = content.map((block) => {
            if (block.type === "text")
                return String(block.text);
            if (block.type === "thinking")
                return `[thinking] ${String(block.thinking)}`;
            if (block.type === "toolCall")
                return `[toolCall ${String(block.name)} ${JSON.stringify(block.arguments)}]`;
            return `[image ${String(block.mimeType)}]`;
        });
        return { role, text: parts.join("\n") };
    });
}
//# sourceMappingURL=fixtures.js.map