import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import { checkConfig, pluginOf } from '../src/daemon/domains/inventory-providers/provider-config.js';
import { exported, install, planAndApply, type Installation } from './helpers/config-exchange-installations.js';

/**
 * The `inventory_providers` family: keyed `type:name` whatever organization id the provider id carries,
 * credentials as references, a static provider's document file by its place, sync state left behind.
 */

const FAMILIES = ['inventory_providers'];
let one: Installation;
let two: Installation;

/** A file repository `docs` holding `inventory/static.yaml` in the organization. */
async function documentFile(knex: Knex, orgId: string): Promise<string> {
  const [repository] = await knex('file_repositories').insert({ org_id: orgId, name: 'docs', kind: 'local' }).returning('id');
  const [file] = await knex('files')
    .insert({
      org_id: orgId,
      repository_id: repository.id,
      folder: 'inventory',
      name: 'static.yaml',
      content_type: 'application/yaml',
      size_bytes: 10,
      sha256: '0'.repeat(64),
      storage_key: `k-${orgId}`,
    })
    .returning('id');
  return file.id;
}

beforeAll(async () => {
  [one, two] = await Promise.all([install(), install()]);
  const knex = one.daemon.services.db.knex;
  const org_id = one.acme.id;
  const fileId = await documentFile(knex, org_id);
  await documentFile(two.daemon.services.db.knex, two.acme.id);
  const netbox = checkConfig(pluginOf('netbox'), { url: 'https://netbox.example.com', object_types: ['vlan'] });
  await knex('inventory_providers').insert([
    {
      org_id,
      type: 'netbox',
      name: 'dc1',
      provider_id: `netbox:dc1:${org_id}`,
      config_json: JSON.stringify(netbox),
      credential_ref: "{{ secret('netbox-token') }}",
      sync_watermark: new Date(),
      last_sync_status: 'succeeded',
    },
    {
      org_id,
      type: 'static',
      name: 'lab',
      provider_id: `static:lab:${org_id}`,
      config_json: JSON.stringify({ document_file_id: fileId }),
      enabled: false,
    },
  ]);
});
afterAll(async () => {
  await Promise.all([one?.daemon.close(), two?.daemon.close()]);
});

describe('configuration exchange: inventory providers', () => {
  it('round-trips providers: the target makes its own provider ids and finds the document file by place', async () => {
    const yaml = await exported(one, FAMILIES);
    expect(yaml).toContain('credential_ref: "{{ secret(\'netbox-token\') }}"');
    expect(yaml).not.toContain(one.acme.id);
    await planAndApply(two, yaml);
    expect(await exported(two, FAMILIES)).toBe(yaml);
    const rows = await two.daemon.services.db.knex('inventory_providers').orderBy('name');
    expect(rows.map((r) => [r.provider_id, r.sync_watermark])).toEqual([
      [`netbox:dc1:${two.acme.id}`, null],
      [`static:lab:${two.acme.id}`, null],
    ]);
    const file = await two.daemon.services.db.knex('files').where({ name: 'static.yaml' }).first('id');
    expect(rows[1].config_json).toEqual({ document_file_id: file.id });
  });

  it('plans exactly an edit of the configuration', async () => {
    const yaml = (await exported(two, FAMILIES)).replace('page_size: 100', 'page_size: 250');
    const plan = await two.engine.plan(two.engine.parse(yaml), { planId: 'p1', org: two.acme, prune: false });
    expect(plan.changes.map((c) => [c.key, c.action, c.diffs])).toEqual([
      ['netbox:dc1', 'update', [{ path: 'config.page_size', before: 100, after: 250 }]],
    ]);
  });

  it('refuses a configuration its plugin refuses, and a document file the target lacks, applying nothing', async () => {
    const bad = 'version: 1\norg: acme\ninventory_providers:\n  - type: netbox\n    name: x\n    config:\n      url: ftp://nope\n';
    expect(() => two.engine.parse(bad)).toThrow(expect.objectContaining({ code: 'bundle_invalid' }));
    const missing = (await exported(two, FAMILIES)).replace('name: static.yaml', 'name: gone.yaml');
    await expect(planAndApply(two, missing)).rejects.toMatchObject({ code: 'bundle_reference_unresolved' });
  });
});
