import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exported, install, planAndApply, type Installation } from './helpers/config-exchange-installations.js';

/**
 * The `git_repositories`, `file_repositories` and `registry_credentials` families: configuration with
 * secret references travels, state (fetches, tests, files) stays, a repository still used is not pruned.
 */

const FAMILIES = ['git_repositories', 'file_repositories', 'registry_credentials'];
const REF = "{{ secret('keys') }}";
let one: Installation;
let two: Installation;

beforeAll(async () => {
  [one, two] = await Promise.all([install(), install()]);
  const knex = one.daemon.services.db.knex;
  const org_id = one.acme.id;
  await knex('git_repositories').insert([
    { org_id, name: 'flows', url: 'https://git.example.com/net/flows.git', default_branch: 'prod', auth_type: 'token', secret_ref: REF },
    {
      org_id,
      name: 'plain',
      url: 'ssh://git@git.example.com/x.git',
      auth_type: 'ssh_key',
      secret_ref: REF,
      known_hosts: 'git.example.com ssh-ed25519 AAAA',
    },
    { org_id, name: 'public', url: 'https://git.example.com/public.git', last_fetched_at: new Date() },
  ]);
  await knex('file_repositories').insert([
    { org_id, name: 'local', kind: 'local', is_default: true },
    {
      org_id,
      name: 'archive',
      kind: 's3',
      description: 'cold',
      config_json: JSON.stringify({
        region: 'eu-west-1',
        bucket: 'net-archive',
        prefix: '',
        force_path_style: true,
        access_key_id_ref: REF,
        secret_access_key_ref: REF,
      }),
    },
  ]);
  await knex('registry_credentials').insert({
    org_id,
    registry: 'ghcr.io',
    url: 'https://ghcr.io',
    username: 'bot',
    password_ref: REF,
    last_test_ok: true,
  });
  // The target already has its own default repository: the bundle's default takes the flag.
  await two.daemon.services.db.knex('file_repositories').insert({ org_id: two.acme.id, name: 'mine', kind: 'local', is_default: true });
});
afterAll(async () => {
  await Promise.all([one?.daemon.close(), two?.daemon.close()]);
});

describe('configuration exchange: git and file repositories, registry credentials', () => {
  it('round-trips the three families', async () => {
    const yaml = await exported(one, FAMILIES);
    const { plan } = await planAndApply(two, yaml);
    expect(plan.summary).toMatchObject({ add: 6, change: 0, unmanaged: 1 });
    const again = await two.engine.export({ org: two.acme, families: ['git_repositories', 'registry_credentials'] });
    expect(again.yaml).toBe((await one.engine.export({ org: one.acme, families: ['git_repositories', 'registry_credentials'] })).yaml);
    expect(await exported(two, ['file_repositories'])).toContain('access_key_id_ref: "{{ secret(\'keys\') }}"');
    const repos = await two.daemon.services.db.knex('file_repositories').orderBy('name').select('name', 'is_default');
    expect(repos).toEqual([
      { name: 'archive', is_default: false },
      { name: 'local', is_default: true },
      { name: 'mine', is_default: false },
    ]);
    expect(
      await two.daemon.services.db.knex('audit_logs').where({ resource_type: 'git_repository', event_type: 'entity.created' }),
    ).toHaveLength(3);
  });

  it('plans exactly an edit: a changed branch and a new credential reference', async () => {
    const yaml = (await exported(one, FAMILIES))
      .replace('default_branch: prod', 'default_branch: main')
      .replace('username: bot', 'username: robot');
    const plan = await two.engine.plan(two.engine.parse(yaml), { planId: 'r1', org: two.acme, prune: false });
    expect(plan.changes.map((c) => [c.family, c.key, c.diffs])).toEqual([
      ['git_repositories', 'flows', [{ path: 'default_branch', before: 'prod', after: 'main' }]],
      ['registry_credentials', 'ghcr.io', [{ path: 'username', before: 'bot', after: 'robot' }]],
    ]);
  });

  it('refuses a bundle naming two default file repositories (422 bundle_invalid at the second), which no apply could meet', async () => {
    const yaml = [
      'version: 1',
      'org: acme',
      'file_repositories:',
      '  - name: first',
      '    kind: local',
      '    is_default: true',
      '  - name: second',
      '    kind: local',
      '    is_default: true',
      '',
    ].join('\n');
    expect(() => two.engine.parse(yaml)).toThrow(
      expect.objectContaining({
        code: 'bundle_invalid',
        extensions: { errors: [expect.objectContaining({ path: 'file_repositories[1].is_default', line: 9 })] },
      }),
    );
  });

  it('refuses a URL with credentials at parse and pruning a repository that holds files', async () => {
    const bad = 'version: 1\norg: acme\ngit_repositories:\n  - name: x\n    url: https://user:pw@git.example.com/x.git\n';
    expect(() => two.engine.parse(bad)).toThrow(expect.objectContaining({ code: 'bundle_invalid' }));
    const knex = two.daemon.services.db.knex;
    const mine = await knex('file_repositories').where({ name: 'mine' }).first('id');
    await knex('files').insert({
      org_id: two.acme.id,
      repository_id: mine.id,
      name: 'a.txt',
      content_type: 'text/plain',
      size_bytes: 1,
      sha256: '0'.repeat(64),
      storage_key: 'k',
    });
    await expect(planAndApply(two, await exported(one, ['file_repositories']), { prune: true })).rejects.toMatchObject({
      code: 'bundle_item_refused',
      extensions: expect.objectContaining({ reason: 'in_use', key: 'mine' }),
    });
    expect(await knex('file_repositories').where({ name: 'mine' })).toHaveLength(1);
  });
});
