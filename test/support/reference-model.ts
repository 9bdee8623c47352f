/**
 * A deliberately naive reference model of a session tree, written from docs/spec.md (§2) alone
 * and independent of src/: an array of entries in insertion order, a leaf pointer, labels and
 * a name. Every query is a linear scan; nothing is indexed or cached, so it is easy to check by
 * eye. Ids are not invented here: the caller passes the ids the real session returned.
 */

/** One entry as it should appear in the file (and from `getEntry`). */
export interface RefEntry {
	type: string;
	id: string;
	parentId: string | null;
	timestamp: string;
	[field: string]: unknown;
}

/** A message of the model context (loosely typed: it is compared as JSON). */
export type RefMessage = Record<string, unknown>;

/** What `buildSessionContext` should return. */
export interface RefContext {
	messages: RefMessage[];
	thinkingLevel: string;
	model: { provider: string; modelId: string } | null;
}

/** A node of the tree view: children oldest first (a stable sort by timestamp), label attached. */
export interface RefTreeNode {
	id: string;
	label?: string;
	children: RefTreeNode[];
}

/** Where pi's tree navigation puts the leaf, and the text it hands back to the editor. */
export interface RefNavigation {
	leafId: string | null;
	editorText?: string;
}

export class ReferenceModel {
	/** Entries in insertion (file) order. Persisted-leaf records are not entries. */
	readonly entries: RefEntry[] = [];
	leaf: string | null = null;
	/** Label in effect per target id. */
	readonly labels = new Map<string, string>();
	name: string | undefined = undefined;

	// ---- queries ----------------------------------------------------------------------------

	entry(id: string): RefEntry {
		const found = this.entries.find((e) => e.id === id);
		if (!found) throw new Error(`reference model: no entry ${id}`);
		return found;
	}

	ids(): string[] {
		return this.entries.map((e) => e.id);
	}

	/** Root → `from` (default: the leaf): walk parentId up to the root, then reverse. */
	path(from: string | null = this.leaf): RefEntry[] {
		const out: RefEntry[] = [];
		let id = from;
		while (id !== null) {
			const e = this.entry(id);
			out.push(e);
			id = e.parentId;
		}
		return out.reverse();
	}

	/** Ids of entries nobody names as parent, sorted by code unit. */
	leaves(): string[] {
		return this.entries
			.filter((e) => !this.entries.some((child) => child.parentId === e.id))
			.map((e) => e.id)
			.sort();
	}

	/** Direct children in file order. */
	children(id: string): string[] {
		return this.entries.filter((e) => e.parentId === id).map((e) => e.id);
	}

	/** Roots in file order; below them children sorted by the instant of their timestamp, ties in file order. */
	tree(): RefTreeNode[] {
		const node = (e: RefEntry): RefTreeNode => {
			const kids = this.entries.filter((c) => c.parentId === e.id);
			// A stable sort: Array.prototype.sort keeps equal instants in file order.
			kids.sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp));
			const out: RefTreeNode = { id: e.id, children: kids.map(node) };
			const label = this.labels.get(e.id);
			if (label !== undefined) out.label = label;
			return out;
		};
		return this.entries.filter((e) => e.parentId === null).map(node);
	}

	/** The context message one entry contributes on its own, if any (spec §2 table). */
	static messageOf(e: RefEntry): RefMessage | undefined {
		if (e.type === "message") return e.message as RefMessage;
		if (e.type === "custom_message") {
			return {
				role: "custom",
				customType: e.customType,
				content: e.content,
				display: e.display,
				details: e.details,
				timestamp: Date.parse(e.timestamp),
			};
		}
		if (e.type === "branch_summary" && e.summary !== "") {
			return { role: "branchSummary", summary: e.summary, fromId: e.fromId, timestamp: Date.parse(e.timestamp) };
		}
		return undefined;
	}

	/** The messages of some path entries, in order. */
	static messagesOf(entries: RefEntry[]): RefMessage[] {
		const out: RefMessage[] = [];
		for (const e of entries) {
			const m = ReferenceModel.messageOf(e);
			if (m !== undefined) out.push(m);
		}
		return out;
	}

	/** spec §2 "Context rules", at the leaf or at `from`. */
	context(from: string | null = this.leaf): RefContext {
		const path = this.path(from);
		let thinkingLevel = "off";
		let model: RefContext["model"] = null;
		let last = -1;
		for (let i = 0; i < path.length; i++) {
			const e = path[i] as RefEntry;
			if (e.type === "thinking_level_change") thinkingLevel = e.thinkingLevel as string;
			if (e.type === "model_change") model = { provider: e.provider as string, modelId: e.modelId as string };
			if (e.type === "message") {
				const m = e.message as RefMessage;
				if (m.role === "assistant") model = { provider: m.provider as string, modelId: m.model as string };
			}
			if (e.type === "compaction") last = i;
		}
		if (last === -1) return { messages: ReferenceModel.messagesOf(path), thinkingLevel, model };

		const c = path[last] as RefEntry;
		const messages: RefMessage[] = [
			{
				role: "compactionSummary",
				summary: c.summary,
				tokensBefore: c.tokensBefore,
				timestamp: Date.parse(c.timestamp),
			},
		];
		if (c.retainedTail !== undefined) {
			messages.push(...(c.retainedTail as RefMessage[]));
		} else {
			const start = path.findIndex((e) => e.id === c.firstKeptEntryId);
			if (start !== -1 && start < last) messages.push(...ReferenceModel.messagesOf(path.slice(start, last)));
		}
		messages.push(...ReferenceModel.messagesOf(path.slice(last + 1)));
		return { messages, thinkingLevel, model };
	}

	/** pi's tree navigation target: a user or custom message hands back its text and its parent. */
	navigation(targetId: string): RefNavigation {
		const t = this.entry(targetId);
		const textOf = (content: unknown): string => {
			if (typeof content === "string") return content;
			let text = "";
			for (const block of content as Array<{ type: string; text?: string }>) {
				if (block.type === "text") text += block.text;
			}
			return text;
		};
		if (t.type === "message" && (t.message as RefMessage).role === "user") {
			return { leafId: t.parentId, editorText: textOf((t.message as RefMessage).content) };
		}
		if (t.type === "custom_message") return { leafId: t.parentId, editorText: textOf(t.content) };
		return { leafId: targetId };
	}

	// ---- changes ----------------------------------------------------------------------------

	/** Appends an entry as a child of the leaf and makes it the leaf. */
	private add(type: string, id: string, timestamp: string, fields: Record<string, unknown>): RefEntry {
		const e: RefEntry = { type, id, parentId: this.leaf, timestamp, ...fields };
		this.entries.push(e);
		this.leaf = id;
		return e;
	}

	message(id: string, timestamp: string, message: RefMessage): void {
		this.add("message", id, timestamp, { message });
	}

	modelChange(id: string, timestamp: string, provider: string, modelId: string): void {
		this.add("model_change", id, timestamp, { provider, modelId });
	}

	thinkingLevelChange(id: string, timestamp: string, thinkingLevel: string): void {
		this.add("thinking_level_change", id, timestamp, { thinkingLevel });
	}

	/** `retain`: store the kept messages (from `firstKeptEntryId` on the current path) in the entry. */
	compaction(
		id: string,
		timestamp: string,
		summary: string,
		firstKeptEntryId: string,
		tokensBefore: number,
		details: unknown,
		fromHook: boolean | undefined,
		retain: boolean,
	): void {
		const fields: Record<string, unknown> = { summary, firstKeptEntryId, tokensBefore, details, fromHook };
		if (retain) {
			const path = this.path();
			const start = path.findIndex((e) => e.id === firstKeptEntryId);
			fields.retainedTail = start === -1 ? [] : ReferenceModel.messagesOf(path.slice(start));
			// The settings of the whole path, which the compaction records (spec: pi's rule).
			const { thinkingLevel, model } = this.context();
			fields.retainedState = { thinkingLevel, model };
		}
		this.add("compaction", id, timestamp, fields);
	}

	custom(id: string, timestamp: string, customType: string, data: unknown): void {
		this.add("custom", id, timestamp, { customType, data });
	}

	customMessage(
		id: string,
		timestamp: string,
		customType: string,
		content: unknown,
		display: boolean,
		details: unknown,
	): void {
		this.add("custom_message", id, timestamp, { customType, content, display, details });
	}

	sessionInfo(id: string, timestamp: string, name: string): void {
		const trimmed = name.trim();
		this.add("session_info", id, timestamp, { name: trimmed });
		this.name = trimmed === "" ? undefined : trimmed;
	}

	label(id: string, timestamp: string, targetId: string, label: string | undefined): void {
		this.add("label", id, timestamp, { targetId, label });
		if (label) this.labels.set(targetId, label);
		else this.labels.delete(targetId);
	}

	branch(targetId: string): void {
		this.entry(targetId);
		this.leaf = targetId;
	}

	resetLeaf(): void {
		this.leaf = null;
	}

	branchWithSummary(
		id: string,
		timestamp: string,
		fromId: string | null,
		summary: string,
		details: unknown,
		fromHook: boolean | undefined,
	): void {
		this.leaf = fromId;
		this.add("branch_summary", id, timestamp, { fromId: fromId ?? "root", summary, details, fromHook });
	}
}
