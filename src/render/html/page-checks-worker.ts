/**
 * The worker of page-checks.ts: checks the file's entry lines from the last chunk down
 * (storage/line-chunks-reader.ts) as the page's own checks do (`holdsSecret`, `shownHint`,
 * `firstPrompt`) and keeps the lines without a secret; their bytes go to the main thread in
 * shared memory (`LineChunkStart.share`). Nothing is written anywhere.
 */

import { workerData } from "node:worker_threads";
import type { LineChunkWorkerData } from "../../storage/line-chunks.js";
import { readLineChunks } from "../../storage/line-chunks-reader.js";
import { holdsSecret } from "../redact.js";
import { shownHint } from "../shown-hints.js";
import { firstPrompt } from "../title.js";
import type { PageCheckChunk, PageCheckOptions } from "./page-checks.js";

const data = workerData as LineChunkWorkerData<PageCheckOptions>;

readLineChunks<PageCheckChunk>(data, {
	begin: (base) => ({ ...base, hints: "", promptAt: -1, prompt: undefined }),
	take(out, entry, _bytes, _start, _end, index) {
		// A record with a secret is redacted (and its secrets counted) by the main thread.
		if (data.options.redact && holdsSecret(entry)) return false;
		out.hints += shownHint(entry);
		if (out.promptAt === -1 && entry.type === "message") {
			const prompt = firstPrompt([entry]);
			if (prompt !== undefined) {
				out.promptAt = index;
				out.prompt = prompt;
			}
		}
		return true;
	},
});
