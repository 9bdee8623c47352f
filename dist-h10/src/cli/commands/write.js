/** The commands that write: new, append, branch, migrate, fork, clone. */
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { Session } from "../../session.js";
import { CliError, stringValue } from "../args.js";
import { openSession, resolveEntryId } from "../open.js";
/** Runs `session-tree new`; its name, options and help are in the registry (src/cli/registry.ts). */
export const newCommand = {
    async run({ values, io }) {
        const dir = stringValue(values, "dir");
        const cwd = stringValue(values, "cwd");
        const session = await Session.create({
            cwd: resolve(cwd ?? process.cwd()),
            ...(dir !== undefined ? { dir: resolve(dir) } : {}),
        });
        io.out(`${session.file}\n`);
        await session.close();
    },
};
/** Why a stdin line is not an agent message, or undefined when it is one. */
function messageProblem(value) {
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
        return `expected a JSON object, got ${value === null ? "null" : Array.isArray(value) ? "an array" : typeof value}`;
    }
    if (typeof value.role !== "string")
        return 'the message has no string "role"';
    return undefined;
}
/** Runs `session-tree append`; its name, options and help are in the registry (src/cli/registry.ts). */
export const appendCommand = {
    async run({ positionals, io }) {
        const session = await openSession(positionals[0], io);
        const lines = createInterface({ input: io.stdin, crlfDelay: Number.POSITIVE_INFINITY });
        let lineNumber = 0;
        let appended = 0;
        try {
            for await (const line of lines) {
                lineNumber++;
                if (line.trim() === "")
                    continue;
                let value;
                let problem;
                try {
                    value = JSON.parse(line);
                    problem = messageProblem(value);
                }
                catch (error) {
                    problem = `not valid JSON (${error.message})`;
                }
                if (problem !== undefined) {
                    const done = appended === 1 ? "1 message was" : `${appended} messages were`;
                    throw new CliError(`stdin line ${lineNumber}: ${problem}; ${done} appended before it, none after`);
                }
                io.out(`${await session.appendMessage(value)}\n`);
                appended++;
            }
        }
        finally {
            lines.close();
            await session.close();
        }
    },
};
/** Runs `session-tree branch`; its name, options and help are in the registry (src/cli/registry.ts). */
export const branchCommand = {
    async run({ positionals, io }) {
        const session = await openSession(positionals[0], io);
        try {
            await session.branch(resolveEntryId(session, positionals[1]));
        }
        finally {
            await session.close();
        }
    },
};
/** Runs `session-tree migrate`; its name, options and help are in the registry (src/cli/registry.ts). */
export const migrateCommand = {
    async run({ positionals, io }) {
        const session = await openSession(positionals[0], io);
        try {
            const backup = await session.migrate();
            io.out(backup === undefined ? "already current\n" : `${backup}\n`);
        }
        finally {
            await session.close();
        }
    },
};
/** Runs `session-tree fork`; its name, options and help are in the registry (src/cli/registry.ts). */
export const forkCommand = {
    async run({ values, positionals, io }) {
        const session = await openSession(positionals[0], io, values.lenient === true);
        const given = positionals[1];
        const id = given === undefined ? undefined : resolveEntryId(session, given);
        const dir = stringValue(values, "dir");
        const forked = await session.fork(id, dir !== undefined ? { dir: resolve(dir) } : {});
        io.out(`${forked.file}\n`);
        await forked.close();
        await session.close();
    },
};
/** Runs `session-tree clone`; its name, options and help are in the registry (src/cli/registry.ts). */
export const cloneCommand = {
    async run({ values, positionals, io }) {
        const session = await openSession(positionals[0], io, values.lenient === true);
        const dir = stringValue(values, "dir");
        const cloned = await session.clone(dir !== undefined ? { dir: resolve(dir) } : {});
        io.out(`${cloned.file}\n`);
        await cloned.close();
        await session.close();
    },
};
//# sourceMappingURL=write.js.map