/**
 * Turning the parsed lines of a session file into a {@link SessionTree}: header checks,
 * migration, entry checks, parent linking, cycle detection and the leaf pointer. Pure: the
 * storage layer reads the lines, this module decides what they mean.
 *
 * Strict loading (the default) throws a {@link SessionTreeError} naming the line of the first
 * problem. Lenient loading keeps what it can, bridges gaps instead of cutting the tree there,
 * and returns every problem it worked around.
 */

import { SessionTreeError, type SessionTreeErrorCode } from "./errors.js";
import { derivedEntryId } from "./ids.js";
import { type Envelope, LazyBodies, type LineSource } from "./lazy.js";
import { headerVersion, migrateRecords, type RawRecord } from "./migrate.js";
import { SessionTree, type TreeNode } from "./tree.js";
import { CURRENT_SESSION_VERSION, type SessionEntry, type SessionHeader } from "./types.js";
import { entryContentError, entryShapeError } from "./validate.js";

/** One line of a file: the parsed record, or why it could not be parsed. */
export interface ParsedLine {
	/** 1-based line number. */
	line: number;
	record?: RawRecord;
	/** Why the line is not one record. */
	error?: SessionTreeError;
	/** Records recovered from a damaged line (see the codec). */
	salvaged?: RawRecord[];
	/** The line is an incomplete last line: reported, never fatal, left out of the tree. */
	torn?: boolean;
	/**
	 * Instead of `record`: the envelope of an entry whose body was not parsed (see `lazy.ts`);
	 * the loader's `source` reads it when needed.
	 */
	envelope?: Envelope;
}

/** A problem found while loading, with where it was. */
export interface LoadProblem {
	code: SessionTreeErrorCode;
	message: string;
	line?: number;
	entryId?: string;
}

/** Options of {@link loadTree}. */
export interface LoadOptions {
	/** Keep going past problems and report them instead of throwing. Default false. */
	lenient?: boolean;
	/** The file name, for messages. */
	file?: string;
	/** Where the bodies of lines given as envelopes are read from. */
	source?: LineSource;
}

/** What {@link loadTree} returns. */
export interface LoadResult {
	tree: SessionTree;
	/** Problems worked around (lenient loads only; a strict load throws on the first). */
	problems: LoadProblem[];
	/** The version the file had; less than 3 when it was migrated in memory. */
	fromVersion: number;
	/** Id of the persisted-leaf record the leaf came from, if any. */
	leafRecordId: string | undefined;
	/** Every persisted-leaf record, id → target: new entries must not reuse these ids. */
	leafRecords: Map<string, string | null>;
}

/** Builds the tree of a session from its parsed lines (header first). */
export function loadTree(lines: readonly ParsedLine[], options: LoadOptions = {}): LoadResult {
	const problems: LoadProblem[] = [];
	// `action` says what a lenient load did about the problem; a strict load stops instead.
	const report = (problem: LoadProblem, action?: string) => {
		if (!options.lenient) {
			throw new SessionTreeError(problem.code, problem.message, { file: options.file, line: problem.line });
		}
		problems.push(action ? { ...problem, message: `${problem.message}; ${action}` } : problem);
	};

	const firstIndex = lines.findIndex((parsed) => !parsed.torn);
	const first = lines[firstIndex];
	if (!first) {
		const torn = lines.length > 0 ? " (only an incomplete line)" : "";
		throw new SessionTreeError("EMPTY_FILE", `the file holds no session header${torn}`, { file: options.file });
	}
	const { header, headerIsEntry } = checkHeader(first, options, report);
	const fromVersion = headerVersion(header);
	if (fromVersion > CURRENT_SESSION_VERSION) {
		throw new SessionTreeError(
			"UNSUPPORTED_VERSION",
			`session format version ${fromVersion} is newer than this library supports (${CURRENT_SESSION_VERSION})`,
			{ file: options.file, line: first.line },
		);
	}

	// Lines that hold records (parsed, or indexed by envelope); lines that did not parse are
	// reported (or, strict, fatal).
	const items: ParsedLine[] = [];
	const body = headerIsEntry ? lines.slice(firstIndex) : lines.slice(firstIndex + 1);
	const bodies = options.source
		? new LazyBodies(options.source, { lenient: options.lenient ?? false, file: options.file, problems })
		: undefined;
	for (const parsed of body) {
		if (parsed.record || (parsed.envelope && bodies)) {
			items.push(parsed);
			continue;
		}
		const error = parsed.error ?? new SessionTreeError("INVALID_JSON", "unreadable line");
		const problem = { code: error.code, message: stripLocation(error), line: parsed.line };
		if (parsed.torn) {
			// An append that never completed was never acknowledged: nothing is lost by leaving it out.
			problems.push({ ...problem, message: `${problem.message}; left out (an append that never completed)` });
		} else if (parsed.salvaged) {
			report(problem, parsed.salvaged.length > 0 ? `kept ${parsed.salvaged.length} whole record(s)` : "skipped");
			for (const record of parsed.salvaged) items.push({ line: parsed.line, record });
		} else {
			report(problem, "skipped");
		}
	}
	// Envelopes come only from current-version files, so migration never needs their bodies.
	if (fromVersion < CURRENT_SESSION_VERSION) {
		migrateRecords(
			header,
			items.map((item) => item.record as RawRecord),
		);
	}

	// Entries in file order (shape checked, duplicates resolved) and persisted-leaf records.
	// Per entry, by its order in the tree: the parent id it names and its line.
	const tree = SessionTree.empty(header as SessionHeader);
	const parentIds: Array<string | null> = [];
	const entryLines: number[] = [];
	const leafAliases = new Map<string, string | null>();
	let lastRecord: { kind: "entry"; id: string } | { kind: "leaf"; id: string; target: string | null } | undefined;
	for (const item of items) {
		const line = item.line;
		const envelope = item.envelope;
		if (envelope && !tree.has(envelope.id)) {
			// Envelopes are only read from well-formed entries: the shape checks hold.
			tree.addLazyNode(envelope, bodies as LazyBodies);
			parentIds.push(envelope.parentId);
			entryLines.push(line);
			lastRecord = { kind: "entry", id: envelope.id };
			continue;
		}
		// A repeated id needs the whole record to tell a copy from a clash.
		const record = envelope
			? ((bodies as LazyBodies).load([envelope])[0] as unknown as RawRecord)
			: (item.record as RawRecord);
		const shapeError = entryShapeError(record);
		if (shapeError) {
			report({ code: "INVALID_RECORD", message: shapeError, line });
			continue;
		}
		const contentError = entryContentError(record);
		if (contentError)
			report({ code: "INVALID_RECORD", message: contentError, line }, "kept in the tree, left out of the context");
		const entry = record as unknown as SessionEntry;
		if (entry.type === "leaf") {
			const target = (record.targetId ?? null) as string | null;
			leafAliases.set(entry.id, target);
			lastRecord = { kind: "leaf", id: entry.id, target };
			continue;
		}
		const original = tree.getNode(entry.id);
		if (original) {
			const originalLine = entryLines[original.order] as number;
			if (JSON.stringify(original.entry) === JSON.stringify(entry)) {
				report(
					{ code: "DUPLICATE_ID", message: `entry ${entry.id} repeats line ${originalLine}`, line, entryId: entry.id },
					"the copy is skipped",
				);
				continue;
			}
			const fresh = derivedEntryId(`${header.id}:dup:${line}`, (id) => tree.has(id));
			report(
				{
					code: "DUPLICATE_ID",
					message: `entry id ${entry.id} is already used on line ${originalLine}`,
					line,
					entryId: entry.id,
				},
				`this entry is given id ${fresh}`,
			);
			entry.id = fresh;
		}
		tree.addNode(entry);
		parentIds.push(entry.parentId);
		entryLines.push(line);
		lastRecord = { kind: "entry", id: entry.id };
	}

	const nodes = tree.nodesInOrder();
	const parents = resolveParents(tree, nodes, parentIds, entryLines, leafAliases, report);
	breakCycles(nodes, parents, entryLines, report);
	for (let i = 0; i < nodes.length; i++) tree.link(nodes[i] as TreeNode, parents[i]);

	const lastEntryId = nodes.length > 0 ? (nodes[nodes.length - 1] as TreeNode).id : null;
	let leafRecordId: string | undefined;
	if (lastRecord?.kind === "leaf") {
		const target = lastRecord.target === null ? null : resolveAlias(lastRecord.target, leafAliases);
		if (target === null || tree.has(target)) {
			tree.setLeaf(target);
			leafRecordId = lastRecord.id;
		} else {
			report(
				{
					code: "ENTRY_NOT_FOUND",
					message: `the leaf pointer names entry ${lastRecord.target}, which is not in the file`,
				},
				"the last entry is the leaf instead",
			);
			tree.setLeaf(lastEntryId);
		}
	} else {
		tree.setLeaf(lastEntryId);
	}
	return { tree, problems, fromVersion, leafRecordId, leafRecords: leafAliases };
}

function stripLocation(error: SessionTreeError): string {
	const prefix = error.message.match(/^(?:.*?:\d+: |line \d+: )/);
	return prefix ? error.message.slice(prefix[0].length) : error.message;
}

function checkHeader(
	first: ParsedLine,
	options: LoadOptions,
	report: (problem: LoadProblem, action?: string) => void,
): { header: RawRecord; headerIsEntry: boolean } {
	const reason = headerProblem(first);
	if (!reason) return { header: first.record as RawRecord, headerIsEntry: false };
	if (!options.lenient) throw new SessionTreeError("INVALID_HEADER", reason, { file: options.file, line: first.line });
	// Lenient: the header is made up, and a first line that is an entry stays an entry.
	const record = first.record;
	const headerIsEntry = record !== undefined && entryShapeError(record) === undefined;
	const timestamp = headerIsEntry ? String(record.timestamp) : new Date(0).toISOString();
	const header: RawRecord = {
		type: "session",
		version: CURRENT_SESSION_VERSION,
		id: "recovered-session",
		timestamp,
		cwd: "",
	};
	report(
		{ code: "INVALID_HEADER", message: reason, line: first.line },
		"a header was made up (id recovered-session, empty cwd)",
	);
	return { header, headerIsEntry };
}

/** Why the first line is not a usable session header, or undefined when it is. */
function headerProblem(first: ParsedLine): string | undefined {
	if (!first.record) {
		const reason = first.error ? stripLocation(first.error) : "unreadable";
		return `the first line is not a session header (${reason})`;
	}
	const header = first.record;
	if (header.type !== "session") {
		return `the first line is not a session header (its type is ${JSON.stringify(header.type)}, expected "session")`;
	}
	if (typeof header.id !== "string" || header.id === "") return "the session header has no string id";
	if (header.version !== undefined && (typeof header.version !== "number" || !Number.isInteger(header.version))) {
		return `the session header's version ${JSON.stringify(header.version)} is not an integer`;
	}
	return undefined;
}

/** A child whose parentId names a persisted-leaf record belongs under that record's target. */
function resolveAlias(id: string, aliases: ReadonlyMap<string, string | null>): string | null {
	let current: string | null = id;
	for (let hops = 0; current !== null && aliases.has(current) && hops <= aliases.size; hops++) {
		current = aliases.get(current) ?? null;
	}
	return current;
}

/**
 * Resolved parent node of every entry (by order); a missing parent is bridged to the previous
 * entry. Most entries follow their parent directly, which is checked before the index.
 */
function resolveParents(
	tree: SessionTree,
	nodes: readonly TreeNode[],
	parentIds: ReadonlyArray<string | null>,
	entryLines: readonly number[],
	aliases: ReadonlyMap<string, string | null>,
	report: (problem: LoadProblem, action?: string) => void,
): Array<TreeNode | undefined> {
	const parents: Array<TreeNode | undefined> = new Array(nodes.length);
	const hasAliases = aliases.size > 0;
	for (let i = 0; i < nodes.length; i++) {
		const named = parentIds[i] as string | null;
		if (named === null) {
			parents[i] = undefined;
			continue;
		}
		const previous = i > 0 ? (nodes[i - 1] as TreeNode) : undefined;
		if (previous !== undefined && previous.id === named) {
			parents[i] = previous;
			continue;
		}
		const parentId = hasAliases ? resolveAlias(named, aliases) : named;
		const parent = parentId === null ? undefined : tree.getNode(parentId);
		if (parentId === null || parent) {
			parents[i] = parent;
			continue;
		}
		const node = nodes[i] as TreeNode;
		report(
			{
				code: "MISSING_PARENT",
				message: `entry ${node.id} names parent ${named}, which is not in the file`,
				line: entryLines[i] as number,
				entryId: node.id,
			},
			previous ? `bridged to the previous entry ${previous.id}` : "kept as a root",
		);
		parents[i] = previous;
	}
	return parents;
}

/**
 * Finds parent cycles (only possible through a parent that comes later in the file) and cuts
 * each one at an entry whose parent is later in the file, which then becomes a root. Linear.
 */
function breakCycles(
	nodes: readonly TreeNode[],
	parents: Array<TreeNode | undefined>,
	entryLines: readonly number[],
	report: (problem: LoadProblem, action?: string) => void,
): void {
	if (!parents.some((parent, i) => parent !== undefined && parent.order >= i)) return;
	const state = new Uint8Array(nodes.length); // 0 new, 1 on the current walk, 2 done
	for (let start = 0; start < nodes.length; start++) {
		if (state[start] !== 0) continue;
		const walk: number[] = [];
		let at: number | undefined = start;
		while (at !== undefined && state[at] === 0) {
			state[at] = 1;
			walk.push(at);
			at = parents[at]?.order;
		}
		if (at !== undefined && state[at] === 1) {
			const cycle = walk.slice(walk.indexOf(at));
			const cut = cycle.find((i) => (parents[i] as TreeNode).order >= i) ?? at;
			const entry = nodes[cut] as TreeNode;
			const line = entryLines[cut] as number;
			report(
				{
					code: "PARENT_CYCLE",
					message: `following parent ids from entry ${entry.id} leads back to it (a cycle of ${cycle.length})`,
					line,
					entryId: entry.id,
				},
				"it is kept as a root",
			);
			parents[cut] = undefined;
		}
		for (const i of walk) state[i] = 2;
	}
}

/**
 * Adds lines another writer appended to a loaded tree, without moving its leaf. Such lines were
 * written under the lock after their writer had read the tree, so their parents exist; anything
 * else is reported and the entry is kept as a root, never dropped.
 * @returns the problems found
 */
export function applyAppended(
	tree: SessionTree,
	lines: readonly ParsedLine[],
	leafRecords: Map<string, string | null>,
	file?: string,
): LoadProblem[] {
	const problems: LoadProblem[] = [];
	for (const parsed of lines) {
		if (parsed.error) {
			problems.push({ code: parsed.error.code, message: stripLocation(parsed.error), line: parsed.line });
		}
		const records = parsed.record ? [parsed.record] : (parsed.salvaged ?? []);
		for (const record of records) {
			const shapeError = entryShapeError(record);
			if (shapeError) {
				problems.push({ code: "INVALID_RECORD", message: shapeError, line: parsed.line });
				continue;
			}
			const entry = record as unknown as SessionEntry;
			if (entry.type === "leaf") {
				leafRecords.set(entry.id, (record.targetId ?? null) as string | null);
			} else if (tree.has(entry.id)) {
				problems.push({
					code: "DUPLICATE_ID",
					message: `entry id ${entry.id} is already used`,
					line: parsed.line,
					entryId: entry.id,
				});
			} else {
				const parentId = entry.parentId === null ? null : resolveAlias(entry.parentId, leafRecords);
				const present = parentId === null || tree.has(parentId);
				if (!present) {
					problems.push({
						code: "MISSING_PARENT",
						message: `entry ${entry.id} names parent ${entry.parentId}, which is not in ${file ?? "the file"}; kept as a root`,
						line: parsed.line,
						entryId: entry.id,
					});
				}
				tree.attach(entry, present ? parentId : null);
			}
		}
	}
	return problems;
}
