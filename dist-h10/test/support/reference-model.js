/**
 * A deliberately naive reference model of a session tree, written from docs/spec.md (§2) alone
 * and independent of src/: an array of entries in insertion order, a leaf pointer, labels and
 * a name. Every query is a linear scan; nothing is indexed or cached, so it is easy to check by
 * eye. Ids are not invented here: the caller passes the ids the real session returned.
 */
export class ReferenceModel {
    /** Entries in insertion (file) order. Persisted-leaf records are not entries. */
    entries = [];
    leaf = null;
    /** Label in effect per target id. */
    labels = new Map();
    name = undefined;
    // ---- queries ----------------------------------------------------------------------------
    entry(id) {
        const found = this.entries.find((e) => e.id === id);
        if (!found)
            throw new Error(`reference model: no entry ${id}`);
        return found;
    }
    ids() {
        return this.entries.map((e) => e.id);
    }
    /** Root → `from` (default: the leaf): walk parentId up to the root, then reverse. */
    path(from = this.leaf) {
        const out = [];
        let id = from;
        while (id !== null) {
            const e = this.entry(id);
            out.push(e);
            id = e.parentId;
        }
        return out.reverse();
    }
    /** Ids of entries nobody names as parent, sorted by code unit. */
    leaves() {
        return this.entries
            .filter((e) => !this.entries.some((child) => child.parentId === e.id))
            .map((e) => e.id)
            .sort();
    }
    /** Direct children in file order. */
    children(id) {
        return this.entries.filter((e) => e.parentId === id).map((e) => e.id);
    }
    /** Roots in file order; below them children sorted by the instant of their timestamp, ties in file order. */
    tree() {
        const node = (e) => {
            const kids = this.entries.filter((c) => c.parentId === e.id);
            // A stable sort: Array.prototype.sort keeps equal instants in file order.
            kids.sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp));
            const out = { id: e.id, children: kids.map(node) };
            const label = this.labels.get(e.id);
            if (label !== undefined)
                out.label = label;
            return out;
        };
        return this.entries.filter((e) => e.parentId === null).map(node);
    }
    /** The context message one entry contributes on its own, if any (spec §2 table). */
    static messageOf(e) {
        if (e.type === "message")
            return e.message;
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
    static messagesOf(entries) {
        const out = [];
        for (const e of entries) {
            const m = ReferenceModel.messageOf(e);
            if (m !== undefined)
                out.push(m);
        }
        return out;
    }
    /** spec §2 "Context rules", at the leaf or at `from`. */
    context(from = this.leaf) {
        const path = this.path(from);
        let thinkingLevel = "off";
        let model = null;
        let last = -1;
        for (let i = 0; i < path.length; i++) {
            const e = path[i];
            if (e.type === "thinking_level_change")
                thinkingLevel = e.thinkingLevel;
            if (e.type === "model_change")
                model = { provider: e.provider, modelId: e.modelId };
            if (e.type === "message") {
                const m = e.message;
                if (m.role === "assistant")
                    model = { provider: m.provider, modelId: m.model };
            }
            if (e.type === "compaction")
                last = i;
        }
        if (last === -1)
            return { messages: ReferenceModel.messagesOf(path), thinkingLevel, model };
        const c = path[last];
        const messages = [
            {
                role: "compactionSummary",
                summary: c.summary,
                tokensBefore: c.tokensBefore,
                timestamp: Date.parse(c.timestamp),
            },
        ];
        if (c.retainedTail !== undefined) {
            messages.push(...c.retainedTail);
        }
        else {
            const start = path.findIndex((e) => e.id === c.firstKeptEntryId);
            if (start !== -1 && start < last)
                messages.push(...ReferenceModel.messagesOf(path.slice(start, last)));
        }
        messages.push(...ReferenceModel.messagesOf(path.slice(last + 1)));
        return { messages, thinkingLevel, model };
    }
    /** pi's tree navigation target: a user or custom message hands back its text and its parent. */
    navigation(targetId) {
        const t = this.entry(targetId);
        const textOf = (content) => {
            if (typeof content === "string")
                return content;
            let text = "";
            for (const block of content) {
                if (block.type === "text")
                    text += block.text;
            }
            return text;
        };
        if (t.type === "message" && t.message.role === "user") {
            return { leafId: t.parentId, editorText: textOf(t.message.content) };
        }
        if (t.type === "custom_message")
            return { leafId: t.parentId, editorText: textOf(t.content) };
        return { leafId: targetId };
    }
    // ---- changes ----------------------------------------------------------------------------
    /** Appends an entry as a child of the leaf and makes it the leaf. */
    add(type, id, timestamp, fields) {
        const e = { type, id, parentId: this.leaf, timestamp, ...fields };
        this.entries.push(e);
        this.leaf = id;
        return e;
    }
    message(id, timestamp, message) {
        this.add("message", id, timestamp, { message });
    }
    modelChange(id, timestamp, provider, modelId) {
        this.add("model_change", id, timestamp, { provider, modelId });
    }
    thinkingLevelChange(id, timestamp, thinkingLevel) {
        this.add("thinking_level_change", id, timestamp, { thinkingLevel });
    }
    /** `retain`: store the kept messages (from `firstKeptEntryId` on the current path) in the entry. */
    compaction(id, timestamp, summary, firstKeptEntryId, tokensBefore, details, fromHook, retain) {
        const fields = { summary, firstKeptEntryId, tokensBefore, details, fromHook };
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
    custom(id, timestamp, customType, data) {
        this.add("custom", id, timestamp, { customType, data });
    }
    customMessage(id, timestamp, customType, content, display, details) {
        this.add("custom_message", id, timestamp, { customType, content, display, details });
    }
    sessionInfo(id, timestamp, name) {
        const trimmed = name.trim();
        this.add("session_info", id, timestamp, { name: trimmed });
        this.name = trimmed === "" ? undefined : trimmed;
    }
    label(id, timestamp, targetId, label) {
        this.add("label", id, timestamp, { targetId, label });
        if (label)
            this.labels.set(targetId, label);
        else
            this.labels.delete(targetId);
    }
    branch(targetId) {
        this.entry(targetId);
        this.leaf = targetId;
    }
    resetLeaf() {
        this.leaf = null;
    }
    branchWithSummary(id, timestamp, fromId, summary, details, fromHook) {
        this.leaf = fromId;
        this.add("branch_summary", id, timestamp, { fromId: fromId ?? "root", summary, details, fromHook });
    }
}
//# sourceMappingURL=reference-model.js.map