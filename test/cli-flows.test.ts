import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flowToYaml } from '../src/shared/flows/flow-yaml.js';
import { runSvc, type SvcRun } from './helpers/cli.js';
import { HttpForwarder } from './helpers/http-forwarder.js';
import { call, seedFlow, startWorld, TARGETED, type World } from './helpers/webhooks-fixtures.js';

/**
 * `svc flows list|export|apply|commit` as built (a subprocess, no terminal) against a real daemon: flows as
 * files. In acme, dave is an operator, carol a viewer; commons is the shared organization.
 */
let w: World;
let root: string;
const flowsOf = (name: string) => w.knex()('flows').where({ name });

beforeAll(async () => {
  w = await startWorld();
  root = await mkdtemp(join(tmpdir(), 'svc-cli-flows-'));
  await seedFlow(w.knex(), w.ids.commons!, { name: 'shared-one', versions: [TARGETED] });
});
afterAll(async () => {
  await w?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

function svc(who: string, args: string[], stdin?: string): Promise<SvcRun> {
  return runSvc(['--server', w.url, '--org', 'acme', ...args], {
    configHome: root,
    env: { SVC_TOKEN: w.as[who]!.replace(/^Bearer /, '') },
    ...(stdin === undefined ? {} : { stdin }),
  });
}

async function file(name: string, text: string): Promise<string> {
  const path = join(root, name);
  await writeFile(path, text);
  return path;
}

const DEFINITION = {
  steps: [{ id: 'noop', handler: 'general.noop', config: {} }],
  edges: [],
  inputs: [],
  target_roles: [],
};

describe('svc flows apply', () => {
  it('creates the flow of the file, then updates its draft; --commit commits it; export gives the file back', async () => {
    const path = await file(
      'edge.yaml',
      flowToYaml({ name: 'edge', description: 'edge routers', version: 'draft', definition: DEFINITION }),
    );
    const created = await svc('dave', ['flows', 'apply', path]);
    expect(created.code, created.stderr).toBe(0);
    const [row] = await flowsOf('edge');
    expect(created.stdout).toBe(`${row.id}\n`);
    expect(row).toMatchObject({ org_id: w.ids.acme, description: 'edge routers', latest_version: 0 });

    const changed = { ...DEFINITION, steps: [{ id: 'wait', handler: 'general.sleep', config: { seconds: 1 } }] };
    const again = await file('edge-2.yaml', flowToYaml({ name: 'edge', description: 'edge routers', version: 1, definition: changed }));
    const committed = await svc('dave', ['flows', 'apply', again, '--commit', '-m', 'from a file', '--json']);
    expect(committed.code, committed.stderr).toBe(0);
    expect(JSON.parse(committed.stdout)).toMatchObject({ id: row.id, latest_version: 1, draft_dirty: false });
    expect(await flowsOf('edge')).toHaveLength(1);
    const version = await w.knex()('flow_versions').where({ flow_id: row.id, version: 1 }).first();
    expect(version).toMatchObject({ message: 'from a file' });

    // Someone saves the draft between this command's save and its commit: the commit is refused, nothing committed.
    const raced = flowToYaml({ name: 'edge', description: 'edge routers', version: 1, definition: DEFINITION });
    const proxy = new HttpForwarder(w.url);
    proxy.interleaved.push({
      match: /^POST \/flows\/[^/]+\/commit$/,
      work: () => call(w, 'dave', 'POST', `/flows/${row.id}/draft`, { definition: { ...changed, steps: [] } }),
    });
    await proxy.start();
    try {
      const refused = await runSvc(
        ['--server', proxy.url, '--org', 'acme', 'flows', 'apply', await file('edge-3.yaml', raced), '--commit'],
        {
          configHome: root,
          env: { SVC_TOKEN: w.as.dave!.replace(/^Bearer /, '') },
        },
      );
      expect([refused.code, refused.stderr.includes('precondition_failed')]).toEqual([1, true]);
    } finally {
      await proxy.stop();
    }
    expect(await w.knex()('flow_versions').where({ flow_id: row.id })).toHaveLength(1);
    await call(w, 'dave', 'POST', `/flows/${row.id}/draft`, { definition: changed });

    const exported = await svc('carol', ['flows', 'export', 'edge']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain('kind: svc/flow');
    expect(exported.stdout).toContain('handler: general.sleep');
    // What export prints, apply takes back unchanged.
    const roundTrip = await svc('dave', ['flows', 'apply', '-'], exported.stdout);
    expect(roundTrip.code, roundTrip.stderr).toBe(0);
    expect(roundTrip.stdout).toBe(`${row.id}\n`);
  });

  it('takes JSON, --name over the file, and keeps the description when the file has none', async () => {
    const path = await file('plain.json', JSON.stringify({ definition: DEFINITION }));
    const unnamed = await svc('dave', ['flows', 'apply', path]);
    expect(unnamed.code).toBe(2);
    const created = await svc('dave', ['flows', 'apply', path, '--name', 'from-json']);
    expect(created.code, created.stderr).toBe(0);
    await w.knex()('flows').where({ name: 'from-json' }).update({ description: 'kept' });
    expect((await svc('dave', ['flows', 'apply', path, '--name', 'from-json'])).code).toBe(0);
    expect(await flowsOf('from-json')).toEqual([expect.objectContaining({ description: 'kept' })]);
  });

  it('refuses a file that is not a flow with each issue at its line, and sends nothing', async () => {
    const broken = await file(
      'broken.yaml',
      'name: broken\ndefinition:\n  steps:\n    - id: a\n      handler: general.noop\n      config: {}\n      bogus: 1\n',
    );
    const result = await svc('dave', ['flows', 'apply', broken]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/broken\.yaml:4:\d+: definition\.steps\[0\]/);
    expect(await flowsOf('broken')).toHaveLength(0);

    // With --commit every rule is checked first: an unknown handler passes the shape, not the rules.
    const unknownHandler = await file(
      'rules.yaml',
      flowToYaml({
        name: 'rules',
        description: null,
        version: 'draft',
        definition: { ...DEFINITION, steps: [{ id: 'x', handler: 'no.such', config: {} }] },
      }),
    );
    const refused = await svc('dave', ['flows', 'apply', unknownHandler, '--commit']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/rules\.yaml:\d+:\d+: definition\.steps\[0\]/);
    expect(await flowsOf('rules')).toHaveLength(0);
    // Without it the draft is saved, and the rules it breaks are said.
    const saved = await svc('dave', ['flows', 'apply', unknownHandler]);
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stderr).toContain('a commit would refuse it');
    expect(await flowsOf('rules')).toHaveLength(1);
  });

  it("makes the organization's own flow rather than writing to the shared organization's of the same name", async () => {
    const path = await file('shared.yaml', flowToYaml({ name: 'shared-one', description: null, version: 'draft', definition: DEFINITION }));
    const result = await svc('dave', ['flows', 'apply', path]);
    expect(result.code, result.stderr).toBe(0);
    const rows = await flowsOf('shared-one');
    expect(rows.map((r: { org_id: string }) => r.org_id).sort()).toEqual([w.ids.acme, w.ids.commons].sort());
  });

  it('is refused to a viewer (exit 5), writing nothing', async () => {
    const path = await file('viewer.yaml', flowToYaml({ name: 'by-viewer', description: null, version: 'draft', definition: DEFINITION }));
    expect((await svc('carol', ['flows', 'apply', path])).code).toBe(5);
    expect(await flowsOf('by-viewer')).toHaveLength(0);
  });
});

describe('svc flows list, export and commit', () => {
  it('lists flows (table and --json), with the shared ones marked', async () => {
    const table = await svc('carol', ['flows', 'list']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+VERSION\s+DRAFT\s+SHARED\s+UPDATED/);
    const page = JSON.parse((await svc('carol', ['flows', 'list', '--json', '--q', 'shared-one'])).stdout) as {
      items: { name: string; read_only: boolean }[];
    };
    expect(page.items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'shared-one', read_only: true }),
        expect.objectContaining({ name: 'shared-one', read_only: false }),
      ]),
    );
  });

  it('exports a given version to a file, refusing to overwrite one without --clobber', async () => {
    const out = join(root, 'edge-v1.yaml');
    const written = await svc('carol', ['flows', 'export', 'edge', '--flow-version', '1', '-o', out]);
    expect(written.code, written.stderr).toBe(0);
    expect(await readFile(out, 'utf8')).toContain('version: 1');
    expect((await svc('carol', ['flows', 'export', 'edge', '-o', out])).code).toBe(1);
    expect((await svc('carol', ['flows', 'export', 'edge', '--flow-version', 'latest'])).code).toBe(2);
    expect((await svc('carol', ['flows', 'export', 'no-such-flow'])).code).toBe(3);
  });

  it('commits a draft: the version on stdout; an invalid draft is 422 (exit 1) and commits nothing; nothing new is 409', async () => {
    const [edge] = await flowsOf('edge');
    await w
      .knex()('flows')
      .where({ id: edge.id })
      .update({ draft_json: JSON.stringify(DEFINITION) });
    const committed = await svc('dave', ['flows', 'commit', 'edge', '-m', 'back to noop']);
    expect(committed.code, committed.stderr).toBe(0);
    expect(committed.stdout).toBe('2\n');
    const refused = await svc('dave', ['flows', 'commit', 'rules']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('code: validation_failed');
    expect(await flowsOf('rules')).toEqual([expect.objectContaining({ latest_version: 0 })]);
    const nothing = await svc('dave', ['flows', 'commit', 'edge']);
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain('code: nothing_to_commit');
  });
});

describe('svc flows versions, diff, revert and restore', () => {
  const SLEEP = { ...DEFINITION, steps: [{ id: 'wait', handler: 'general.sleep', config: { seconds: 1 } }] };
  const SLEEP_LONGER = { ...DEFINITION, steps: [{ id: 'wait', handler: 'general.sleep', config: { seconds: 5 } }] };
  let id: string;
  const draftOf = async () => (await w.knex()('flows').where({ id }).first()) as { draft_json: unknown; draft_dirty: boolean };

  beforeAll(async () => {
    id = await seedFlow(w.knex(), w.ids.acme!, { name: 'history', versions: [DEFINITION, SLEEP] });
    await w
      .knex()('flows')
      .where({ id })
      .update({ draft_json: JSON.stringify(SLEEP_LONGER), draft_dirty: true });
  });

  it('reads one flow: a record of its versions and draft (with the issues a commit would refuse), or --json', async () => {
    const record = await svc('carol', ['flows', 'get', 'history']);
    expect(record.code, record.stderr).toBe(0);
    const field = (name: string) => new RegExp(`^${name}:\\s+(.*)$`, 'm').exec(record.stdout)?.[1];
    expect([field('id'), field('version'), field('draft'), field('committable'), field('steps')]).toEqual([id, '2', 'edited', 'yes', '1']);
    const broken = await svc('carol', ['flows', 'get', 'rules']);
    expect(broken.stdout).toMatch(/^committable:\s+no \(\d+ issues\)$/m);
    expect(broken.stdout).toMatch(/^issue:\s+\S+: .+ \(\w+\)$/m);
    expect(JSON.parse((await svc('carol', ['flows', 'get', id, '--json'])).stdout)).toMatchObject({
      id,
      name: 'history',
      latest_version: 2,
    });
    expect((await svc('carol', ['flows', 'get', 'no-such-flow'])).code).toBe(3);
  });

  it('lists the committed versions, newest first (table and --json)', async () => {
    const table = await svc('carol', ['flows', 'versions', 'history']);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^VERSION\s+COMMITTED\s+BY\s+MESSAGE/);
    expect(lines.slice(1).map((line) => line.split(/\s+/)[0])).toEqual(['2', '1']);
    const page = JSON.parse((await svc('carol', ['flows', 'versions', 'history', '--json'])).stdout) as { items: { version: number }[] };
    expect(page.items.map((v) => v.version)).toEqual([2, 1]);
  });

  it('prints what changed: the draft against the newest version by default, or between the revisions named', async () => {
    const draft = await svc('carol', ['flows', 'diff', 'history']);
    expect(draft.code, draft.stderr).toBe(0);
    expect(draft.stdout).toBe('~ step wait: config (seconds)\n');
    const between = await svc('carol', ['flows', 'diff', 'history', '--from', '1', '--to', '2']);
    expect(between.stdout.split('\n').filter(Boolean).sort()).toEqual(['+ step wait (general.sleep)', '- step noop (general.noop)']);
    const same = await svc('carol', ['flows', 'diff', 'history', '--from', '2', '--to', '2', '--json']);
    expect(JSON.parse(same.stdout)).toMatchObject({ from: 2, to: 2, identical: true });
    expect((await svc('carol', ['flows', 'diff', 'history', '--from', '2', '--to', '2'])).stdout).toBe('');
    expect((await svc('carol', ['flows', 'diff', 'history', '--from', 'newest'])).code).toBe(2);
  });

  it('with --exit-code exits 1 when the revisions differ and 0 when they do not, printing the same', async () => {
    const differs = await svc('carol', ['flows', 'diff', 'history', '--exit-code']);
    expect(differs.code).toBe(1);
    expect(differs.stdout).toBe('~ step wait: config (seconds)\n');
    const differsJson = await svc('carol', ['flows', 'diff', 'history', '--exit-code', '--json']);
    expect(differsJson.code).toBe(1);
    expect(JSON.parse(differsJson.stdout)).toMatchObject({ identical: false });
    const same = await svc('carol', ['flows', 'diff', 'history', '--from', '2', '--to', '2', '--exit-code']);
    expect(same.code).toBe(0);
  });

  it('reverts the draft to the newest version and restores an older one; a viewer is refused, an unknown version is 404', async () => {
    const viewer = await svc('carol', ['flows', 'revert', 'history']);
    expect(viewer.code).toBe(5);
    expect((await draftOf()).draft_json).toEqual(SLEEP_LONGER);

    const reverted = await svc('dave', ['flows', 'revert', 'history']);
    expect(reverted.code, reverted.stderr).toBe(0);
    expect(reverted.stdout).toBe(`${id}\n`);
    expect(await draftOf()).toMatchObject({ draft_json: SLEEP, draft_dirty: false });

    const restored = await svc('dave', ['flows', 'restore', 'history', '1', '--json']);
    expect(restored.code, restored.stderr).toBe(0);
    expect(JSON.parse(restored.stdout)).toMatchObject({ id, latest_version: 2, draft_dirty: true });
    expect((await draftOf()).draft_json).toEqual(DEFINITION);
    expect((await svc('dave', ['flows', 'restore', 'history', '9'])).code).toBe(3);
    expect((await svc('dave', ['flows', 'restore', 'history', 'one'])).code).toBe(2);
    expect((await draftOf()).draft_json).toEqual(DEFINITION);
  });

  it('deletes a flow (soft): --yes, --json; a viewer is refused and nothing is deleted', async () => {
    const doomed = await seedFlow(w.knex(), w.ids.acme!, { name: 'doomed', versions: [DEFINITION] });
    expect((await svc('carol', ['flows', 'delete', 'doomed', '--yes'])).code).toBe(5);
    expect((await w.knex()('flows').where({ id: doomed }).first()).deleted_at).toBeNull();
    const deleted = await svc('dave', ['flows', 'delete', 'doomed', '--yes', '--json']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(JSON.parse(deleted.stdout)).toEqual({ id: doomed, deleted: true });
    expect((await w.knex()('flows').where({ id: doomed }).first()).deleted_at).not.toBeNull();
    expect((await svc('dave', ['flows', 'get', 'doomed'])).code).toBe(3);
  });
});
