/**
 * `session-tree/openai-agents`: a session-tree session as the memory of an OpenAI Agents SDK
 * (`@openai/agents`) app. {@link TreeSession} implements the SDK's `Session` interface (and its
 * transaction and history-rewrite capabilities), so `run(agent, input, { session })` reads and
 * writes a session tree in any store: a JSONL file, `sqlite:PATH#ID`, `postgres://…#ID`,
 * `memory:NAME`.
 *
 * The framework sees one list, the items on the active path. Nothing it does deletes an item:
 * `popItem` moves the leaf to the item's parent (the item stays in the tree, and the next items
 * start a sibling branch), `clearSession` moves the leaf before the first item, and every
 * history rewrite (a `replace_suffix` transaction, a compaction, a mutation) branches where the
 * new list first differs from the old one, keeping the old rest as a sibling branch.
 * See docs/adapters.md for the mapping of items to entries.
 *
 * Only types are imported from `@openai/agents`: session-tree never loads the SDK.
 */

import { createHash } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type {
	AgentInputItem,
	SessionHistoryMutation,
	SessionHistoryRewriteArgs,
	SessionHistoryRewriteAwareSession,
	SessionHistoryTransaction,
	SessionHistoryTransactionArgs,
	SessionHistoryTransactionAwareSession,
} from "@openai/agents";
import { isSessionTreeError, SessionTreeError } from "../core/errors.js";
import type { SessionEntry } from "../core/types.js";
import { Session } from "../session.js";
import type { CreateSessionOptions, ForkOptions, SessionEnvironment } from "../session-options.js";
import { schemeOf, storeAt } from "../storage/locations.js";
import { splitSessionUrl } from "../storage/sql/urls.js";
import type { Durability } from "../storage/store.js";
import { WriteQueue } from "../storage/write-queue.js";
import {
	canonicalJson,
	ITEM_CUSTOM_TYPE,
	itemOf,
	jsonCopy,
	type ModelLabels,
	OPERATION_CUSTOM_TYPE,
	recordOf,
	sameItem,
} from "./openai-agents-items.js";

export type { ModelLabels } from "./openai-agents-items.js";

/** Options of {@link TreeSession.open} and {@link TreeSession.openIn}. */
export interface TreeSessionOptions extends SessionEnvironment, ModelLabels {
	/**
	 * The session id when the session is created: default the `#ID` of a database location (so
	 * that the header's id is the row's name), else a fresh UUID v7.
	 */
	id?: string;
	/** The working directory stored in the header of a new session. Default `process.cwd()`. */
	cwd?: string;
	/** How durable an acknowledged append is (see docs/durability.md). */
	durability?: Durability;
}

/** An item of the active path with the entry that holds it. */
export interface ItemEntry {
	/** The entry's id: a place for {@link TreeSession.branch} and {@link TreeSession.fork}. */
	entryId: string;
	item: AgentInputItem;
}

/** What the custom entry of an applied history transaction records (`customType` `openai-agents/operation`). */
export interface OperationRecord {
	/** The transaction's `operationId`. */
	operationId: string;
	/** SHA-256 of the transaction's canonical JSON: a retry must bring the same transaction. */
	fingerprint: string;
	/** `append_items` or `replace_suffix`. */
	transaction: string;
	/** How many of the transaction's items (`items` or `replacement`) were already on the path. */
	skip: number;
	/** How many items the entries after this one hold. */
	count: number;
}

const SESSION_NAME = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * An OpenAI Agents SDK `Session` backed by a session-tree session. Calls run one after another
 * in the order they were made (reads too, so a read sees every write called before it).
 * Items are stored as JSON: `getItems` returns them deep-equal to what was added, except that
 * object keys whose value is `undefined` are absent (as with any JSON store); a value JSON
 * cannot hold (a `Uint8Array`, a `Date`…) is refused before anything is written.
 */
export class TreeSession implements SessionHistoryTransactionAwareSession, SessionHistoryRewriteAwareSession {
	/** The session-tree session: its tree, branches and every other read and write. */
	readonly session: Session;
	private readonly labels: ModelLabels;
	private readonly now: () => Date;
	/** The calls on this session, one after another. */
	private readonly queue = new WriteQueue();

	/** Wraps a session that is open already. */
	constructor(session: Session, options: ModelLabels & SessionEnvironment = {}) {
		this.session = session;
		this.labels = { api: options.api, provider: options.provider, model: options.model };
		this.now = options.now ?? (() => new Date());
	}

	/**
	 * The session at `location` (a path, a `file:` URL, `memory:NAME`, `sqlite:PATH#ID`,
	 * `postgres://…#ID`, or a registered scheme's), created when it does not exist yet.
	 */
	static async open(location: string, options: TreeSessionOptions = {}): Promise<TreeSession> {
		const store = storeAt(location, { durability: options.durability });
		if (!(await store.exists())) {
			try {
				const created = await Session.createIn(store, {
					id: options.id ?? databaseName(location),
					cwd: options.cwd,
					now: options.now,
					random: options.random,
				});
				return new TreeSession(created, options);
			} catch (error) {
				// Another writer created it first: open theirs.
				if (!isSessionTreeError(error, "FILE_EXISTS")) throw error;
			}
		}
		const opened = await Session.open(location, {
			durability: options.durability,
			now: options.now,
			random: options.random,
		});
		return new TreeSession(opened, options);
	}

	/**
	 * Session `id` of a place of many sessions, created when it does not exist yet: a directory
	 * (the file `<time>_<id>.jsonl` there, as pi names them), `sqlite:PATH`, `postgres://…`
	 * (the session named `id`), `memory:` or `memory:NAME` (the session `memory:NAME/ID`). `id` is 1 to 128 letters, digits, `.`, `_`, `:`
	 * or `-`, and becomes the session's id when it is created.
	 */
	static async openIn(dir: string, id: string, options: TreeSessionOptions = {}): Promise<TreeSession> {
		if (!SESSION_NAME.test(id)) {
			throw new SessionTreeError(
				"INVALID_ARGUMENT",
				`not a session id: ${JSON.stringify(id)} (1 to 128 of A-Z a-z 0-9 . _ : -)`,
			);
		}
		const scheme = schemeOf(dir);
		if (scheme === "memory") {
			// `memory:NAME` is a space of its own, `memory:NAME/ID`, as the adapters' keyed places name it.
			const name = dir.slice("memory:".length);
			return TreeSession.open(name === "" ? `memory:${id}` : `memory:${name}/${id}`, { ...options, id });
		}
		if (scheme !== undefined && scheme !== "file") {
			if (dir.includes("#")) {
				throw new SessionTreeError(
					"INVALID_ARGUMENT",
					"a place of many sessions is a database location, without #SESSION_ID",
					{ file: dir },
				);
			}
			return TreeSession.open(`${dir}#${id}`, { ...options, id });
		}
		const path = scheme === "file" ? fileURLToPath(dir) : resolve(dir);
		const suffix = `_${id}.jsonl`;
		const existing = existsSync(path) ? readdirSync(path).find((name) => name.endsWith(suffix)) : undefined;
		if (existing !== undefined) return TreeSession.open(join(path, existing), options);
		const { durability, cwd, now, random } = options;
		return new TreeSession(await Session.create({ dir: path, id, durability, cwd, now, random }), options);
	}

	/** A new session, wherever {@link Session.create} puts it (`dir`, `file`, `location`, pi's layout). */
	static async create(options: CreateSessionOptions & ModelLabels = {}): Promise<TreeSession> {
		return new TreeSession(await Session.create(options), options);
	}

	/** Where the session lives (a path, or a location such as `sqlite:PATH#ID`). */
	get location(): string {
		return this.session.location;
	}

	// ---- the Agents SDK Session interface ----------------------------------------------------

	/** The session-tree session's id (the header's). */
	async getSessionId(): Promise<string> {
		return this.session.getSessionId();
	}

	/** The items of the active path, oldest first; with `limit`, the last `limit` of them. */
	getItems(limit?: number): Promise<AgentInputItem[]> {
		return this.serialize(async () => {
			const items = this.pathItems().map(({ item }) => structuredClone(item));
			if (limit === undefined) return items;
			return limit > 0 ? items.slice(-limit) : [];
		});
	}

	/** Appends the items to the active path, one entry each. */
	async addItems(items: AgentInputItem[]): Promise<void> {
		const copies = this.copies(items, "items");
		return this.serialize(async () => {
			for (const item of copies) await this.appendItem(item);
		});
	}

	/**
	 * Takes the last item off the active path: the leaf moves to its entry's parent and the item
	 * is returned. It stays in the tree; the next items start a sibling branch there.
	 */
	popItem(): Promise<AgentInputItem | undefined> {
		return this.serialize(async () => {
			const last = this.pathItems().at(-1);
			if (last === undefined) return undefined;
			await this.moveTo(last.entry.parentId);
			return structuredClone(last.item);
		});
	}

	/**
	 * Empties the list the framework sees: the leaf moves before the first item of the active
	 * path (to that entry's parent, or before the root). Nothing is deleted: the old items stay
	 * in the tree, and the next items start a new branch (a new root when the first item was one).
	 */
	clearSession(): Promise<void> {
		return this.serialize(async () => {
			const first = this.pathItems()[0];
			if (first !== undefined) await this.moveTo(first.entry.parentId);
		});
	}

	/**
	 * Replaces the history with a compaction item and the items it retains: a rewrite, so the
	 * active path branches where the new list first differs (before the first item, for a
	 * leading compaction item) and the uncompacted history stays as a sibling branch.
	 */
	async replaceHistoryWithCompaction(items: AgentInputItem[]): Promise<void> {
		const copies = this.copies(items, "items");
		return this.serialize(() => this.rewrite(copies));
	}

	/**
	 * Applies `replace_function_call` mutations (the function call with that `callId` replaced,
	 * later ones with the same `callId` dropped) as a rewrite: the path branches before the first
	 * changed item, and the original stays as a sibling branch.
	 */
	async applyHistoryMutations(args: SessionHistoryRewriteArgs): Promise<void> {
		const mutations = args.mutations.map((mutation, index) => {
			if (mutation.type !== "replace_function_call" || typeof mutation.callId !== "string") {
				throw new SessionTreeError("INVALID_ARGUMENT", `mutations[${index}]: unsupported history mutation`);
			}
			return jsonCopy(mutation, `mutations[${index}]`) as SessionHistoryMutation;
		});
		return this.serialize(async () => {
			if (mutations.length === 0) return;
			let items = this.pathItems().map(({ item }) => item);
			for (const mutation of mutations) items = replaceFunctionCall(items, mutation);
			await this.rewrite(items);
		});
	}

	/**
	 * Applies a history transaction once. `append_items` appends; `replace_suffix` checks that the
	 * last items equal `expectedSuffix` and rewrites them as `replacement`, branching where they
	 * first differ (the old suffix stays as a sibling branch). The operation is recorded in a
	 * custom entry (`openai-agents/operation`) written before the new items: an `operationId`
	 * found anywhere in the session makes the call a no-op when the transaction is the same (a
	 * transaction cut short midway, its marker and only some items written, is completed first
	 * if the leaf is still where it stopped), and an error when it differs.
	 * @throws SessionTreeError INVALID_ARGUMENT for a malformed transaction, an operation id
	 *   reused with another transaction, or a suffix that no longer matches; nothing is written
	 */
	async applyHistoryTransaction(args: SessionHistoryTransactionArgs): Promise<void> {
		const { operationId, transaction } = checkTransaction(args);
		const fingerprint = createHash("sha256").update(canonicalJson(transaction)).digest("hex");
		return this.serialize(async () => {
			const applied = this.findOperation(operationId);
			if (applied !== undefined) {
				if (applied.record.fingerprint !== fingerprint) {
					throw new SessionTreeError(
						"INVALID_ARGUMENT",
						`history operation ${JSON.stringify(operationId)} was already applied with a different transaction`,
						{ file: this.location },
					);
				}
				await this.completeOperation(applied.entryId, applied.record, transaction);
				return;
			}
			const current = this.pathItems().map(({ item }) => item);
			let base = current.length;
			let next: AgentInputItem[];
			if (transaction.type === "append_items") {
				next = [...current, ...transaction.items];
			} else {
				base = current.length - transaction.expectedSuffix.length;
				const matches =
					base >= 0 && transaction.expectedSuffix.every((item, index) => sameItem(current[base + index], item));
				if (!matches) {
					throw new SessionTreeError(
						"INVALID_ARGUMENT",
						"the session's last items no longer match the transaction's expectedSuffix",
						{ file: this.location },
					);
				}
				next = [...current.slice(0, base), ...transaction.replacement];
			}
			await this.rewrite(next, (common) => ({
				operationId,
				fingerprint,
				transaction: transaction.type,
				skip: common - base,
				count: next.length - common,
			}));
		});
	}

	// ---- branches ------------------------------------------------------------------------------

	/** The items of the active path with the ids of the entries that hold them. */
	getItemEntries(): Promise<ItemEntry[]> {
		return this.serialize(async () =>
			this.pathItems().map(({ entry, item }) => ({ entryId: entry.id, item: structuredClone(item) })),
		);
	}

	/**
	 * Moves the leaf to an entry (persisted): the framework then sees the items from the root to
	 * it, and the next items start a branch there.
	 */
	branch(entryId: string): Promise<void> {
		return this.serialize(() => this.session.branch(entryId));
	}

	/**
	 * A new session holding the path from the root to `entryId` (default: the leaf), beside this
	 * one in the same store unless `options` say where; its header names this one as parent.
	 */
	fork(entryId?: string, options: ForkOptions = {}): Promise<TreeSession> {
		return this.serialize(
			async () => new TreeSession(await this.session.fork(entryId, options), { ...this.labels, now: this.now }),
		);
	}

	/** Makes every acknowledged write durable now. */
	flush(): Promise<void> {
		return this.serialize(() => this.session.flush());
	}

	/** Releases the store's handles after the calls made before it. */
	close(): Promise<void> {
		return this.serialize(() => this.session.close());
	}

	// ---- internals -----------------------------------------------------------------------------

	private serialize<T>(operation: () => Promise<T>): Promise<T> {
		return this.queue.run(operation);
	}

	/** JSON copies of items, checked before anything is written. */
	private copies(items: readonly AgentInputItem[], where: string): AgentInputItem[] {
		if (!Array.isArray(items)) throw new SessionTreeError("INVALID_ARGUMENT", `${where} must be an array of items`);
		return items.map((item, index) => checkedItem(item, `${where}[${index}]`));
	}

	/** The item entries of the active path, root first. */
	private pathItems(): Array<{ entry: SessionEntry; item: AgentInputItem }> {
		const out: Array<{ entry: SessionEntry; item: AgentInputItem }> = [];
		for (const entry of this.session.getBranch()) {
			const item = itemOf(entry);
			if (item !== undefined) out.push({ entry, item });
		}
		return out;
	}

	private appendItem(item: AgentInputItem): Promise<string> {
		const record = recordOf(item, this.labels, this.now().getTime());
		if (record.kind === "message") return this.session.appendMessage(record.message);
		return this.session.appendCustomEntry(ITEM_CUSTOM_TYPE, record.data);
	}

	/** Moves the leaf to `id` (null: before the first entry) unless it is there. */
	private async moveTo(id: string | null): Promise<void> {
		if (id === this.session.getLeafId()) return;
		if (id === null) await this.session.resetLeaf();
		else await this.session.branch(id);
	}

	/**
	 * Makes `next` the items of the active path: the common prefix stays, the leaf moves before
	 * the first item that differs (the old rest stays as a sibling branch), an operation record
	 * is written there when asked for, then the rest of `next`.
	 */
	private async rewrite(next: AgentInputItem[], operation?: (common: number) => OperationRecord): Promise<void> {
		const current = this.pathItems();
		let common = 0;
		while (common < current.length && common < next.length && sameItem(current[common]?.item, next[common])) common++;
		const rest = next.slice(common);
		const differing = current[common];
		if (operation === undefined && rest.length === 0 && differing === undefined) return;
		if (differing !== undefined) await this.moveTo(differing.entry.parentId);
		if (operation !== undefined) await this.session.appendCustomEntry(OPERATION_CUSTOM_TYPE, operation(common));
		for (const item of rest) await this.appendItem(item);
	}

	/** The record of an applied operation, anywhere in the session. */
	private findOperation(operationId: string): { entryId: string; record: OperationRecord } | undefined {
		for (const entry of this.session.getEntries()) {
			if (entry.type !== "custom" || entry.customType !== OPERATION_CUSTOM_TYPE) continue;
			const record = entry.data as OperationRecord | undefined;
			if (record?.operationId === operationId) return { entryId: entry.id, record };
		}
		return undefined;
	}

	/**
	 * Appends what an applied operation did not write yet (a crash between its entries), when
	 * the leaf is still at the last entry it wrote; otherwise nothing.
	 */
	private async completeOperation(
		markerId: string,
		record: OperationRecord,
		transaction: SessionHistoryTransaction,
	): Promise<void> {
		const list = transaction.type === "append_items" ? transaction.items : transaction.replacement;
		const expected = list.slice(record.skip, record.skip + record.count);
		let at = markerId;
		let done = 0;
		while (done < expected.length) {
			const next = this.session.getChildren(at).find((child) => sameItem(itemOf(child), expected[done]));
			if (next === undefined) break;
			at = next.id;
			done++;
		}
		if (done === expected.length || this.session.getLeafId() !== at) return;
		for (const item of expected.slice(done)) await this.appendItem(item);
	}
}

/** The `#ID` of a database location (the session's row), to be the header's id too. */
function databaseName(location: string): string | undefined {
	const scheme = schemeOf(location);
	if (scheme === undefined || scheme === "file" || scheme === "memory") return undefined;
	return splitSessionUrl(location).name;
}

/** A JSON copy of one item, or INVALID_ARGUMENT for what is no item. */
function checkedItem(item: unknown, where: string): AgentInputItem {
	if (item === null || typeof item !== "object" || Array.isArray(item)) {
		throw new SessionTreeError("INVALID_ARGUMENT", `${where} is not an item (an object)`);
	}
	return jsonCopy(item, where) as AgentInputItem;
}

/** The transaction of the arguments, checked and copied as JSON. */
function checkTransaction(args: SessionHistoryTransactionArgs): {
	operationId: string;
	transaction: SessionHistoryTransaction;
} {
	const operationId: unknown = args?.operationId;
	if (typeof operationId !== "string" || operationId.trim() === "") {
		throw new SessionTreeError("INVALID_ARGUMENT", "a history transaction needs a non-empty operationId");
	}
	const transaction = args.transaction as Partial<Record<string, unknown>> | undefined;
	const list = (key: string): AgentInputItem[] => {
		const value = transaction?.[key];
		if (!Array.isArray(value)) throw new SessionTreeError("INVALID_ARGUMENT", `transaction.${key} must be an array`);
		return value.map((item, index) => checkedItem(item, `transaction.${key}[${index}]`));
	};
	if (transaction?.type === "append_items")
		return { operationId, transaction: { type: "append_items", items: list("items") } };
	if (transaction?.type === "replace_suffix") {
		return {
			operationId,
			transaction: { type: "replace_suffix", expectedSuffix: list("expectedSuffix"), replacement: list("replacement") },
		};
	}
	throw new SessionTreeError("INVALID_ARGUMENT", "unsupported history transaction type");
}

/** The SDK's `replace_function_call`: the first call with the id replaced, later ones dropped. */
function replaceFunctionCall(items: AgentInputItem[], mutation: SessionHistoryMutation): AgentInputItem[] {
	const out: AgentInputItem[] = [];
	let replaced = false;
	for (const item of items) {
		if (item.type === "function_call" && item.callId === mutation.callId) {
			if (!replaced) out.push(mutation.replacement);
			replaced = true;
		} else {
			out.push(item);
		}
	}
	return out;
}
