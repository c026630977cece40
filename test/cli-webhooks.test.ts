import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, runSvc, type SvcRun } from './helpers/cli.js';
import { BARE, count, createSecret, deliveriesOf, seedFlow, startWorld, type World } from './helpers/webhooks-fixtures.js';

/**
 * `svc webhooks` management verbs as built (a subprocess, no terminal) against a real daemon, in acme:
 * alice (admin) manages, dave (operator) and carol (viewer) meet the refusals. Ends to end: an endpoint
 * made by `svc webhooks create` takes a delivery from `svc webhooks send`.
 */
let w: World;
let configHome: string;
const ids: Record<string, string> = {};
const KEY = 'cli-signing-key-1';
const KEY2 = 'cli-signing-key-2';
const TOKEN_URL = /^http:\/\/127\.0\.0\.1:\d+\/hooks\/[A-Za-z0-9_-]{43}$/;

beforeAll(async () => {
  w = await startWorld();
  configHome = await mkdtemp(join(tmpdir(), 'svc-cli-webhooks-'));
  const db = w.knex();
  ids.deploy = await seedFlow(db, w.ids.acme!, { name: 'deploy', versions: [BARE, BARE] });
  ids.other = await seedFlow(db, w.ids.acme!, { name: 'other', versions: [BARE] });
  ids.key = await createSecret(w, 'alice', 'hooks/cli-key-1', KEY);
  ids.key2 = await createSecret(w, 'alice', 'hooks/cli-key-2', KEY2);
});
afterAll(async () => {
  await w?.close();
  if (configHome) await rm(configHome, { recursive: true, force: true });
});

/** `svc --server … --org acme <args>` as `who`, whose bearer travels in SVC_TOKEN. */
function svc(who: string, args: string[], env: Record<string, string> = {}): Promise<SvcRun> {
  return runSvc(['--server', w.url, '--org', 'acme', ...args], {
    configHome,
    env: { SVC_TOKEN: w.as[who]!.replace(/^Bearer /, ''), ...env },
  });
}

const json = async <T = Record<string, unknown>>(run: Promise<SvcRun>): Promise<T> => JSON.parse((await ok(run)).stdout) as T;
const row = (id: string) => w.knex()('webhook_endpoints').where({ id }).first();
const endpointCount = () => count(w.knex()('webhook_endpoints'));

/** An endpoint made through the CLI; answers the daemon's record. */
async function create(name: string, extra: string[] = []): Promise<{ id: string; path_token: string } & Record<string, unknown>> {
  return json(svc('alice', ['webhooks', 'create', '--name', name, '--flow', ids.deploy!, '--secret', ids.key!, '--json', ...extra]));
}

/** The table line whose first column is `first`. */
function line(table: string, first: string): string {
  const found = table.split('\n').find((l) => l.split(/\s{2,}/)[0] === first);
  expect(found, `no row "${first}" in:\n${table}`).toBeDefined();
  return found!;
}

/** A refusal from the daemon: exit 5, nothing on stdout, the problem code and request id on stderr. */
function expectForbidden(result: SvcRun): void {
  expect(result.code, result.stderr).toBe(5);
  expect(result.stdout).toBe('');
  expect(result.stderr).toContain('code: forbidden');
  expect(result.stderr).toMatch(/request id: [\w.:-]{8,}/);
}

describe('svc webhooks create and send', () => {
  it('prints the trigger URL alone on stdout and a send hint on stderr; svc webhooks send to it is accepted (202)', async () => {
    const created = await ok(svc('alice', ['webhooks', 'create', '--name', 'ci deploy', '--flow', ids.deploy!, '--secret', ids.key!]));
    const url = created.stdout.trim();
    expect(url).toMatch(TOKEN_URL);
    expect(created.stdout).toBe(`${url}\n`);
    expect(created.stderr).toMatch(/Created webhook endpoint ci deploy \([0-9a-f-]{36}\)/);
    expect(created.stderr).toContain(`svc webhooks send --url ${url}`);
    expect(created.stderr).toContain('--secret-env HOOK_SECRET');
    const stored = await w.knex()('webhook_endpoints').where({ name: 'ci deploy' }).first();
    expect(url.endsWith(`/hooks/${stored.path_token}`)).toBe(true);
    expect(stored).toMatchObject({ flow_id: ids.deploy, secret_id: ids.key, auth_mode: 'hmac_sha256', enabled: true });

    const sent = await ok(
      runSvc(['webhooks', 'send', '--url', url, '--data', '{"params": {}}', '--secret-env', 'HOOK_SECRET'], {
        configHome,
        env: { HOOK_SECRET: KEY },
      }),
    );
    expect(sent.stdout).toMatch(/^delivery_id:\s+[0-9a-f-]{36}$/m);
    expect(sent.stdout).toMatch(/^flow_id:\s+/m);
    const [delivery] = await deliveriesOf(w, stored.id);
    expect(delivery).toMatchObject({ response_status: 202, signature_valid: true });
    expect(sent.stdout).toContain(delivery.id);
  });

  it('takes --flow as a name as well as an id, on create and update; an unknown name exits 3 and writes nothing', async () => {
    const created = await json<{ id: string; flow_id: string }>(
      svc('alice', ['webhooks', 'create', '--name', 'by flow name', '--flow', 'deploy', '--secret', ids.key!, '--json']),
    );
    expect(created.flow_id).toBe(ids.deploy);
    await ok(svc('alice', ['webhooks', 'update', created.id, '--flow', 'other']));
    expect(await row(created.id)).toMatchObject({ flow_id: ids.other });

    const before = await endpointCount();
    const unknown = await svc('alice', ['webhooks', 'create', '--name', 'nowhere', '--flow', 'no-such-flow', '--secret', ids.key!]);
    expect(unknown.code, unknown.stderr).toBe(3);
    expect(await endpointCount()).toBe(before);
  });

  it('prints the daemon record with --json, with the flags mapped to the API fields', async () => {
    const before = await endpointCount();
    const created = await json(
      svc('alice', [
        'webhooks',
        'create',
        '--name',
        'pinned',
        '--flow',
        ids.deploy!,
        '--secret',
        ids.key!,
        '--auth-mode',
        'bearer',
        '--flow-version',
        '1',
        '--allow',
        '10.0.0.0/8',
        '--allow',
        '192.168.1.0/24,2001:db8::/32',
        '--rate',
        '30',
        '--replay-window',
        '120',
        '--disabled',
        '--description',
        'pinned one',
        '--payload-mapping',
        '{"a": 1}',
        '--json',
      ]),
    );
    expect(created).toMatchObject({
      name: 'pinned',
      description: 'pinned one',
      auth_mode: 'bearer',
      flow_id: ids.deploy,
      flow_name: 'deploy',
      flow_version: 1,
      secret_id: ids.key,
      allowed_source_ips: ['10.0.0.0/8', '192.168.1.0/24', '2001:db8::/32'],
      rate_limit_per_minute: 30,
      replay_window_seconds: 120,
      enabled: false,
      payload_mapping_json: { a: 1 },
    });
    expect(created.path_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(created.trigger_path).toBe(`/hooks/${created.path_token as string}`);
    expect(await endpointCount()).toBe(before + 1);
  });

  it('refuses bad usage with exit 2 and a field the daemon refuses with exit 1 and its code, writing nothing', async () => {
    const before = await endpointCount();
    for (const args of [
      ['--flow', ids.deploy!],
      ['--name', 'x'],
      ['--name', 'x', '--flow', ids.deploy!, '--rate', 'fast'],
      ['--name', 'x', '--flow', ids.deploy!, '--auth-mode', 'basic'],
      ['--name', 'x', '--flow', ids.deploy!, '--payload-mapping', '[1]'],
    ]) {
      const run = await svc('alice', ['webhooks', 'create', ...args]);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(2);
    }
    const refused = await svc('alice', ['webhooks', 'create', '--name', 'x', '--flow', ids.deploy!, '--allow', '10.1.2.3/24']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('code: validation_failed');
    expect(refused.stderr).toMatch(/request id: \S+/);
    expect(await endpointCount()).toBe(before);
  });

  it('refuses a viewer with exit 5 and the request id, writing nothing', async () => {
    const before = await endpointCount();
    expectForbidden(await svc('carol', ['webhooks', 'create', '--name', 'nope', '--flow', ids.deploy!, '--secret', ids.key!]));
    expect(await endpointCount()).toBe(before);
  });
});

describe('svc webhooks list and get', () => {
  it('lists endpoints as a table and as {items} with the list fields', async () => {
    const endpoint = await create('listed');
    const table = await ok(svc('carol', ['webhooks', 'list']));
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+ENABLED\s+AUTH\s+FLOW\s+VERSION\s+RATE\/MIN\s+LAST TRIGGERED$/);
    expect(line(table.stdout, endpoint.id)).toMatch(/\blisted\s+yes\s+hmac_sha256\s+deploy\s+latest\s+60\s+-$/);

    const { items } = await json<{ items: Record<string, unknown>[] }>(svc('carol', ['webhooks', 'list', '--json']));
    const item = items.find((i) => i.id === endpoint.id)!;
    expect(Object.keys(item).sort()).toEqual([
      'auth_mode',
      'created_at',
      'deleted_at',
      'description',
      'enabled',
      'flow_id',
      'flow_name',
      'flow_version',
      'id',
      'last_triggered_at',
      'name',
      'rate_limit_per_minute',
      'secret_id',
    ]);
  });

  it('shows one endpoint by id or by name, with its trigger URL', async () => {
    const endpoint = await create('shown');
    const byName = await ok(svc('carol', ['webhooks', 'get', 'shown']));
    expect(byName.stdout).toMatch(new RegExp(`^id:\\s+${endpoint.id}$`, 'm'));
    expect(byName.stdout).toMatch(new RegExp(`^trigger_url:\\s+${w.url}/hooks/${endpoint.path_token}$`, 'm'));
    expect(byName.stdout).toMatch(new RegExp(`^flow:\\s+deploy \\(${ids.deploy}\\)$`, 'm'));
    expect(byName.stdout).toMatch(/^allowed_source_ips:\s+any$/m);
    const byId = await json(svc('carol', ['webhooks', 'get', endpoint.id, '--json']));
    expect(byId).toMatchObject({ id: endpoint.id, path_token: endpoint.path_token, flow_name: 'deploy' });
    expect(Object.keys(byId)).toEqual(
      expect.arrayContaining([
        'path_token',
        'trigger_path',
        'replay_window_seconds',
        'allowed_source_ips',
        'payload_mapping_json',
        'updated_at',
      ]),
    );
  });

  it('exits 3 for an unknown id or name, and 2 for a name two endpoints share', async () => {
    const unknown = await svc('carol', ['webhooks', 'get', '00000000-0000-4000-8000-000000000000']);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain('code: resource_not_found');
    expect((await svc('carol', ['webhooks', 'get', 'no such endpoint'])).code).toBe(3);
    const a = await create('twin');
    const b = await create('twin');
    const ambiguous = await svc('carol', ['webhooks', 'get', 'twin']);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain(a.id);
    expect(ambiguous.stderr).toContain(b.id);
  });
});

describe('svc webhooks update', () => {
  it('changes only the fields given, and --unpin/--clear-allow-list/--enable send nulls and true', async () => {
    const endpoint = await create('to update');
    const changed = await ok(
      svc('dave', [
        'webhooks',
        'update',
        endpoint.id,
        '--disable',
        '--rate',
        '10',
        '--allow',
        '10.0.0.0/8',
        '--flow-version',
        '2',
        '--description',
        'changed',
      ]),
    );
    expect(changed.stdout).toBe('');
    expect(changed.stderr).toContain(`Updated webhook endpoint to update (${endpoint.id})`);
    expect(await row(endpoint.id)).toMatchObject({
      enabled: false,
      rate_limit_per_minute: 10,
      flow_version: 2,
      description: 'changed',
      replay_window_seconds: 300,
    });

    const back = await json(
      svc('dave', ['webhooks', 'update', 'to update', '--enable', '--unpin', '--clear-allow-list', '--description', '', '--json']),
    );
    expect(back).toMatchObject({
      id: endpoint.id,
      enabled: true,
      flow_version: null,
      allowed_source_ips: null,
      description: null,
      rate_limit_per_minute: 10,
    });

    const retarget = await json(svc('dave', ['webhooks', 'update', endpoint.id, '--flow', ids.other!, '--name', 'retargeted', '--json']));
    expect(retarget).toMatchObject({ flow_id: ids.other, flow_name: 'other', name: 'retargeted' });
  });

  it('refuses nothing to change and contradicting flags with exit 2, sending nothing', async () => {
    const endpoint = await create('untouched');
    const before = await row(endpoint.id);
    for (const args of [
      [],
      ['--enable', '--disable'],
      ['--allow', '10.0.0.0/8', '--clear-allow-list'],
      ['--flow-version', '1', '--unpin'],
      ['--auth-mode', 'bearer'],
    ]) {
      const run = await svc('alice', ['webhooks', 'update', endpoint.id, ...args]);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(2);
    }
    expect(await row(endpoint.id)).toEqual(before);
  });

  it('refuses a viewer with exit 5', async () => {
    const endpoint = await create('viewer cannot');
    expectForbidden(await svc('carol', ['webhooks', 'update', endpoint.id, '--disable']));
    expect(await row(endpoint.id)).toMatchObject({ enabled: true });
  });
});

describe('svc webhooks test', () => {
  it('prints the checks and exits 0 for a valid endpoint, 1 with the error codes for one that would refuse', async () => {
    const good = await create('checked');
    const valid = await ok(svc('dave', ['webhooks', 'test', good.id]));
    expect(valid.stdout).toMatch(/^valid:\s+yes$/m);
    expect(valid.stdout).toMatch(/^secret_resolvable:\s+yes$/m);
    expect(valid.stdout).toMatch(/^flow_exists:\s+yes$/m);
    expect(await json(svc('dave', ['webhooks', 'test', good.id, '--json']))).toEqual({
      valid: true,
      checks: { secret_resolvable: true, flow_exists: true, flow_version_available: true, enabled: true },
      errors: [],
    });

    const bad = await json<{ id: string }>(
      svc('alice', ['webhooks', 'create', '--name', 'no secret', '--flow', ids.deploy!, '--disabled', '--json']),
    );
    const human = await svc('dave', ['webhooks', 'test', bad.id]);
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/^valid:\s+no$/m);
    expect(human.stdout).toMatch(/^error:\s+secret_missing: /m);
    expect(human.stderr).toContain('secret_missing');
    expect(human.stderr).toContain('endpoint_disabled');
    const asJson = await svc('dave', ['webhooks', 'test', bad.id, '--json']);
    expect(asJson.code).toBe(1);
    const result = JSON.parse(asJson.stdout) as { valid: boolean; errors: { code: string }[] };
    expect(result.valid).toBe(false);
    expect(result.errors.map((e) => e.code).sort()).toEqual(['endpoint_disabled', 'secret_missing']);
  });

  it('warns at creation when no secret is linked', async () => {
    const created = await ok(svc('alice', ['webhooks', 'create', '--name', 'unsigned', '--flow', ids.deploy!]));
    expect(created.stderr).toMatch(/warning: no secret is linked/);
    expect(created.stderr).toContain('svc webhooks rotate-secret');
  });
});

describe('svc webhooks rotate-secret', () => {
  it('asks for --yes without a terminal, then switches the secret: the old one is refused, the new one accepted', async () => {
    const endpoint = await create('rotated');
    const url = `${w.url}/hooks/${endpoint.path_token}`;
    const unconfirmed = await svc('alice', ['webhooks', 'rotate-secret', endpoint.id, '--secret', ids.key2!]);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain('--yes');
    expect(await row(endpoint.id)).toMatchObject({ secret_id: ids.key });
    expect((await svc('alice', ['webhooks', 'rotate-secret', endpoint.id, '--yes'])).code).toBe(2);

    const rotated = await json(svc('alice', ['webhooks', 'rotate-secret', 'rotated', '--secret', ids.key2!, '--yes', '--json']));
    expect(rotated).toMatchObject({ id: endpoint.id, secret_id: ids.key2 });
    const human = await ok(svc('alice', ['webhooks', 'rotate-secret', endpoint.id, '--secret', ids.key!, '-y']));
    expect(human.stderr).toContain(`now ${ids.key}`);

    const send = (key: string) =>
      runSvc(['webhooks', 'send', '--url', url, '--data', '{}', '--secret-env', 'K'], { configHome, env: { K: key } });
    const old = await send(KEY2);
    expect(old.code).toBe(4);
    expect(old.stderr).toContain('code: webhook_auth_failed');
    expect((await send(KEY)).code).toBe(0);
  });

  it('refuses an operator (rotation is for admins) with exit 5, changing nothing', async () => {
    const endpoint = await create('operator cannot rotate');
    expectForbidden(await svc('dave', ['webhooks', 'rotate-secret', endpoint.id, '--secret', ids.key2!, '--yes']));
    expect(await row(endpoint.id)).toMatchObject({ secret_id: ids.key });
  });
});

describe('svc webhooks deliveries', () => {
  it('lists the journal as a table and as {items, total, limit, offset}', async () => {
    const endpoint = await create('journaled');
    const url = `${w.url}/hooks/${endpoint.path_token}`;
    for (const key of [KEY, KEY, 'wrong-key'])
      await runSvc(['webhooks', 'send', '--url', url, '--data', '{}', '--secret-env', 'K'], { configHome, env: { K: key } });

    const table = await ok(svc('dave', ['webhooks', 'deliveries', endpoint.id]));
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+CREATED\s+STATUS\s+SIGNATURE\s+SOURCE\s+RUNS\s+MS\s+IDEMPOTENCY KEY\s+ERROR$/);
    const rows = await deliveriesOf(w, endpoint.id);
    expect(rows).toHaveLength(3);
    const refused = rows.find((r) => r.response_status === 401)!;
    expect(line(table.stdout, refused.id)).toMatch(/\s401\s+invalid\s/);

    const page = await json<{ items: Record<string, unknown>[]; total: number; limit: number; offset: number }>(
      svc('dave', ['webhooks', 'deliveries', 'journaled', '--limit', '2', '--json']),
    );
    expect(page).toMatchObject({ total: 3, limit: 2, offset: 0 });
    expect(page.items).toHaveLength(2);
    expect(Object.keys(page.items[0]!).sort()).toEqual([
      'created_at',
      'error_detail',
      'id',
      'idempotency_key',
      'processing_duration_ms',
      'request_body_hash',
      'response_status',
      'run_ids',
      'signature_valid',
      'source_ip',
      'webhook_endpoint_id',
    ]);
    const more = await ok(svc('dave', ['webhooks', 'deliveries', endpoint.id, '--limit', '2']));
    expect(more.stderr).toContain('use --offset 2 for more');
    const rest = await json<{ items: unknown[] }>(svc('dave', ['webhooks', 'deliveries', endpoint.id, '--offset', '2', '--json']));
    expect(rest.items).toHaveLength(1);
  });

  it('refuses a viewer (the journal is for operators) with exit 5', async () => {
    const endpoint = await create('viewer cannot read journal');
    expectForbidden(await svc('carol', ['webhooks', 'deliveries', endpoint.id]));
  });
});

describe('svc webhooks delete, restore, purge', () => {
  it('soft-deletes (asking for --yes without a terminal), restores by name, and purges', async () => {
    const endpoint = await create('short lived');
    const url = `${w.url}/hooks/${endpoint.path_token}`;

    const unconfirmed = await svc('alice', ['webhooks', 'delete', endpoint.id]);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain('--yes');
    expect(await row(endpoint.id)).toMatchObject({ deleted_at: null });

    const deleted = await ok(svc('alice', ['webhooks', 'delete', 'short lived', '--yes']));
    expect(deleted.stderr).toContain(`svc webhooks restore ${endpoint.id}`);
    expect((await row(endpoint.id)).deleted_at).not.toBeNull();
    expect((await ok(svc('alice', ['webhooks', 'list']))).stdout).not.toContain(endpoint.id);
    const withDeleted = await ok(svc('alice', ['webhooks', 'list', '--include-deleted']));
    expect(withDeleted.stdout.split('\n')[0]).toMatch(/DELETED$/);
    expect(line(withDeleted.stdout, endpoint.id)).toMatch(/\d{4}-\d{2}-\d{2}T\S+Z$/);
    expect(
      (await runSvc(['webhooks', 'send', '--url', url, '--data', '{}', '--secret-env', 'K'], { configHome, env: { K: KEY } })).code,
    ).toBe(3);

    const restored = await json(svc('alice', ['webhooks', 'restore', 'short lived', '--json']));
    expect(restored).toMatchObject({ id: endpoint.id, deleted_at: null, path_token: endpoint.path_token });

    expect(await json(svc('alice', ['webhooks', 'delete', endpoint.id, '--yes', '--json']))).toEqual({ id: endpoint.id, deleted: true });
    expect((await ok(svc('alice', ['webhooks', 'restore', endpoint.id]))).stderr).toContain(
      `Restored webhook endpoint short lived (${endpoint.id})`,
    );

    expect((await svc('alice', ['webhooks', 'purge', endpoint.id])).code).toBe(2);
    expect(await row(endpoint.id)).toBeDefined();
    expect(await json(svc('alice', ['webhooks', 'purge', 'short lived', '--yes', '--json']))).toEqual({ id: endpoint.id, purged: true });
    expect(await row(endpoint.id)).toBeUndefined();
    expect((await svc('alice', ['webhooks', 'get', endpoint.id])).code).toBe(3);
  });

  it('refuses a viewer deleting and an operator purging with exit 5, changing nothing', async () => {
    const endpoint = await create('kept');
    expectForbidden(await svc('carol', ['webhooks', 'delete', endpoint.id, '--yes']));
    expectForbidden(await svc('dave', ['webhooks', 'purge', endpoint.id, '--yes']));
    expect(await row(endpoint.id)).toMatchObject({ deleted_at: null });
  });

  it("acts only in the organization given by --org: another organization's endpoint is not found", async () => {
    const endpoint = await create('acme only');
    const bob = await runSvc(['--server', w.url, '--org', 'globex', 'webhooks', 'delete', endpoint.id, '--yes'], {
      configHome,
      env: { SVC_TOKEN: w.as.bob!.replace(/^Bearer /, '') },
    });
    expect(bob.code).toBe(3);
    expect(await row(endpoint.id)).toMatchObject({ deleted_at: null });
  });
});
