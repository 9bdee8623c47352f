/**
 * LISTEN/NOTIFY of the PostgreSQL store (postgres-notify.ts, real server; skipped without
 * one): `listenPostgres` calls back after each committed append (by another process's kind of
 * store: a private pool) and replace of its session, not for another session of the schema
 * nor for an append that lost its race (`behind`: nothing written), and reports once when its
 * connection is lost (its backend terminated by the server, as a restart would).
 */

import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { listenPostgres, PostgresSessionStore } from "../../src/storage/sql/postgres-store.js";
import { chain, newHeader, okPosition } from "../../src/testing/helpers.js";
import { postgresServer, query, testSchema } from "../support/postgres.js";

const server = await postgresServer();
const skip = "skip" in server ? server.skip : false;
const db = "url" in server ? testSchema(server.url, "notify") : undefined;

/** Counts the calls of a callback and lets a test wait for the next ones. */
class Calls {
	count = 0;
	private waiters: Array<() => void> = [];
	readonly call = () => {
		this.count++;
		for (const wake of this.waiters.splice(0)) wake();
	};
	/** Resolves once `count` reaches `n`; rejects after `ms`. */
	async reach(n: number, ms = 5_000): Promise<void> {
		const deadline = Date.now() + ms;
		while (this.count < n) {
			const left = deadline - Date.now();
			if (left <= 0) assert.fail(`${this.count} calls after ${ms} ms, expected ${n}`);
			await new Promise<void>((resolve) => {
				const timer = setTimeout(resolve, left);
				this.waiters.push(() => {
					clearTimeout(timer);
					resolve();
				});
			});
		}
	}
}

/** Waits long enough for a notification that should not come (a committed NOTIFY arrives within milliseconds). */
const quiet = () => new Promise((resolve) => setTimeout(resolve, 300));

const stops: Array<() => Promise<void>> = [];
after(async () => {
	for (const stop of stops) await stop();
});

describe("postgres: listenPostgres", { skip }, () => {
	test("called after each committed append and replace of its session, only", async () => {
		if (!db) return;
		const header = newHeader("/notify");
		const store = new PostgresSessionStore(db.session(header.id), { privatePool: true });
		let position = await store.create(header);
		const otherHeader = newHeader("/other");
		const otherStore = new PostgresSessionStore(db.session(otherHeader.id), { privatePool: true });
		await otherStore.create(otherHeader);
		const calls = new Calls();
		const lost = new Calls();
		stops.push(await listenPostgres(store.location, calls.call, lost.call));

		const records = chain(3, null);
		position = okPosition(await store.append(records.slice(0, 1), position), "first append");
		await calls.reach(1);
		position = okPosition(await store.append(records.slice(1), position), "second append");
		await calls.reach(2);

		// Another writer appends at the end; an append at the old position then loses its race
		// (behind: nothing written) and notifies nothing.
		const writer = new PostgresSessionStore(store.location, { privatePool: true });
		okPosition(await writer.append(chain(1, null), position), "another writer's append");
		await calls.reach(3);
		const count = calls.count;
		const behind = await store.append(chain(1, null), position);
		assert.equal(behind.status, "behind");
		await quiet();
		assert.equal(calls.count, count, "a write that lost its race notifies nothing");
		await writer.close();

		// Another session of the schema: not ours.
		okPosition(await otherStore.append(chain(1, null), (await otherStore.read()).position), "other append");
		await quiet();
		assert.equal(calls.count, count, "another session's append");

		const read = await store.read();
		okPosition(await store.replace([header, ...chain(2, null)], read.position), "replace");
		await calls.reach(count + 1);
		assert.equal(lost.count, 0);
		await Promise.all([store.close(), otherStore.close()]);
	});

	test("reports once when its connection is lost", async () => {
		if (!db || !("url" in server)) return;
		const header = newHeader("/lost");
		const store = new PostgresSessionStore(db.session(header.id), { privatePool: true });
		await store.create(header);
		const lost = new Calls();
		// This listener's backend: the LISTEN connection that was not there before it (other
		// processes may listen on the same database).
		const listeners = async () =>
			(
				await query<{ pid: number }>(
					server.url,
					"SELECT pid FROM pg_stat_activity WHERE query = 'LISTEN session_tree' AND datname = current_database()",
				)
			).map((row) => row.pid);
		const before = new Set(await listeners());
		stops.push(await listenPostgres(store.location, () => undefined, lost.call));
		const ours = (await listeners()).filter((pid) => !before.has(pid));
		assert.equal(ours.length, 1, "the LISTEN connection is in pg_stat_activity");
		await query(server.url, "SELECT pg_terminate_backend($1)", [ours[0]]);
		await lost.reach(1);
		await quiet();
		assert.equal(lost.count, 1);
		await store.close();
	});
});
