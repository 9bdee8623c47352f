/** Numbers, times and usage as the page shows them. */

import type { Usage } from "../../../core/tokens.js";
import { groupDigits } from "../../preview.js";
import { formatCost } from "../../usage.js";

/** Tokens of a usage, e.g. `in 1,234 · out 56 · cache read 7,890 · cache write 12`. */
export function formatUsage(usage: Usage): string {
	const parts = [`in ${groupDigits(usage.input)}`, `out ${groupDigits(usage.output)}`];
	if (usage.cacheRead > 0) parts.push(`cache read ${groupDigits(usage.cacheRead)}`);
	if (usage.cacheWrite > 0) parts.push(`cache write ${groupDigits(usage.cacheWrite)}`);
	parts.push(`total ${groupDigits(usage.totalTokens)}`);
	if (usage.cost > 0) parts.push(formatCost(usage.cost));
	return parts.join(" · ");
}

/** An ISO timestamp as `2026-01-05 14:03:07` (UTC, as written), or the text as it is. */
export function formatTime(iso: unknown): string {
	if (typeof iso !== "string") return "";
	const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})/.exec(iso);
	return match ? `${match[1]} ${match[2]}` : iso;
}

export { groupDigits };
