/**
 * Where the time goes: runs one benchmark measurement under `node --cpu-prof` and prints the
 * functions with the most self time (optionally only samples under a function matching --within).
 *
 *   npx tsc -p bench/tsconfig.json
 *   node bench/data/.build/bench/profile.js [--side ours|pi] [--op resume] [--file s100k] [--within REGEX] [--top N]
 *
 * --file takes a generated file's name (see bench/data) or a path. The .cpuprofile is kept in
 * bench/data/profiles/ for Chrome DevTools or speedscope.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { DATA_DIR, dataPath, REPO_ROOT } from "./generate.js";
/** Self time by function (microseconds), for samples whose stack holds a frame matching `within`. */
export function selfTimes(profile, within) {
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    const parent = new Map();
    for (const node of profile.nodes)
        for (const child of node.children ?? [])
            parent.set(child, node.id);
    const label = (node) => {
        const url = node.callFrame.url.replace(/^.*\/(bench|src|node_modules)\//, "$1/").replace(/^file:\/\//, "");
        return `${node.callFrame.functionName || "(anonymous)"} ${url}${url ? `:${node.callFrame.lineNumber + 1}` : ""}`;
    };
    const self = new Map();
    let total = 0;
    for (let i = 0; i < profile.samples.length; i++) {
        const id = profile.samples[i];
        const delta = profile.timeDeltas[i] ?? 0;
        if (within) {
            let inside = false;
            for (let at = id; at !== undefined; at = parent.get(at)) {
                const node = byId.get(at);
                if (node && within.test(label(node))) {
                    inside = true;
                    break;
                }
            }
            if (!inside)
                continue;
        }
        const node = byId.get(id);
        if (!node)
            continue;
        total += delta;
        const key = label(node);
        self.set(key, (self.get(key) ?? 0) + delta);
    }
    return { total, rows: [...self].sort((a, b) => b[1] - a[1]) };
}
function main(argv) {
    const arg = (name, fallback) => {
        const i = argv.indexOf(name);
        return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : fallback;
    };
    const side = arg("--side", "ours");
    const op = arg("--op", "resume");
    const name = arg("--file", "s100k");
    const file = existsSync(dataPath(name)) ? dataPath(name) : resolve(name);
    const within = argv.includes("--within") ? new RegExp(arg("--within", "")) : undefined;
    const top = Number(arg("--top", "25"));
    const main = resolveModule("@mariozechner/pi-coding-agent");
    const task = { side, op, file, piModule: main ? new URL("./core/session-manager.js", main).href : undefined };
    const dir = join(DATA_DIR, "profiles", `${side}-${op}-${Date.now()}`);
    mkdirSync(dir, { recursive: true });
    const child = join(dirname(fileURLToPath(import.meta.url)), "child.js");
    const run = spawnSync(process.execPath, ["--cpu-prof", "--cpu-prof-dir", dir, "--cpu-prof-interval", "200", child, JSON.stringify(task)], { encoding: "utf8" });
    console.log(`${side} ${op} ${file}\n${run.stdout.trim()}`);
    const profileFile = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
    if (!profileFile)
        throw new Error(`no profile written (${run.stderr.trim()})`);
    const { total, rows } = selfTimes(JSON.parse(readFileSync(join(dir, profileFile), "utf8")), within);
    console.log(`\nself time${within ? ` under /${within.source}/` : " (whole process)"}: ${(total / 1000).toFixed(0)} ms`);
    for (const [key, us] of rows.slice(0, top)) {
        console.log(`${(us / 1000).toFixed(1).padStart(9)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%  ${key}`);
    }
    console.log(`\nprofile: ${join(dir, profileFile)}`);
}
function resolveModule(specifier) {
    const probe = spawnSync(process.execPath, ["--input-type=module", "-e", `process.stdout.write(import.meta.resolve(${JSON.stringify(specifier)}))`], { cwd: REPO_ROOT, encoding: "utf8" });
    return probe.status === 0 && probe.stdout ? probe.stdout : undefined;
}
main(process.argv.slice(2));
//# sourceMappingURL=profile.js.map