import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BARE, call, seedDevice, seedFlow, startWorld, statementsDuring, type Answer, type World } from './helpers/webhooks-fixtures.js';

/**
 * The lists a browser app calls most answer a page and its total in one statement (the total a window
 * over the filtered rows); only a page past the end, which has no row to carry it, counts on its own.
 * Statements are counted on the listed table alone: the organization and the shared organization are
 * cached for seconds, and a test straddling their expiry would see a lookup that is not the list's.
 */
let w: World;

beforeAll(async () => {
  w = await startWorld();
  const db = w.knex();
  const flow = await seedFlow(db, w.ids.acme!, { name: 'listed', versions: [BARE] });
  for (let i = 0; i < 3; i += 1) expect((await call(w, 'dave', 'POST', '/runs', { flow_id: flow, name: `run ${i}` })).status).toBe(201);
  for (const name of ['a1', 'a2', 'a3']) await seedDevice(db, w.ids.acme!, name);
  await seedDevice(db, w.ids.commons!, 'shared-1');
});
afterAll(async () => {
  await w?.close();
});

/** The answer to `path` as carol (viewer of acme), and the statements it sent that read `table`. */
async function listed(path: string, table: string, who = 'carol', org = 'acme'): Promise<{ answer: Answer; reads: string[] }> {
  await call(w, who, 'GET', path, undefined, org); // membership and organizations cached
  let answer: Answer | undefined;
  const sent = await statementsDuring(w, async () => {
    answer = await call(w, who, 'GET', path, undefined, org);
  });
  return { answer: answer!, reads: sent.filter((sql) => new RegExp(`from "${table}"`, 'i').test(sql)) };
}

describe('GET /runs', () => {
  it('answers a page and the total in one statement', async () => {
    const { answer, reads } = await listed('/runs?limit=2', 'runs');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ total: 3, limit: 2, offset: 0 });
    expect(answer.body.items.map((r: { name: string }) => r.name)).toEqual(['run 2', 'run 1']);
    expect(reads).toHaveLength(1);
  });

  it('counts on its own only for a page past the end', async () => {
    const { answer, reads } = await listed('/runs?limit=2&offset=5', 'runs');
    expect(answer.body).toMatchObject({ items: [], total: 3, offset: 5 });
    expect(reads).toHaveLength(2);
  });

  it('an organization without runs is an empty first page with total 0, in one statement', async () => {
    const { answer, reads } = await listed('/runs', 'runs', 'bob', 'globex');
    expect(answer.body).toMatchObject({ items: [], total: 0 });
    expect(reads).toHaveLength(1);
  });
});

describe('GET /devices', () => {
  it('answers a page of own and shared devices and the total in one statement', async () => {
    const { answer, reads } = await listed('/devices?limit=2', 'devices');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ total: 4, limit: 2, offset: 0 });
    expect(answer.body.items.map((d: { name: string }) => d.name)).toEqual(['a1', 'a2']);
    expect(answer.body.items[0]).not.toHaveProperty('page_total');
    expect(reads).toHaveLength(1);
  });

  it('counts on its own only for a page past the end', async () => {
    const { answer, reads } = await listed('/devices?limit=2&offset=9', 'devices');
    expect(answer.body).toMatchObject({ items: [], total: 4, offset: 9 });
    expect(reads).toHaveLength(2);
  });
});
