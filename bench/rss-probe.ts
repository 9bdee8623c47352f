/**
 * Loaded before the CLI (`node --import …/rss-probe.js dist/bin/session-tree.js …`) by the
 * "direct read" section (bench/direct-read.ts): when the process exits, writes its peak
 * resident set size and CPU time to the file named by BENCH_RSS_FILE.
 */

import { writeFileSync } from "node:fs";

const out = process.env.BENCH_RSS_FILE;
if (out) {
	process.on("exit", () => {
		const usage = process.resourceUsage();
		const figures = { maxRss: usage.maxRSS * 1024, cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000 };
		writeFileSync(out, JSON.stringify(figures));
	});
}
