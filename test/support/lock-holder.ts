/** Takes the lock of FILE, prints "locked", holds it for MS milliseconds, releases. */

import { acquireLock } from "../../src/storage/lock.js";

const [file, ms] = process.argv.slice(2);
const release = await acquireLock(file as string);
process.stdout.write("locked\n");
setTimeout(() => {
	release();
	process.exit(0);
}, Number(ms));
