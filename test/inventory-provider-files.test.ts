import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadStream } from './helpers/files-fixtures.js';
import { providerPath, startProviderWorld, sync, type ProviderWorld } from './helpers/inventory-providers-fixtures.js';
import { call } from './helpers/webhooks-fixtures.js';

/**
 * A static provider whose YAML document is a file of the file repositories (`document_file_id`): read as
 * the provider's organization at save and at each use, the shared organization's files included, another
 * organization's refused; a replaced file syncs its new content; a file that is not YAML fails with line
 * and column; a referenced file counts as in use.
 */

let world: ProviderWorld;
const knex = () => world.knex();
const repositories: Record<string, string> = {};

beforeAll(async () => {
  world = await startProviderWorld();
  for (const [who, org] of [
    ['alice', 'acme'],
    ['bob', 'globex'],
    ['sam', 'commons'],
  ] as const) {
    const ensured = await call(world, who, 'POST', '/file-repositories/ensure-default', undefined, org);
    expect(ensured.status).toBeLessThan(300);
    repositories[org] = ensured.body.id;
  }
});
afterAll(() => world?.close());

const inventory = (devices: string[]) =>
  ['sites:', '  - {id: lab, name: Lab}', 'devices:', ...devices.map((name) => `  - {id: ${name}, name: ${name}, site: lab}`)].join('\n');

async function upload(org: string, who: string, name: string, text: string, overwrite = false): Promise<string> {
  const query = { name, ...(overwrite ? { overwrite: 'true' } : {}) };
  const answer = await uploadStream(world, repositories[org]!, query, Buffer.from(text), who, org);
  expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
  return answer.body.id as string;
}

const create = (name: string, config: Record<string, unknown>, who = 'alice', org = 'acme') =>
  call(world, who, 'POST', '/inventory/providers', { type: 'static', name, config }, org);

describe('a static provider whose document is a file', () => {
  it('syncs the file, then the file replaced', async () => {
    const fileId = await upload('acme', 'alice', 'inventory.yaml', inventory(['sw1', 'sw2']));
    const created = await create('filed', { document_file_id: fileId });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.config).toEqual({ document_file_id: fileId });
    const providerId = created.body.provider_id as string;
    const first = await sync(world, providerId);
    expect(first.status).toBe(200);
    expect(first.body.counts).toMatchObject({ sites: { created: 1 }, devices: { created: 2 } });

    expect(await upload('acme', 'alice', 'inventory.yaml', inventory(['sw1', 'sw3']), true)).toBe(fileId);
    const second = await sync(world, providerId);
    expect(second.status).toBe(200);
    expect(second.body.counts).toMatchObject({ devices: { created: 1, unchanged: 1, stale: 1 } });
    const live = await knex()('devices').where({ provider_id: providerId }).whereNull('deleted_at').orderBy('name').pluck('name');
    expect(live).toEqual(['sw1', 'sw3']);

    const tested = await call(world, 'alice', 'POST', providerPath(providerId, '/test-connection'));
    expect(tested.body).toMatchObject({ ok: true, details: { devices: 2 } });
    const discovered = await call(world, 'alice', 'POST', providerPath(providerId, '/discover'));
    expect(discovered.body).toMatchObject({ sites: 1, devices: 2 });
  });

  it("reads the shared organization's file, refuses another organization's and an unknown one (nothing stored)", async () => {
    const shared = await upload('commons', 'sam', 'shared.yaml', inventory(['core1']));
    const created = await create('shared-doc', { document_file_id: shared });
    expect(created.status).toBe(201);
    expect((await sync(world, created.body.provider_id)).body.counts).toMatchObject({ devices: { created: 1 } });

    const foreign = await upload('globex', 'bob', 'theirs.yaml', inventory(['x1']));
    const before = Number((await knex()('inventory_providers').count({ n: '*' }))[0]!.n);
    for (const fileId of [foreign, '00000000-0000-4000-8000-000000000000']) {
      const refused = await create('foreign-doc', { document_file_id: fileId });
      expect(refused.status).toBe(422);
      expect(refused.body.code).toBe('invalid_provider_config');
      expect(refused.body.errors[0].path).toBe('config.document_file_id');
    }
    const patched = await call(world, 'alice', 'PATCH', providerPath(created.body.provider_id), { config: { document_file_id: foreign } });
    expect(patched.status).toBe(422);
    expect(patched.body.code).toBe('invalid_provider_config');
    expect(Number((await knex()('inventory_providers').count({ n: '*' }))[0]!.n)).toBe(before);
  });

  it('takes exactly one of document and document_file_id', async () => {
    const fileId = await upload('acme', 'alice', 'both.yaml', inventory([]));
    for (const config of [{}, { document: 'devices: []', document_file_id: fileId }]) {
      const refused = await create('both', config);
      expect(refused.status).toBe(422);
      expect(refused.body.code).toBe('invalid_provider_config');
    }
    const inline = await create('inline', { document: inventory(['i1']) });
    expect(inline.status).toBe(201);
    expect((await sync(world, inline.body.provider_id)).body.counts).toMatchObject({ devices: { created: 1 } });
  });

  it('refuses a file that is not YAML at save, and at sync once replaced, with line and column', async () => {
    const broken = 'devices:\n  - id: 1\n    name: [unclosed\n';
    const bad = await upload('acme', 'alice', 'broken.yaml', broken);
    const refused = await create('broken', { document_file_id: bad });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0]).toMatchObject({ path: 'config.document_file_id' });
    expect(refused.body.errors[0].line).toBeGreaterThan(0);

    const fileId = await upload('acme', 'alice', 'later.yaml', inventory(['r1']));
    const created = await create('later', { document_file_id: fileId });
    expect(created.status).toBe(201);
    await upload('acme', 'alice', 'later.yaml', broken, true);
    const failed = await sync(world, created.body.provider_id);
    expect(failed.status).toBe(422);
    expect(failed.body.code).toBe('invalid_provider_config');
    expect(failed.body.errors[0].line).toBeGreaterThan(0);
    expect(failed.body.errors[0].column).toBeGreaterThan(0);
    const tested = await call(world, 'alice', 'POST', providerPath(created.body.provider_id, '/test-connection'));
    expect(tested.status).toBe(200);
    expect(tested.body).toMatchObject({ ok: false, error: { code: 'invalid_document' } });
  });

  it('counts the file as in use while a live provider names it', async () => {
    const fileId = await upload('acme', 'alice', 'used.yaml', inventory(['u1']));
    const created = await create('used', { document_file_id: fileId });
    expect(created.status).toBe(201);
    const usage = await call(world, 'alice', 'GET', `/files/${fileId}/usage`);
    expect(usage.body).toMatchObject({ in_use: true, inventory_providers: [{ provider_id: created.body.provider_id, name: 'used' }] });
    const refused = await call(world, 'alice', 'DELETE', `/files/${fileId}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'file_in_use', inventory_providers: [created.body.provider_id] });
    expect((await call(world, 'alice', 'DELETE', providerPath(created.body.provider_id))).status).toBe(204);
    expect((await call(world, 'alice', 'GET', `/files/${fileId}/usage`)).body.in_use).toBe(false);
    expect((await call(world, 'alice', 'DELETE', `/files/${fileId}`)).status).toBe(204);
  });

  it('refuses a file over the size cap and one that is not UTF-8', async () => {
    const big = await upload('acme', 'alice', 'big.yaml', `# ${'x'.repeat(4 * 1024 * 1024)}\ndevices: []\n`);
    const latin = await uploadStream(world, repositories.acme!, { name: 'latin.yaml' }, Buffer.from([0x23, 0x20, 0xe9, 0x0a]));
    expect(latin.status).toBeLessThan(300);
    for (const fileId of [big, latin.body.id]) {
      const refused = await create('odd', { document_file_id: fileId });
      expect(refused.status).toBe(422);
      expect(refused.body.code).toBe('invalid_provider_config');
    }
  });
});
