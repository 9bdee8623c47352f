/** The REPL commands about the REPL itself: help and exit. */
import { findReplSpec, REPL_COMMAND_SPECS } from "../registry.js";
import { noMoreArgs } from "./command.js";
import { ReplError } from "./state.js";
/** Width of the usage column of `help`. */
const HELP_COLUMN = 34;
/** The handlers of help and exit. */
export const META_COMMANDS = {
    help(state, args, command) {
        noMoreArgs(command, args, 1);
        const { style } = state.env;
        if (args[0] !== undefined) {
            const topic = findReplSpec(args[0]);
            if (!topic)
                throw new ReplError(`unknown command ${JSON.stringify(args[0])} (try \`help\`)`);
            state.line(`usage: ${topic.usage}`);
            state.line(`  ${topic.summary}`);
            for (const line of topic.details ?? [])
                state.line(`  ${line}`);
            if (topic.aliases?.length)
                state.line(`  also: ${topic.aliases.join(", ")}`);
            return;
        }
        // A usage wider than the column gets a line of its own, the summary below it.
        const width = Math.min(HELP_COLUMN, Math.max(...REPL_COMMAND_SPECS.map((spec) => spec.usage.length)));
        const lines = [];
        for (const spec of REPL_COMMAND_SPECS) {
            const usage = style.bold(spec.usage);
            if (spec.usage.length > width) {
                lines.push(`  ${usage}`, `  ${" ".repeat(width)}  ${spec.summary}`);
            }
            else {
                lines.push(`  ${usage}${" ".repeat(width - spec.usage.length)}  ${spec.summary}`);
            }
        }
        lines.push("", 'Ids may be abbreviated to any unique prefix. Quote text to keep spaces: "a  b".', "Tab completes commands, ids and files; Up/Down: history; help COMMAND: more.");
        state.listing(lines);
    },
    exit(state) {
        state.exitRequested = true;
    },
};
//# sourceMappingURL=meta-commands.js.map