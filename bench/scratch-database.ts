import { randomBytes } from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import { startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';

/** A figure's own PostgreSQL database and identity provider, and the servers it starts over them. */
export interface ScratchDatabase {
  readonly url: string;
  /** A small pool for seeding and checks. */
  readonly db: Knex;
  readonly idp: DevIdp;
  /** Servers the figure starts; `close` stops them before dropping the database. */
  readonly servers: { stop(): Promise<void> }[];
  close(): Promise<void>;
}

/**
 * Creates `<prefix>_<random>` on the PostgreSQL server at `postgresUrl` and starts a dev identity
 * provider; undefined when no server answers there (the figure is then skipped).
 */
export async function openScratchDatabase(postgresUrl: string, prefix: string): Promise<ScratchDatabase | undefined> {
  const admin = knexFactory({
    client: 'pg',
    connection: { connectionString: postgresUrl, connectionTimeoutMillis: 2000 },
    pool: { min: 0, max: 1 },
  });
  const database = `${prefix}_${randomBytes(4).toString('hex')}`;
  try {
    await admin.raw(`CREATE DATABASE ${database}`);
  } catch {
    await admin.destroy();
    return undefined;
  }
  const url = new URL(postgresUrl);
  url.pathname = `/${database}`;
  const idp = await startDevIdp();
  const db = knexFactory({ client: 'pg', connection: url.toString(), pool: { min: 0, max: 2 } });
  const servers: { stop(): Promise<void> }[] = [];
  return {
    url: url.toString(),
    db,
    idp,
    servers,
    close: async () => {
      await Promise.all(servers.map((s) => s.stop()));
      await db.destroy();
      await idp.stop();
      await admin.raw(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.destroy();
    },
  };
}
