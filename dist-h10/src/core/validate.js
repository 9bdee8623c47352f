/**
 * What makes a parsed record a usable entry. Shared by the loader (every line at open) and by
 * the lazy reading of bodies (a body is checked when it is first parsed).
 */
/** Why a record is not a usable entry, or undefined when it is. */
export function entryShapeError(record) {
    if (typeof record.type !== "string")
        return "the record has no string type";
    if (record.type === "session")
        return "a second session header inside the file";
    if (typeof record.id !== "string" || record.id === "")
        return `the ${record.type} entry has no string id`;
    if (record.parentId !== null && typeof record.parentId !== "string") {
        return `entry ${record.id} has a parentId that is neither a string nor null`;
    }
    if (typeof record.timestamp !== "string")
        return `entry ${record.id} has no string timestamp`;
    if (record.type === "leaf" && record.targetId !== null && typeof record.targetId !== "string") {
        return `leaf record ${record.id} has a targetId that is neither a string nor null`;
    }
    return undefined;
}
/**
 * Why an entry's type-specific fields are unusable, or undefined. Such an entry stays in the
 * tree (its children need it) but contributes nothing to the context.
 */
export function entryContentError(record) {
    const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
    switch (record.type) {
        case "message": {
            const message = record.message;
            if (!isObject(message) || typeof message?.role !== "string")
                return `message entry ${record.id} holds no message with a string role`;
            return undefined;
        }
        case "compaction":
            if (typeof record.summary !== "string" || typeof record.firstKeptEntryId !== "string") {
                return `compaction ${record.id} lacks a string summary or firstKeptEntryId`;
            }
            return undefined;
        case "label":
            return typeof record.targetId === "string" ? undefined : `label entry ${record.id} has no string targetId`;
        default:
            return undefined;
    }
}
//# sourceMappingURL=validate.js.map