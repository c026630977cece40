import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditContext } from '../src/daemon/audit/audit-context.js';
import { type ConfigExchangeEngine, type Org } from '../src/daemon/domains/config-exchange/engine/index.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { seedOrg } from './helpers/seed.js';

/**
 * The secrets and webhooks families between two installations: key names travel, values never do (a
 * marker stored as a "value" must appear in no bundle, plan, audit entry); a webhook's secret by name.
 */

interface Installation {
  readonly daemon: TestDaemon;
  readonly engine: ConfigExchangeEngine;
  readonly acme: Org;
}

const MARKER = 'TOPSECRET-do-not-export';
const FAMILIES = ['secrets', 'webhooks'];
let one: Installation;
let two: Installation;

async function install(): Promise<Installation> {
  const daemon = await startTestDaemon();
  const knex = daemon.services.db.knex;
  const id = await seedOrg(knex, 'acme', 'Acme');
  await knex('flows').insert({
    org_id: id,
    name: 'deploy',
    draft_json: JSON.stringify({ steps: [], edges: [], inputs: [], target_roles: [] }),
  });
  return { daemon, engine: daemon.configExchange.engine, acme: { id, slug: 'acme' } };
}

function operator(correlationId: string) {
  const audit: AuditContext = {
    requestId: correlationId,
    route: 'test',
    clientIp: '127.0.0.1',
    userAgent: undefined,
    subject: 'sub-root',
    username: 'root',
  };
  return { correlationId, actor: { sub: 'sub-root', username: 'root' }, audit };
}

const planOf = (target: Installation, yaml: string, id: string, prune = false) =>
  target.engine.plan(target.engine.parse(yaml), { planId: id, org: target.acme, families: FAMILIES, prune });

beforeAll(async () => {
  [one, two] = await Promise.all([install(), install()]);
  const knex = one.daemon.services.db.knex;
  const backend = await knex('secret_backends').where({ scheme: 'builtin' }).first('id');
  const [secret] = await knex('secrets')
    .insert({ org_id: one.acme.id, name: 'hooks/github', description: 'GitHub HMAC', backend_id: backend.id, path: 'hooks/github' })
    .returning('id');
  // A stored value whose bytes are the marker: the family must read key names only.
  await knex('secret_values').insert(
    ['hmac', 'token'].map((key) => ({
      backend_id: backend.id,
      org_id: one.acme.id,
      location: 'orgs/acme/secrets/hooks/github',
      key_name: key,
      nonce: Buffer.alloc(12, 1),
      ciphertext: Buffer.from(MARKER),
      auth_tag: Buffer.alloc(16, 2),
      key_id: 'k',
    })),
  );
  const flow = await knex('flows').where({ org_id: one.acme.id, name: 'deploy' }).first('id');
  await knex('webhook_endpoints').insert({
    org_id: one.acme.id,
    name: 'GitHub push',
    path_token: 'a'.repeat(43),
    secret_id: secret.id,
    auth_mode: 'hmac_sha256',
    replay_window_seconds: 120,
    rate_limit_per_minute: 30,
    flow_id: flow.id,
    flow_version: null,
    allowed_source_ips_json: JSON.stringify(['192.0.2.0/24']),
    payload_mapping_json: JSON.stringify({ inputs: { ref: '$.ref' } }),
  });
});
afterAll(async () => {
  await Promise.all([one?.daemon.close(), two?.daemon.close()]);
});

describe('configuration exchange: secrets and webhooks', () => {
  it('round-trips key names and every webhook setting; values never leave, created secrets need values', async () => {
    const exported = await one.engine.export({ org: one.acme, families: FAMILIES });
    expect(exported.yaml).toContain('secret_ref: hooks/github');
    expect(exported.yaml).not.toContain(MARKER);
    expect(exported.yaml).not.toContain('a'.repeat(43));
    const plan = await planOf(two, exported.yaml, '00000000-0000-4000-8000-000000000001');
    expect(plan.changes.map((c) => [c.family, c.action, c.needs_values])).toEqual([
      ['secrets', 'create', ['hmac', 'token']],
      ['webhooks', 'create', undefined],
    ]);
    expect(plan.text).toContain('values to set through the secrets API: hmac, token');
    await two.engine.apply(plan, two.acme, operator(plan.plan_id));
    const again = await two.engine.export({ org: two.acme, families: FAMILIES });
    expect(again.yaml).toBe(exported.yaml);

    const knex = two.daemon.services.db.knex;
    expect(await knex('secret_values')).toHaveLength(0);
    const endpoint = await knex('webhook_endpoints').where({ name: 'GitHub push' }).first();
    const secret = await knex('secrets').where({ name: 'hooks/github' }).first('id');
    expect(endpoint).toMatchObject({
      secret_id: secret.id,
      replay_window_seconds: 120,
      payload_mapping_json: { inputs: { ref: '$.ref' } },
    });
    expect(endpoint.path_token).not.toBe('a'.repeat(43));
    const audit = await knex('audit_logs').whereRaw(`details_json->>'correlation_id' = ?`, [plan.plan_id]);
    expect(audit.map((a) => a.resource_type).sort()).toEqual(['config_exchange_plan', 'secret', 'webhook_endpoint']);
    expect(JSON.stringify([plan, audit, await one.daemon.services.db.knex('audit_logs')])).not.toContain(MARKER);
  });

  it('plans exactly an edit of a webhook setting and of a secret key list', async () => {
    const exported = await one.engine.export({ org: one.acme, families: FAMILIES });
    const edited = exported.yaml.replace('ref: $.ref', 'ref: $.after').replace('      - token\n', '      - token\n      - user\n');
    expect(edited).not.toBe(exported.yaml);
    const plan = await planOf(two, edited, 'p-edit');
    expect(plan.changes.map((c) => [c.family, c.action, c.diffs, c.needs_values])).toEqual([
      ['secrets', 'update', [{ path: 'keys', before: ['hmac', 'token'], after: ['hmac', 'token', 'user'] }], ['user']],
      ['webhooks', 'update', [{ path: 'payload_mapping_json.inputs.ref', before: '$.ref', after: '$.after' }], undefined],
    ]);
  });

  it('refuses a webhook whose secret_ref names no secret, applying nothing', async () => {
    const bundle = 'version: 1\norg: acme\nwebhooks:\n  - name: orphan\n    secret_ref: nope\n    flow: deploy\n';
    const plan = await planOf(two, bundle, 'p-orphan');
    await expect(two.engine.apply(plan, two.acme, operator('p-orphan'))).rejects.toMatchObject({ code: 'bundle_reference_unresolved' });
    expect(await two.daemon.services.db.knex('webhook_endpoints').where({ name: 'orphan' })).toHaveLength(0);
  });
});
