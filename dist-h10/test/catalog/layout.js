/**
 * A directory of generated sessions laid out like pi's, for the catalog and `ls`/`search` tests:
 *
 *   <agentDir>/sessions/--home-me-proj--/   named, branched, empty, damaged, not-a-session, notes.txt
 *   <agentDir>/sessions/--home-me-other--/  one session and a fork of it
 */
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Session } from "../../src/session.js";
import { defaultSessionDir } from "../../src/storage/paths.js";
export const PROJECT = "/home/me/proj";
export const OTHER = "/home/me/other";
/** A clock that starts at `iso` and advances one second per call. */
export function clock(iso) {
    let t = Date.parse(iso);
    return () => {
        const now = new Date(t);
        t += 1000;
        return now;
    };
}
export function user(text, timestamp) {
    return { role: "user", content: text, timestamp: Date.parse(timestamp) };
}
export function assistant(text, timestamp, thinking) {
    return {
        role: "assistant",
        content: [...(thinking ? [{ type: "thinking", thinking }] : []), { type: "text", text }],
        api: "anthropic-messages",
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        usage: {
            input: 10,
            output: 20,
            cacheRead: 0,
            cacheWrite: 0,
            totalTokens: 30,
            cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
        },
        stopReason: "stop",
        timestamp: Date.parse(timestamp),
    };
}
/** Builds the layout under `root`. */
export async function buildLayout(root) {
    const agentDir = join(root, "agent");
    const projectDir = defaultSessionDir(PROJECT, agentDir);
    const otherDir = defaultSessionDir(OTHER, agentDir);
    const named = await Session.create({ agentDir, cwd: PROJECT, now: clock("2025-03-01T10:00:00.000Z") });
    await named.appendModelChange("anthropic", "claude-sonnet-4-5");
    await named.appendMessage(user("What is a B-tree?", "2025-03-01T10:01:00.000Z"));
    await named.appendMessage(assistant("A balanced search tree with wide nodes.", "2025-03-01T10:05:00.000Z"));
    await named.appendSessionInfo("B-tree notes");
    const branched = await Session.create({ agentDir, cwd: PROJECT, now: clock("2025-03-02T09:00:00.000Z") });
    await branched.appendMessage(user("How do tries work?\nExplain briefly.", "2025-03-02T09:00:00.000Z"));
    const firstAnswer = await branched.appendMessage(assistant("A trie stores strings by their prefixes.", "2025-03-02T09:01:00.000Z", "Think about prefix sharing"));
    const radix = await branched.appendMessage(user("And radix trees?", "2025-03-02T09:10:00.000Z"));
    const radixAnswer = await branched.appendMessage(assistant("A radix tree merges chains of single children.", "2025-03-02T09:11:00.000Z"));
    await branched.branch(firstAnswer);
    const compare = await branched.appendMessage(user("Compare tries and B-trees", "2025-03-02T09:30:00.000Z"));
    const empty = await Session.create({ agentDir, cwd: PROJECT, now: clock("2025-03-03T08:00:00.000Z") });
    const damagedSession = await Session.create({ agentDir, cwd: PROJECT, now: clock("2025-02-10T08:00:00.000Z") });
    await damagedSession.appendMessage(user("Damaged but readable", "2025-02-10T08:00:00.000Z"));
    await damagedSession.appendMessage(assistant("Indeed.", "2025-02-10T08:01:00.000Z"));
    const damaged = damagedSession.file;
    await damagedSession.close();
    writeFileSync(damaged, `${readLines(damaged, 2).join("")}{"type":"message","id":"broken\n${readLines(damaged).slice(2).join("")}`);
    const notSession = join(projectDir, "events.jsonl");
    writeFileSync(notSession, '{"event":"start"}\n{"event":"stop"}\n');
    const notes = join(projectDir, "notes.txt");
    writeFileSync(notes, "not a session\n");
    const other = await Session.create({ agentDir, cwd: OTHER, now: clock("2025-02-20T11:00:00.000Z") });
    await other.appendMessage(user("Other project question", "2025-02-20T11:00:00.000Z"));
    const otherAnswer = await other.appendMessage(assistant("Other project answer", "2025-02-20T12:00:00.000Z"));
    const fork = await other.fork(otherAnswer);
    await fork.appendSessionInfo("Forked work");
    for (const s of [named, branched, empty, other, fork])
        await s.close();
    mkdirSync(projectDir, { recursive: true });
    // File times as an agent would have left them (search goes newest file first).
    const touch = (file, iso) => utimesSync(file, new Date(iso), new Date(iso));
    touch(named.file, "2025-03-01T10:05:00.000Z");
    touch(branched.file, "2025-03-02T09:30:00.000Z");
    touch(empty.file, "2025-03-03T08:00:00.000Z");
    touch(damaged, "2025-02-10T08:01:00.000Z");
    touch(other.file, "2025-02-20T12:00:00.000Z");
    touch(fork.file, "2025-02-20T12:30:00.000Z");
    return {
        agentDir,
        projectDir,
        otherDir,
        named: named.file,
        branched: branched.file,
        ids: { firstAnswer, radix, radixAnswer, compare },
        empty: empty.file,
        damaged,
        notSession,
        notes,
        otherSession: other.file,
        fork: fork.file,
    };
}
/** The lines of a file with their newlines (the first `count`, or all). */
function readLines(file, count) {
    const lines = readFileSync(file, "utf8").split(/(?<=\n)/);
    return count === undefined ? lines : lines.slice(0, count);
}
//# sourceMappingURL=layout.js.map