/**
 * Reading a whole record stream at once: the {@link SessionReducer} applied to every line,
 * settled, with the leaf the stream names. What each record means is decided in
 * `reducer.ts`; this is the batch form the session and the tests use.
 */
import { SessionReducer } from "./reducer.js";
/** Builds the tree of a session from its parsed lines (header first). */
export function loadTree(lines, options = {}) {
    const reducer = new SessionReducer(options);
    for (const line of lines)
        reducer.apply(line);
    return settleStream(reducer);
}
/** Settles a reducer that has read a whole stream and moves the tree's leaf where the stream says. */
export function settleStream(reducer) {
    const tree = reducer.tree;
    reducer.settle();
    const { leafId, leafRecordId } = reducer.streamLeaf();
    tree.setLeaf(leafId);
    return {
        tree,
        problems: reducer.problems,
        fromVersion: reducer.fromVersion,
        leafRecordId,
        leafRecords: reducer.leafRecords,
        reducer,
    };
}
//# sourceMappingURL=load.js.map