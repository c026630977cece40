import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_AUTOMATION_CLIENT_SECRET, DEV_CLIENTS, DEV_ORG_MAPPINGS } from '../src/daemon/dev-idp/index.js';
import { copyTemplate, type DatabaseLocation } from './helpers/database.js';
import { collect, spawnTs, waitForListening } from './helpers/spawn.js';

let location: DatabaseLocation;

/** `svcd dev` on `database`, both ports picked by the system; resolves once it listens and has printed its banner. */
async function startDev(database: DatabaseLocation, env: Record<string, string> = {}) {
  const child = spawnTs('src/daemon/main.ts', ['dev'], { ...database.env, SERVICE_PORT: '0', SERVICE_DEV_IDP_PORT: '0', ...env });
  const { output, finished } = collect(child);
  const url = await waitForListening(child);
  for (let i = 0; i < 1200 && !output().stderr.includes('runs flows in-process'); i += 1)
    await new Promise((resolve) => setTimeout(resolve, 50));
  const issuer = /Embedded OpenID provider \(development only\): (\S+)/.exec(output().stderr)?.[1];
  if (!issuer) throw new Error(`svcd dev printed no issuer: ${output().stderr}`);
  return {
    url,
    issuer,
    stderr: () => output().stderr,
    stop: async () => {
      child.kill('SIGTERM');
      const ended = await finished;
      // A failure says how it ended and what the daemon last printed (a signal: a crash, not a refusal).
      expect(ended.code, `signal ${ended.signal}; stderr: ${ended.stderr.slice(-3000)}`).toBe(0);
    },
  };
}

/** The database of a stopped daemon (PGlite has one user at a time). */
async function withKnex(database: DatabaseLocation, work: (knex: Knex) => Promise<void>): Promise<void> {
  const db = await database.open();
  try {
    await work(db.knex);
  } finally {
    await db.close();
  }
}

async function automationToken(issuer: string): Promise<string> {
  const response = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${DEV_CLIENTS.automation}:${DEV_AUTOMATION_CLIENT_SECRET}`).toString('base64')}`,
    },
    body: 'grant_type=client_credentials',
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

/** `POST /flows` in the default organization: an operator's action there. */
async function createFlow(url: string, token: string, name: string): Promise<number> {
  const response = await fetch(`${url}/flows`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-org-id': 'default' },
    body: JSON.stringify({ name }),
  });
  return response.status;
}
beforeAll(async () => {
  location = await copyTemplate();
});
/** Databases of tests that need one of their own (the seeding happens on a database's first start). */
const ownDatabases: DatabaseLocation[] = [];
async function ownDatabase(): Promise<DatabaseLocation> {
  const database = await copyTemplate();
  ownDatabases.push(database);
  return database;
}
afterAll(async () => {
  await location?.drop();
  for (const database of ownDatabases) await database.drop();
});

describe('svcd dev', () => {
  it('serves with authentication on beside an embedded provider, and says how to sign in', async () => {
    const dev = await startDev(location);
    try {
      expect(dev.stderr()).toContain('operator-password');
      expect(dev.stderr()).toContain('-u service-automation:service-automation-dev-secret');
      expect((await fetch(`${dev.url}/auth/me`)).status).toBe(401);
      const me = await fetch(`${dev.url}/auth/me`, { headers: { authorization: `Bearer ${await automationToken(dev.issuer)}` } });
      expect(me.status).toBe(200);
      expect(((await me.json()) as { auth_method: string }).auth_method).toBe('jwt');
    } finally {
      await dev.stop();
    }
  });

  // Two starts of svcd dev (each a process loading the daemon) and two openings of its database: slow on a loaded CI host.
  it("gives the seeded accounts' groups their roles in the default organization, once, unless told not to", async () => {
    const database = await ownDatabase();
    const first = await startDev(database);
    try {
      expect(first.stderr()).toContain('Seeded the IdP mappings of organization "default"');
      // The automation client (realm role operator, group /automation) acts as an operator there.
      const token = await automationToken(first.issuer);
      const me = await fetch(`${first.url}/auth/me`, { headers: { authorization: `Bearer ${token}` } });
      expect(((await me.json()) as { memberships: { slug: string; role: string }[] }).memberships).toEqual([
        expect.objectContaining({ slug: 'default', role: 'operator', source: 'idp' }),
      ]);
      expect(await createFlow(first.url, token, 'seeded')).toBe(201);
    } finally {
      await first.stop();
    }
    await withKnex(database, async (knex) => {
      const mappings = await knex('org_idp_mappings').select('value', 'role');
      expect(mappings).toEqual(expect.arrayContaining(DEV_ORG_MAPPINGS.map(({ group, role }) => ({ value: group, role }))));
      expect(mappings).toHaveLength(DEV_ORG_MAPPINGS.length);
      const audited = await knex('audit_logs').where({ event_type: 'idp_mapping.created' }).count({ n: '*' }).first();
      expect(Number(audited?.n)).toBe(DEV_ORG_MAPPINGS.length);
      // A mapping removed since stays removed: the next start seeds nothing.
      await knex('org_idp_mappings').where({ value: '/viewers' }).delete();
    });
    const second = await startDev(database);
    try {
      expect(second.stderr()).not.toContain('Seeded the IdP mappings');
    } finally {
      await second.stop();
    }
    await withKnex(database, async (knex) => expect(await knex('org_idp_mappings').where({ value: '/viewers' })).toHaveLength(0));
  }, 120_000);

  it('leaves memberships to the administrators when SERVICE_ORG_IDP_SYNC is set to false', async () => {
    const dev = await startDev(await ownDatabase(), { SERVICE_ORG_IDP_SYNC: 'false' });
    try {
      expect(dev.stderr()).not.toContain('Seeded the IdP mappings');
      const token = await automationToken(dev.issuer);
      expect(await createFlow(dev.url, token, 'refused')).toBe(403);
    } finally {
      await dev.stop();
    }
  }, 60_000);

  it('refuses to run in production', async () => {
    const { code } = await collect(
      spawnTs('src/daemon/main.ts', ['dev'], {
        ...location.env,
        SERVICE_ENVIRONMENT: 'production',
        SERVICE_IDP_ISSUER: 'https://idp.example.test/realms/svc',
        SERVICE_INTERNAL_API_TOKEN: 'x'.repeat(40),
      }),
    ).finished;
    expect(code).not.toBe(0);
  });
});
