/**
 * Reading indexed lines back from a session file, for entries whose body the loader left
 * unparsed. The source keeps the descriptor it indexed the file with: it keeps reading the
 * same file even if someone renames another over its path (an atomic rewrite), and appends
 * never move what it indexed.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { SessionTreeError } from "../core/errors.js";
/** Lines closer than this are read together. */
const GAP = 64 * 1024;
/** At most this much is read at once. */
const MAX_READ = 8 * 1024 * 1024;
/** Closes descriptors of sources nobody can reach any more (sessions dropped without `close`). */
const orphans = new FinalizationRegistry((handle) => {
    if (handle.fd !== undefined) {
        try {
            closeSync(handle.fd);
        }
        catch {
            // Already closed.
        }
        handle.fd = undefined;
    }
});
/**
 * What tells one file from another at the same path: device, inode, and birth time (a file
 * system may give a new file the inode of one just replaced; the birth time tells them apart
 * where the system records it).
 */
export function fileIdentity(stats) {
    return `${stats.dev}:${stats.ino}:${stats.birthtimeMs}`;
}
/** Reads lines of one file by offset. */
export class FileLineSource {
    file;
    identity;
    handle;
    /**
     * @param fd an open descriptor of the file, now owned by the source
     * @param identity {@link fileIdentity} of that file, to check a reopened path against
     */
    constructor(file, fd, identity) {
        this.file = file;
        this.identity = identity;
        this.handle = { fd };
        orphans.register(this, this.handle, this);
    }
    readLines(spans) {
        const texts = new Array(spans.length);
        if (spans.length === 0)
            return texts;
        const fd = this.descriptor();
        const order = spans.map((_, i) => i);
        order.sort((a, b) => spans[a].offset - spans[b].offset);
        let buffer = Buffer.allocUnsafe(0);
        for (let k = 0; k < order.length;) {
            // One read covers the next spans that lie close together.
            const first = spans[order[k]];
            let last = k;
            let end = first.offset + first.length;
            while (last + 1 < order.length) {
                const next = spans[order[last + 1]];
                const nextEnd = Math.max(end, next.offset + next.length);
                if (next.offset - end > GAP || nextEnd - first.offset > MAX_READ)
                    break;
                end = nextEnd;
                last++;
            }
            const size = end - first.offset;
            if (buffer.length < size)
                buffer = Buffer.allocUnsafe(Math.max(size, 64 * 1024));
            this.readFully(fd, buffer, size, first.offset);
            for (; k <= last; k++) {
                const index = order[k];
                const span = spans[index];
                const from = span.offset - first.offset;
                texts[index] = buffer.toString("utf8", from, from + span.length);
            }
        }
        return texts;
    }
    /** Closes the descriptor; a later read reopens the path if it is still the same file. */
    close() {
        const fd = this.handle.fd;
        this.handle.fd = undefined;
        if (fd !== undefined)
            closeSync(fd);
        orphans.unregister(this);
    }
    descriptor() {
        if (this.handle.fd !== undefined)
            return this.handle.fd;
        let fd;
        try {
            fd = openSync(this.file, "r");
        }
        catch (cause) {
            throw this.gone(cause);
        }
        const stats = fstatSync(fd);
        if (fileIdentity(stats) !== this.identity) {
            closeSync(fd);
            throw this.gone();
        }
        this.handle.fd = fd;
        orphans.register(this, this.handle, this);
        return fd;
    }
    readFully(fd, buffer, size, position) {
        let done = 0;
        while (done < size) {
            const read = readSync(fd, buffer, done, size - done, position + done);
            if (read === 0) {
                throw new SessionTreeError("IO_ERROR", "the file is shorter than when it was opened (was it truncated?)", {
                    file: this.file,
                });
            }
            done += read;
        }
    }
    gone(cause) {
        return new SessionTreeError("IO_ERROR", "the file was replaced or removed since it was read (migrated or repaired elsewhere?); await session.refresh() to read it again", { file: this.file }, cause === undefined ? undefined : { cause });
    }
}
//# sourceMappingURL=line-source.js.map