import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepository, startFilesWorld, uploadStream, type FilesWorld } from './helpers/files-fixtures.js';
import { BARE, call, seedFlow } from './helpers/webhooks-fixtures.js';

/** A definition whose one step names `config`'s files. */
const naming = (config: Record<string, unknown>) => ({ ...BARE, steps: [{ id: 'stage', handler: 'general.noop', config }] });

/**
 * The usage a list of files carries (binary artifacts here) is asked for all the page's files together:
 * each kind of user is one statement whatever the page's size, and each file still gets its own users.
 */
describe('file usage for a page of files', () => {
  let world: FilesWorld;
  const ids = {} as Record<'a' | 'b' | 'c' | 'idle', string>;
  const flows = {} as Record<'both' | 'onlyB' | 'draftC', string>;
  const runs = {} as Record<'both' | 'onlyB', string>;

  beforeAll(async () => {
    world = await startFilesWorld();
    const repo = await createRepository(world, { kind: 'local', name: 'images' });
    for (const name of ['a', 'b', 'c', 'idle'] as const) {
      const answer = await uploadStream(world, repo, { name: `${name}.bin` }, randomBytes(1000));
      expect(answer.status).toBe(201);
      ids[name] = answer.body.id;
    }
    const acme = world.ids.acme!;
    flows.both = await seedFlow(world.knex(), acme, { name: 'stage-both', versions: [naming({ file_ids: [ids.a, ids.b] })] });
    flows.onlyB = await seedFlow(world.knex(), acme, { name: 'stage-b', versions: [BARE, naming({ image: { file_id: ids.b } })] });
    flows.draftC = await seedFlow(world.knex(), acme, { name: 'draft-c' });
    await world
      .knex()('flows')
      .where({ id: flows.draftC })
      .update({ draft_json: JSON.stringify(naming({ file_id: ids.c })) });
    for (const flow of ['both', 'onlyB'] as const) {
      const run = await call(world, 'alice', 'POST', '/runs', { flow_id: flows[flow] });
      expect(run.status).toBe(201);
      runs[flow] = run.body.id;
    }
  }, 120_000);
  afterAll(async () => {
    await world?.close();
  });

  it('gives each file its own flows (by name), versions, drafts and unfinished runs, in one statement per kind of user', async () => {
    const statements: string[] = [];
    const record = (query: { sql: string }) => void statements.push(query.sql);
    world.knex().on('query', record);
    const listed = await call(world, 'alice', 'GET', '/binary-artifacts');
    world.knex().off('query', record);
    expect(listed.status).toBe(200);
    const usage = new Map(listed.body.items.map((item: { id: string; usage: unknown }) => [item.id, item.usage]));
    expect(usage.get(ids.a)).toEqual({
      in_use: true,
      flows: [{ flow_id: flows.both, name: 'stage-both', versions: [1], draft: true }],
      runs: [expect.objectContaining({ run_id: runs.both, flow_version: 1 })],
      inventory_providers: [],
    });
    expect(usage.get(ids.b)).toMatchObject({
      in_use: true,
      flows: [
        { flow_id: flows.onlyB, versions: [2], draft: true },
        { flow_id: flows.both, versions: [1], draft: true },
      ],
    });
    expect((usage.get(ids.b) as { runs: { run_id: string }[] }).runs.map((r) => r.run_id).sort()).toEqual([runs.both, runs.onlyB].sort());
    expect(usage.get(ids.c)).toEqual({
      in_use: true,
      flows: [{ flow_id: flows.draftC, name: 'draft-c', versions: [], draft: true }],
      runs: [],
      inventory_providers: [],
    });
    expect(usage.get(ids.idle)).toEqual({ in_use: false, flows: [], runs: [], inventory_providers: [] });
    const count = (marker: string) => statements.filter((sql) => sql.includes(marker)).length;
    expect([count('regexp_matches'), count('jsonb_to_recordset'), count('document_file_id')]).toEqual([1, 1, 1]);
  });

  it('answers one file’s usage as the list does', async () => {
    const one = await call(world, 'alice', 'GET', `/files/${ids.b}/usage`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ file_id: ids.b, in_use: true, flows: [{ flow_id: flows.onlyB }, { flow_id: flows.both }] });
  });
});
