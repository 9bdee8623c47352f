/**
 * Sizes in bytes as people read them: in the importer's messages (ZIP limits, a member too large
 * to read) and the sizes `ls` shows (catalog/format.ts). Here, in the lowest layer that uses it,
 * so that import/ needs nothing of catalog/.
 */

/** A size in bytes for people: `812 B`, `4.1 KiB`, `287 KiB`, `1.2 MiB`. */
export function formatBytes(bytes: number): string {
	const units = ["B", "KiB", "MiB", "GiB", "TiB"];
	let value = bytes;
	let unit = 0;
	while (value >= 1024 && unit < units.length - 1) {
		value /= 1024;
		unit++;
	}
	if (unit === 0) return `${bytes} B`;
	const shown = value < 10 ? value.toFixed(1) : String(Math.round(value));
	// 1023.6 KiB rounds to 1024: say 1.0 MiB instead.
	if (shown === "1024" && unit < units.length - 1) return `1.0 ${units[unit + 1]}`;
	return `${shown} ${units[unit]}`;
}
