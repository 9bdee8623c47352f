/**
 * The connections of the PostgreSQL store: the driver, loaded on first use, the pools of this
 * process, the time limits every connection gets, and what is done when a connection is lost
 * (the errors are worded in postgres-errors.ts).
 *
 * The driver (`pg`) is an optional dependency, loaded on first use, so that importing the
 * store (every `storeAt` does) costs nothing when no PostgreSQL location is ever opened.
 *
 * Pools: one per connection string (and limits) per process, shared by every store object of
 * that database, made on first use. Their idle connections never keep the process alive
 * (`allowExitOnIdle`), so a CLI run ends when its work does. A store may ask for a private pool
 * instead (a second writer with connections of its own, as another process would have).
 *
 * Lost connections: a pooled connection may have died since it was last used (the server
 * terminated its backend, restarted, or a network hop dropped it), and a connection may die
 * while a query runs. Neither is the caller's fault nor the database's state: a read is run
 * once more on a new connection of its own (not another pooled one, which may be as dead), and
 * a write that compares before it writes is sent again the same way, its caller told so, since
 * the first one may have taken effect (see `RunAccess.resent`). docs/durability.md, "Lost
 * answers and time limits".
 */

import type { Client, ClientBase, Pool, PoolClient } from "pg";
import { SessionTreeError } from "../../core/errors.js";
import { connectError, connectionLost, notAStore, storeError, timedOut, unknownOutcome } from "./postgres-errors.js";
import { brokenClients, migratePostgres, ownershipOf } from "./postgres-schema.js";
import type { PostgresLimits, PostgresUrl } from "./urls.js";

type Driver = typeof import("pg");

let driver: Promise<Driver> | undefined;

/**
 * The pg module, imported on first use.
 * @throws SessionTreeError INVALID_ARGUMENT when it is not installed
 */
async function loadDriver(where: string): Promise<Driver> {
	driver ??= import("pg");
	try {
		return await driver;
	} catch (error) {
		driver = undefined;
		throw new SessionTreeError(
			"INVALID_ARGUMENT",
			"postgres: locations need the optional dependency pg: npm install pg",
			{ file: where },
			{ cause: error },
		);
	}
}

/** Connections a shared pool keeps open at most: a few writers of one process at once. */
const SHARED_MAX = 4;
/**
 * How many times an operation whose connection was lost runs again, each on a new connection:
 * enough for a pooled connection that had died and a server that restarts between two tries.
 */
const RETRIES = 2;

/** The pools of this process that {@link closePostgresPools} ends. */
const livePools = new Set<PostgresPool>();
/** The shared pools, by connection string and limits. */
const sharedPools = new Map<string, PostgresPool>();
/** The schemas migrated (or being migrated) by this process, by connection string and schema. */
const migrated = new Map<string, Promise<void>>();
/** The schemas this process found to be session-tree's, by connection string and schema. */
const owned = new Set<string>();

/** What {@link PostgresPool.run} may do beyond running `work` on a pooled connection. */
export interface RunAccess<T> {
	/**
	 * `work` writes: the schema is migrated first. Its statements must compare before they write
	 * (compare-and-append, an insert that does nothing on a conflict, a delete), because when
	 * the connection is lost while it runs, `work` is sent again on a new connection.
	 */
	write?: boolean;
	/** For a read: answers when the schema holds no store (nothing is created); without it, NOT_A_STORE. */
	absent?: () => T;
	/**
	 * Called once when a write's connection was lost while `work` ran, before it is sent again:
	 * the first one may have taken effect, so an answer of "already there" (`behind`,
	 * FILE_EXISTS, `stale`) may be that write's own doing, which the caller then checks.
	 */
	resent?: () => void;
}

/** A try whose connection was lost: what the driver threw. */
interface Lost {
	lost: unknown;
}

/**
 * Connections to one database: the pool of its connection string shared by the process, or a
 * store's private one. Made lazily; a private pool retired by its store is ended once the last
 * operation that took it is done, so a `close` racing an append never cuts the append short.
 */
export class PostgresPool {
	private pool: Pool | undefined;
	private users = 0;
	private retired = false;

	private constructor(
		private readonly url: PostgresUrl,
		private readonly max: number,
	) {
		livePools.add(this);
	}

	/** The pool this process shares for the database of `url`. */
	static shared(url: PostgresUrl): PostgresPool {
		const key = poolKey(url);
		let pool = sharedPools.get(key);
		if (!pool) {
			pool = new PostgresPool(url, SHARED_MAX);
			sharedPools.set(key, pool);
		}
		return pool;
	}

	/** A pool of one connection for one store. */
	static private(url: PostgresUrl): PostgresPool {
		return new PostgresPool(url, 1);
	}

	private get connectionString(): string {
		return this.url.connectionString;
	}

	private get limits(): PostgresLimits {
		return this.url.limits;
	}

	/**
	 * Runs `work` on a connection. A write (`access.write`) first migrates `schema` (creating it
	 * when it holds nothing); a read never creates or migrates anything, and runs `access.absent`
	 * instead of `work` when the schema holds no store (without it, that is NOT_A_STORE). Either
	 * refuses a schema that is another application's (NOT_A_STORE, see {@link ownershipOf}).
	 *
	 * When the connection is lost while `work` runs, `work` runs again on a new connection of
	 * its own, up to {@link RETRIES} times: a read unless the server stopped answering (a second
	 * wait would tell nothing new), a write after `access.resent` (and after a time-out only
	 * once: whether the first took effect must be asked, but a server that does not answer twice
	 * is not asked a third time).
	 *
	 * Errors that are not SessionTreeErrors become IO_ERROR (LOCKED for a lock timeout) naming
	 * `where`; a write whose fate could not be found out says so.
	 */
	async run<T>(
		where: string,
		schema: string,
		work: (client: ClientBase) => Promise<T>,
		access: RunAccess<T> = {},
	): Promise<T> {
		this.users++;
		const write = access.write === true;
		let resent = false;
		try {
			const pg = await loadDriver(where);
			const pool = this.open(pg);
			const state = await this.prepare(pool, schema, where, write);
			if (state === "absent") {
				if (access.absent) return access.absent();
				throw notAStore(schema, where, "the schema holds no session-tree tables");
			}
			let timeouts = 0;
			for (let retry = 0; ; retry++) {
				let client: ClientBase;
				try {
					client = retry === 0 ? await this.connect(() => pool.connect(), where) : await this.fresh(pg, where);
				} catch (error) {
					// A write sent once and no server to ask whether it took effect.
					throw resent ? unknownOutcome(error, where, this.url) : error;
				}
				let outcome: { value: T } | Lost;
				try {
					outcome = await this.attempt(pg, client, work);
				} catch (error) {
					// The second try's own failure (its row lock wait, say) tells nothing of the first.
					throw resent && !(error instanceof SessionTreeError) ? unknownOutcome(error, where, this.url) : error;
				}
				if (!isLost(outcome)) return outcome.value;
				if (timedOut(outcome.lost)) timeouts++;
				const again = retry < RETRIES && (write ? timeouts < 2 : timeouts === 0);
				if (!again) throw resent ? unknownOutcome(outcome.lost, where, this.url) : outcome.lost;
				if (write && !resent) {
					resent = true;
					access.resent?.();
				}
			}
		} catch (error) {
			throw storeError(error, where, this.url);
		} finally {
			this.users--;
			if (this.retired && this.users === 0) void this.end();
		}
	}

	/**
	 * Runs `work` in a transaction opened by `begin` (`BEGIN` and any `SET LOCAL`, one round
	 * trip): committed when it resolves, rolled back when it throws. A write (see {@link run}).
	 */
	async transaction<T>(
		where: string,
		schema: string,
		begin: string,
		work: (client: ClientBase) => Promise<T>,
		resent?: () => void,
	): Promise<T> {
		return this.run(
			where,
			schema,
			async (client) => {
				await client.query(begin);
				try {
					const result = await work(client);
					await client.query("COMMIT");
					return result;
				} catch (error) {
					await client.query("ROLLBACK").catch(() => brokenClients.add(client));
					throw error;
				}
			},
			resent ? { write: true, resent } : { write: true },
		);
	}

	/** Ends the pool once the operations using it are done (a private pool, when its store closes). */
	async retire(): Promise<void> {
		this.retired = true;
		if (this.users === 0) await this.end();
	}

	/** Ends the pool now: its idle connections close, busy ones when released. */
	async end(): Promise<void> {
		livePools.delete(this);
		const key = poolKey(this.url);
		if (sharedPools.get(key) === this) sharedPools.delete(key);
		const pool = this.pool;
		this.pool = undefined;
		if (pool) await pool.end();
	}

	/**
	 * Runs `work` once on `client`, then gives the client back to its pool, or closes it (one of
	 * {@link fresh}). A connection lost meanwhile is reported as {@link Lost}, and never kept;
	 * any other failure is thrown.
	 */
	private async attempt<T>(
		pg: Driver,
		client: ClientBase,
		work: (client: ClientBase) => Promise<T>,
	): Promise<{ value: T } | Lost> {
		let broken = false;
		// A connection lost between queries reports here (the pool listens only to idle ones); unheard, it would crash the process.
		const lost = () => {
			broken = true;
		};
		client.on("error", lost);
		try {
			return { value: await work(client) };
		} catch (error) {
			const gone = connectionLost(pg.DatabaseError, error);
			broken ||= gone || brokenClients.has(client);
			if (gone) return { lost: error };
			throw error;
		} finally {
			client.removeListener("error", lost);
			if (isPooled(client)) client.release(broken);
			// A client that ends with a query still waiting (a silent server) destroys its socket.
			else void (client as Client).end().catch(() => {});
		}
	}

	/** The settings of every connection: the limits, and a name pg_stat_activity shows. */
	private config() {
		const limits = this.limits;
		return {
			connectionString: this.connectionString,
			connectionTimeoutMillis: limits.connectMs,
			// Sent at connect; 0 sends nothing, leaving the server's own setting.
			statement_timeout: limits.statementMs,
			idle_in_transaction_session_timeout: limits.idleInTransactionMs,
			// pg's own limit on the wait for each answer: a server that stops answering ends it.
			...(limits.queryMs > 0 ? { query_timeout: limits.queryMs } : {}),
			keepAlive: true,
			// What pg_stat_activity shows, unless the URL names an application_name.
			fallback_application_name: "session-tree",
		};
	}

	private open(pg: Driver): Pool {
		if (!this.pool) {
			this.pool = new pg.Pool({
				...this.config(),
				max: this.max,
				allowExitOnIdle: true,
				// A private pool serves one store for a while: let its connection go soon.
				idleTimeoutMillis: this.max === 1 ? 1000 : 10_000,
			});
			// An idle connection the server closed reports here; the pool drops it. Unheard, it would crash the process.
			this.pool.on("error", () => {});
		}
		return this.pool;
	}

	/**
	 * A connection of its own, outside the pool, with the pool's settings and limits: for a
	 * LISTEN, which holds its connection as long as it listens (postgres-notify.ts).
	 * @throws SessionTreeError naming the server when it cannot connect
	 */
	async dedicated(where: string): Promise<Client> {
		return this.fresh(await loadDriver(where), where);
	}

	/** A new connection outside the pool, for a try after a lost one. */
	private fresh(pg: Driver, where: string): Promise<Client> {
		return this.connect(async () => {
			const client = new pg.Client(this.config());
			// Until it is connected and ours: a failed connect must not crash the process either.
			client.on("error", () => {});
			await client.connect();
			return client;
		}, where);
	}

	/** A connection; a failure names the server and, for a time-out, the limit. */
	private async connect<C>(connect: () => Promise<C>, where: string): Promise<C> {
		try {
			return await connect();
		} catch (error) {
			throw connectError(error, where, this.url);
		}
	}

	/**
	 * Whose `schema` is, checked once per process while it is ours; for a write, migrated
	 * first (once per process). A schema another application uses is refused before anything
	 * is written to it.
	 */
	private async prepare(pool: Pool, schema: string, where: string, write: boolean): Promise<"ours" | "absent"> {
		const key = `${this.connectionString}\0${schema}`;
		if (write) {
			let done = migrated.get(key);
			if (!done) {
				done = this.withClient(pool, where, async (client) => {
					const state = await ownershipOf(client, schema);
					if (state === "foreign") throw notAStore(schema, where, "it holds tables of another application");
					await migratePostgres(client, schema);
				});
				migrated.set(key, done);
				// A failed migration is tried again by the next operation.
				done.catch(() => migrated.delete(key));
			}
			await done;
			owned.add(key);
			return "ours";
		}
		if (owned.has(key)) return "ours";
		const state = await this.withClient(pool, where, (client) => ownershipOf(client, schema));
		if (state === "foreign") throw notAStore(schema, where, "it holds tables of another application");
		// Only a positive answer is kept: a store another process creates later is seen.
		if (state === "ours") owned.add(key);
		return state;
	}

	/** Runs `work` on a connection of its own (for the schema checks), released after. */
	private async withClient<T>(pool: Pool, where: string, work: (client: PoolClient) => Promise<T>): Promise<T> {
		const client = await this.connect(() => pool.connect(), where);
		const lost = () => {};
		client.on("error", lost);
		try {
			const result = await work(client);
			client.removeListener("error", lost);
			client.release();
			return result;
		} catch (error) {
			client.removeListener("error", lost);
			client.release(true);
			throw error;
		}
	}
}

/** The key of a shared pool: the database and the limits its connections get. */
function poolKey(url: PostgresUrl): string {
	const { connectMs, statementMs, idleInTransactionMs, queryMs } = url.limits;
	return `${url.connectionString}\0${connectMs},${statementMs},${idleInTransactionMs},${queryMs}`;
}

/** A connection of a pool (to give back), not one of {@link PostgresPool.fresh} (to close). */
function isPooled(client: ClientBase): client is PoolClient {
	return typeof (client as Partial<PoolClient>).release === "function";
}

function isLost<T>(outcome: { value: T } | Lost): outcome is Lost {
	return "lost" in outcome;
}

/**
 * Ends every pool of this process, shared and private: for tests and for programs that want to
 * exit before idle connections time out (idle connections never keep the process alive).
 */
export async function closePostgresPools(): Promise<void> {
	const pools = [...livePools];
	await Promise.all(pools.map((pool) => pool.end()));
	migrated.clear();
	owned.clear();
}
