/**
 * The worker of bench/open-split.ts: scans the second half of a session file with the open's
 * line scanner and envelope reader, and sends each line packed. It loads only those modules
 * (its start is part of what is measured).
 */

import { closeSync, openSync } from "node:fs";
import { isMainThread, parentPort, workerData } from "node:worker_threads";
import { readEnvelope } from "../src/core/envelope.js";
import type { Envelope } from "../src/core/tree-node.js";
import { scanByteLines } from "../src/storage/lines.js";
import { indexOfParentMarker } from "../src/storage/parent-marker.js";

/** What the worker sends: each line of its half, packed. */
export interface Half {
	count: number;
	offsets: Float64Array;
	lengths: Int32Array;
	/** 1-based within the half. */
	lines: Int32Array;
	/** 0: a line to read and parse here; else 1 + the index of its type in `names`. */
	types: Uint8Array;
	/** 0: no role read; else 1 + the index of its role in `names`. */
	roles: Uint8Array;
	/** NaN: none. */
	endTimestamps: Float64Array;
	/** Per line: id, parent id (empty for none) and instant, their ends in `keyEnds`. */
	keys: string;
	keyEnds: Int32Array;
	/** 1 where a line's parent is the id of the line before it. */
	parentIsPrevious: Uint8Array;
	names: string[];
	/** When the worker began to scan and when it ended (ms since the epoch, as `performance.timeOrigin + now()`). */
	began: number;
	ended: number;
}

/** Whether `buffer[start, end)` holds exactly one `"parentId":` key (two records glued on a line have two). */
export function oneMarker(buffer: Buffer, start: number, end: number): boolean {
	const first = indexOfParentMarker(buffer, start);
	if (first === -1 || first >= end) return false;
	const second = indexOfParentMarker(buffer, first + 1);
	return second === -1 || second >= end;
}

/** The worker: scans from `from` to the end and sends its half. */
function scanHalf(file: string, from: number): Half {
	const fd = openSync(file, "r");
	const capacity = 1 << 17;
	const half: Half = {
		count: 0,
		offsets: new Float64Array(capacity),
		lengths: new Int32Array(capacity),
		lines: new Int32Array(capacity),
		types: new Uint8Array(capacity),
		roles: new Uint8Array(capacity),
		endTimestamps: new Float64Array(capacity),
		keys: "",
		keyEnds: new Int32Array(capacity * 3),
		parentIsPrevious: new Uint8Array(capacity),
		names: [],
		began: performance.timeOrigin + performance.now(),
		ended: 0,
	};
	const index = new Map<string, number>();
	const nameOf = (name: string): number => {
		let at = index.get(name);
		if (at === undefined) {
			at = half.names.length;
			half.names.push(name);
			index.set(name, at);
		}
		return at + 1;
	};
	const parts: string[] = [];
	let length = 0;
	let previous: Envelope | undefined;
	let lastId = "";
	try {
		for (const line of scanByteLines(fd, from, 1)) {
			const i = half.count++;
			if (i >= capacity) throw new Error("more lines than the experiment holds");
			half.offsets[i] = line.offset;
			half.lengths[i] = line.end - line.start;
			half.lines[i] = line.line;
			const envelope =
				line.terminated && oneMarker(line.buffer, line.start, line.end)
					? readEnvelope(line.buffer, line.start, line.end, line.offset, line.line, previous)
					: undefined;
			previous = envelope;
			if (!envelope) {
				for (let k = 0; k < 3; k++) half.keyEnds[i * 3 + k] = length;
				continue;
			}
			half.types[i] = nameOf(envelope.type);
			half.roles[i] = envelope.role === undefined ? 0 : nameOf(envelope.role);
			half.endTimestamps[i] = envelope.endTimestamp ?? Number.NaN;
			const parent = envelope.parentId ?? "";
			half.parentIsPrevious[i] = i > 0 && half.types[i - 1] !== 0 && parent !== "" && parent === lastId ? 1 : 0;
			for (const [k, field] of [envelope.id, half.parentIsPrevious[i] ? "" : parent, envelope.timestamp].entries()) {
				parts.push(field);
				length += field.length;
				half.keyEnds[i * 3 + k] = length;
			}
			lastId = envelope.id;
		}
	} finally {
		closeSync(fd);
	}
	half.keys = parts.join("");
	half.ended = performance.timeOrigin + performance.now();
	return half;
}

if (!isMainThread) parentPort?.postMessage(scanHalf(workerData.file as string, workerData.from as number));
