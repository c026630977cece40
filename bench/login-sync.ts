import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditRepo } from '../src/daemon/audit/audit-repo.js';
import { AuditWriter } from '../src/daemon/audit/audit-writer.js';
import { openDatabase } from '../src/daemon/db/database.js';
import { migrateToLatest } from '../src/daemon/db/migrate.js';
import { IdpMappingsRepo } from '../src/daemon/tenancy/idp-mappings-repo.js';
import { createLogger } from '../src/daemon/logging/logger.js';
import { LoginSync } from '../src/daemon/tenancy/login-sync.js';
import { LoginSyncRepo } from '../src/daemon/tenancy/login-sync-repo.js';
import { MappingIndex } from '../src/daemon/tenancy/mapping-index.js';
import { UsersRepo } from '../src/daemon/tenancy/users-repo.js';
import { median } from './lib.js';

const ORGS = 100;
const MAPPINGS = 10_000;
const GROUPS = 200;
const LOGINS = 100;

/**
 * First-request provisioning of one login carrying 200 group values against 10,000 active mappings,
 * as a ratio to the same login with sync off (profile upsert and the auto-join check only), on the
 * embedded database, in-process. Logins after the first are measured: memberships exist, so the
 * figure is the cost every later session pays.
 */
export async function loginSyncBenchmark(line: (name: string, value: string) => void): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-sync-'));
  const db = await openDatabase({ dataDir: dir }, createLogger('silent'));
  try {
    await migrateToLatest(db.knex);
    const orgIds: string[] = [];
    for (let i = 0; i < ORGS; i += 1) {
      const [row] = await db
        .knex('organizations')
        .insert({ slug: `org-${i}`, name: `Org ${i}` })
        .returning('id');
      orgIds.push((row as { id: string }).id);
    }
    const mappings = Array.from({ length: MAPPINGS }, (_, i) => ({
      org_id: orgIds[i % ORGS],
      claim: 'groups',
      value: `/dept/${i}`,
      role: i % 7 === 0 ? 'admin' : 'viewer',
    }));
    for (let i = 0; i < mappings.length; i += 1000) await db.knex('org_idp_mappings').insert(mappings.slice(i, i + 1000));
    // 200 values of which one in ten names a mapping: a realistic token from a large directory.
    const groups = Array.from({ length: GROUPS }, (_, i) => (i % 10 === 0 ? `/dept/${i * 37}` : `/unmapped/${i}`));

    const audit = new AuditWriter(new AuditRepo(db.knex));
    const users = new UsersRepo(db.knex);
    const mappingsRepo = new IdpMappingsRepo(db.knex);
    // Loaded as the daemon's is once started: logins are measured against the in-process index.
    const index = new MappingIndex(mappingsRepo, createLogger('silent'));
    await index.refresh();
    const make = (sync: boolean) =>
      new LoginSync(db.knex, users, new LoginSyncRepo(db.knex), mappingsRepo, index, audit, {
        sync,
        groupClaim: 'groups',
        authoritative: true,
        autoJoin: true,
      });
    const on = make(true);
    const off = make(false);
    const principal = (sub: string) => ({
      sub,
      username: sub,
      email: '',
      realmRoles: [],
      clientRoles: [],
      groups,
      isServiceAccount: false,
    });
    await on.run({ principal: principal('bench-on'), claimValues: groups }, undefined);
    await off.run({ principal: principal('bench-off'), claimValues: groups }, undefined);

    const time = async (sync: LoginSync, sub: string) => {
      const started = process.hrtime.bigint();
      for (let i = 0; i < LOGINS; i += 1) await sync.run({ principal: principal(sub), claimValues: groups }, undefined);
      return Number(process.hrtime.bigint() - started) / 1e6 / LOGINS;
    };
    const onTimes: number[] = [];
    const offTimes: number[] = [];
    for (let round = 0; round < 3; round += 1) {
      offTimes.push(await time(off, 'bench-off'));
      onTimes.push(await time(on, 'bench-on'));
    }
    const a = median(onTimes);
    const b = median(offTimes);
    line('login, sync off (ms per login, median)', b.toFixed(2));
    line(`login, sync on: ${GROUPS} groups, ${MAPPINGS} mappings (ms, median)`, a.toFixed(2));
    line('ratio sync on / off (aim <= 1.5)', (a / b).toFixed(2));
  } finally {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
}
