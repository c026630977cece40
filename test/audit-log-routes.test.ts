import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { seedOrg } from './helpers/seed.js';

interface Seeded {
  id: string;
  org_id: string | null;
  ts: string;
  event_type: string;
  actor_sub: string | null;
  actor_username: string | null;
  resource_type: string | null;
  resource_id: string | null;
  action: string | null;
  outcome: string | null;
  details_json: Record<string, unknown>;
  client_ip: string | null;
  user_agent: string | null;
}
interface Entry extends Omit<Seeded, 'details_json'> {
  details: Record<string, unknown>;
}
interface Page {
  items: Entry[];
  next_cursor: string | null;
}
interface Tally {
  value: string | null;
  count: number;
}

const DAY = 86_400_000;
const HOUR = 3_600_000;
const EVENTS = ['flow.created', 'flow.deleted', 'run.started', 'authz.denied'];
const ACTORS: [string | null, string | null][] = [
  ['sub-alice', 'alice'],
  ['sub-bob', 'bob'],
  [null, null],
];
// Resources are named by the ids the database answers with (lower-case UUIDs) or by other text.
const RUN_ID = randomUUID();
const RESOURCES: [string | null, string | null][] = [
  ['flow', 'f-1'],
  ['flow', 'f-2'],
  ['run', RUN_ID],
  ['device', 'core/sw 1'],
  [null, null],
];
const OUTCOMES = ['success', 'failure', 'denied', null];

let daemon: TestDaemon;
let seeded: Seeded[];
let recent: Seeded[];
let old: Seeded[];
const now = Date.now();

/** Microsecond ISO strings: rows share a millisecond (and some the exact instant) to test the keyset's tie-breaks. */
function at(ms: number, micros: string): string {
  return new Date(ms).toISOString().replace('Z', `${micros}Z`);
}

function newestFirst(a: Seeded, b: Seeded): number {
  return a.ts === b.ts ? (a.id < b.id ? 1 : -1) : a.ts < b.ts ? 1 : -1;
}

beforeAll(async () => {
  // No auto-join: the dev user's first request would add an audit entry these counts do not expect.
  daemon = await startTestDaemon({ SERVICE_AUTH_DISABLED: 'true', SERVICE_ORG_AUTO_JOIN: 'false' });
  const knex = daemon.services.db.knex;
  const defaultOrg = ((await knex('organizations').where({ slug: 'default' }).first('id')) as { id: string }).id;
  const orgs = [defaultOrg, await seedOrg(knex, 'acme'), null];
  seeded = Array.from({ length: 75 }, (_, i) => {
    const [actor_sub, actor_username] = ACTORS[i % 3]!;
    const [resource_type, resource_id] = RESOURCES[i % 5]!;
    const ts = i < 63 ? at(now - DAY - Math.floor(i / 3) * HOUR, i % 3 === 2 ? '500' : '000') : at(now - (200 + i) * DAY, '000');
    return {
      id: randomUUID(),
      org_id: orgs[i % 3]!,
      ts,
      event_type: i < 63 ? EVENTS[i % 4]! : 'legacy.event',
      actor_sub,
      actor_username,
      resource_type,
      resource_id,
      action: `action:${i % 2}`,
      outcome: OUTCOMES[i % 4]!,
      details_json: { n: i, nested: { ok: true } },
      client_ip: '192.0.2.7',
      user_agent: 'seed/1.0',
    };
  });
  await knex('audit_logs').insert(seeded.map((row) => ({ ...row, details_json: JSON.stringify(row.details_json) })));
  seeded.sort(newestFirst);
  recent = seeded.filter((r) => r.event_type !== 'legacy.event');
  old = seeded.filter((r) => r.event_type === 'legacy.event');
});
afterAll(() => daemon?.close());

async function get(path: string, query: Record<string, string | string[]> = {}): Promise<Response> {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) for (const v of [value].flat()) params.append(key, v);
  const search = params.size ? `?${params}` : '';
  return fetch(`${daemon.url}${path}${search}`);
}

async function json<T>(response: Response, status = 200): Promise<T> {
  expect(response.status).toBe(status);
  return (await response.json()) as T;
}

/** Every page of a listing, following `next_cursor` to the end. */
async function walk(path: string, query: Record<string, string | string[]> = {}): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page: Page = await json<Page>(await get(path, cursor ? { ...query, cursor } : query));
    ids.push(...page.items.map((e) => e.id));
    cursor = page.next_cursor;
    pages += 1;
  } while (cursor && pages < 100);
  return { ids, pages };
}

const idsOf = (rows: Seeded[]) => rows.map((r) => r.id);
const tally = (rows: Seeded[], key: keyof Seeded, withNull: boolean): Tally[] => {
  const counts = new Map<string | null, number>();
  for (const row of rows) counts.set(row[key] as string | null, (counts.get(row[key] as string | null) ?? 0) + 1);
  return [...counts]
    .filter(([value]) => withNull || value !== null)
    .map(([value, count]) => ({ value, count }))
    .sort((a, b) => (a.value === null ? 1 : b.value === null ? -1 : a.value < b.value ? -1 : 1));
};

describe('GET /audit-logs', () => {
  it('lists entries newest first, in the documented shape', async () => {
    const page = await json<Page>(await get('/audit-logs', { limit: '500' }));
    expect(page.items.map((e) => e.id)).toEqual(idsOf(seeded));
    expect(page.next_cursor).toBeNull();
    const row = seeded[0]!;
    const { details_json, ...columns } = row;
    expect(page.items[0]).toEqual({ ...columns, ts: new Date(row.ts).toISOString(), details: details_json });
  });

  it('answers 50 entries by default, with a cursor to the rest', async () => {
    const page = await json<Page>(await get('/audit-logs'));
    expect(page.items).toHaveLength(50);
    expect(page.next_cursor).toEqual(expect.any(String));
  });

  it.each([1, 4, 7, 75])('walks every entry exactly once, in order, %i at a time', async (limit) => {
    const { ids, pages } = await walk('/audit-logs', { limit: String(limit) });
    expect(ids).toEqual(idsOf(seeded));
    expect(new Set(ids).size).toBe(seeded.length);
    expect(pages).toBe(Math.ceil(seeded.length / limit));
  });

  it.each<[string, Record<string, string | string[]>, (row: Seeded) => boolean]>([
    ['one event type', { event_type: 'flow.created' }, (r) => r.event_type === 'flow.created'],
    [
      'repeated event types',
      { event_type: ['flow.created', 'run.started'] },
      (r) => ['flow.created', 'run.started'].includes(r.event_type),
    ],
    [
      'a comma list of event types',
      { event_type: 'flow.deleted, legacy.event' },
      (r) => ['flow.deleted', 'legacy.event'].includes(r.event_type),
    ],
    ['an actor by subject', { actor: 'sub-alice' }, (r) => r.actor_sub === 'sub-alice'],
    ['an actor by username', { actor: 'bob' }, (r) => r.actor_username === 'bob'],
    ['a resource type', { resource_type: 'flow' }, (r) => r.resource_type === 'flow'],
    ['a resource', { resource_type: 'flow', resource_id: 'f-2' }, (r) => r.resource_type === 'flow' && r.resource_id === 'f-2'],
    ['a resource by its UUID in capitals', { resource_id: RUN_ID.toUpperCase() }, (r) => r.resource_id === RUN_ID],
    ['an outcome', { outcome: 'denied' }, (r) => r.outcome === 'denied'],
    ['since', { since: new Date(now - 2 * DAY - HOUR / 2).toISOString() }, (r) => Date.parse(r.ts) >= now - 2 * DAY - HOUR / 2],
    ['until', { until: new Date(now - 2 * DAY - HOUR / 2).toISOString() }, (r) => Date.parse(r.ts) < now - 2 * DAY - HOUR / 2],
    ['a date-only until', { until: new Date(now - 100 * DAY).toISOString().slice(0, 10) }, (r) => r.event_type === 'legacy.event'],
    [
      'several filters at once',
      { actor: 'alice', outcome: 'success', since: new Date(now - 30 * DAY).toISOString() },
      (r) => r.actor_username === 'alice' && r.outcome === 'success' && Date.parse(r.ts) >= now - 30 * DAY,
    ],
  ])('narrows by %s', async (_, query, keep) => {
    const expected = idsOf(seeded.filter(keep));
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(seeded.length);
    expect((await walk('/audit-logs', { ...query, limit: '4' })).ids).toEqual(expected);
  });

  it('narrows by organization', async () => {
    const orgId = seeded.find((r) => r.org_id)!.org_id!;
    const page = await json<Page>(await get('/audit-logs', { org_id: orgId, limit: '500' }));
    expect(page.items.map((e) => e.id)).toEqual(idsOf(seeded.filter((r) => r.org_id === orgId)));
  });

  it('accepts a time with an offset', async () => {
    const since = new Date(now - 2 * DAY - HOUR / 2);
    const shifted = new Date(since.getTime() + 2 * HOUR).toISOString().replace('Z', '+02:00');
    const page = await json<Page>(await get('/audit-logs', { since: shifted, limit: '500' }));
    expect(page.items.map((e) => e.id)).toEqual(idsOf(seeded.filter((r) => Date.parse(r.ts) >= since.getTime())));
  });

  const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  it.each<[string, Record<string, string | string[]>]>([
    ['an unknown parameter', { foo: '1' }],
    ['free text (not offered)', { q: 'flow' }],
    ['a date that is not one', { since: 'yesterday' }],
    ['an impossible date', { since: '2026-13-01' }],
    ['a time without offset', { until: '2026-01-01T00:00:00' }],
    ['until before since', { since: '2026-02-01T00:00:00Z', until: '2026-01-01T00:00:00Z' }],
    ['limit 0', { limit: '0' }],
    ['limit 501', { limit: '501' }],
    ['a limit that is no number', { limit: 'ten' }],
    ['a fractional limit', { limit: '2.5' }],
    ['limit twice', { limit: ['1', '2'] }],
    ['actor twice', { actor: ['alice', 'bob'] }],
    ['an empty event type', { event_type: '' }],
    ['an organization that is no UUID', { org_id: 'acme' }],
    ['a cursor that is garbage', { cursor: 'not-a-cursor' }],
    ['a forged cursor', { cursor: forged(["2026-01-01'; drop table audit_logs; --", randomUUID()]) }],
    ['a cursor with a bad id', { cursor: forged(['2026-01-01T00:00:00.000000Z', 'x']) }],
  ])('refuses %s with 422 validation_failed', async (_, query) => {
    const body = await json<{ code: string }>(await get('/audit-logs', query), 422);
    expect(body.code).toBe('validation_failed');
  });
});

describe('GET /audit-logs/{audit_id}', () => {
  it('answers one entry', async () => {
    const row = seeded[10]!;
    const entry = await json<Entry>(await get(`/audit-logs/${row.id}`));
    expect(entry).toMatchObject({
      id: row.id,
      event_type: row.event_type,
      org_id: row.org_id,
      details: row.details_json,
      ts: new Date(row.ts).toISOString(),
    });
  });

  it.each([randomUUID(), 'not-a-uuid'])('answers 404 resource_not_found for %s', async (id) => {
    expect((await json<{ code: string }>(await get(`/audit-logs/${id}`), 404)).code).toBe('resource_not_found');
  });
});

describe('GET /audit-logs/resource/{resource_type}/{resource_id}', () => {
  it('lists the entries of one resource, paginated', async () => {
    const expected = idsOf(seeded.filter((r) => r.resource_type === 'flow' && r.resource_id === 'f-1'));
    const { ids, pages } = await walk('/audit-logs/resource/flow/f-1', { limit: '4' });
    expect(ids).toEqual(expected);
    expect(pages).toBe(Math.ceil(expected.length / 4));
  });

  it('takes an identifier with a slash and a space, percent-encoded', async () => {
    const page = await json<Page>(await get(`/audit-logs/resource/device/${encodeURIComponent('core/sw 1')}`, { limit: '500' }));
    expect(page.items.map((e) => e.id)).toEqual(idsOf(seeded.filter((r) => r.resource_id === 'core/sw 1')));
  });

  it('narrows further by the list filters', async () => {
    const page = await json<Page>(await get(`/audit-logs/resource/run/${RUN_ID}`, { event_type: 'run.started', limit: '500' }));
    expect(page.items.map((e) => e.id)).toEqual(idsOf(seeded.filter((r) => r.resource_id === RUN_ID && r.event_type === 'run.started')));
  });

  it('answers an empty page for a resource with no entries', async () => {
    expect(await json<Page>(await get('/audit-logs/resource/flow/none'))).toEqual({ items: [], next_cursor: null });
  });

  it('refuses a resource filter in the query (the path names it)', async () => {
    expect((await json<{ code: string }>(await get('/audit-logs/resource/flow/f-1', { resource_id: 'f-2' }), 422)).code).toBe(
      'validation_failed',
    );
  });
});

describe('GET /audit-logs/filter-options and /audit-logs/stats', () => {
  it('give the distinct values with their counts', async () => {
    const options = await json<Record<string, Tally[]>>(await get('/audit-logs/filter-options'));
    expect(options).toEqual({
      event_types: tally(seeded, 'event_type', false),
      outcomes: tally(seeded, 'outcome', false),
      resource_types: tally(seeded, 'resource_type', false),
    });
  });

  it('count in total, per event type and per outcome', async () => {
    const stats = await json<Record<string, unknown>>(await get('/audit-logs/stats'));
    expect(stats).toEqual({
      since: null,
      until: null,
      total: seeded.length,
      oldest: new Date(seeded.at(-1)!.ts).toISOString(),
      newest: new Date(seeded[0]!.ts).toISOString(),
      by_event_type: tally(seeded, 'event_type', true),
      by_outcome: tally(seeded, 'outcome', true),
    });
  });

  it('count within since and until', async () => {
    const since = new Date(now - 10 * DAY);
    const until = new Date(now - DAY - 5 * HOUR - HOUR / 2);
    const inRange = seeded.filter((r) => Date.parse(r.ts) >= since.getTime() && Date.parse(r.ts) < until.getTime());
    const stats = await json<Record<string, unknown>>(
      await get('/audit-logs/stats', { since: since.toISOString(), until: until.toISOString() }),
    );
    expect(stats).toMatchObject({
      since: since.toISOString(),
      until: until.toISOString(),
      total: inRange.length,
      by_event_type: tally(inRange, 'event_type', true),
      by_outcome: tally(inRange, 'outcome', true),
    });
  });

  it.each([
    ['/audit-logs/stats', { limit: '5' }],
    ['/audit-logs/stats', { since: 'soon' }],
    ['/audit-logs/filter-options', { event_type: 'x' }],
  ])('refuse a bad query on %s with 422', async (path, query) => {
    expect((await json<{ code: string }>(await get(path, query), 422)).code).toBe('validation_failed');
  });
});

describe('POST /audit-logs/cleanup', () => {
  const cleanup = (body?: string, type = 'application/json') =>
    fetch(`${daemon.url}/audit-logs/cleanup`, {
      method: 'POST',
      headers: body === undefined ? {} : { 'content-type': type },
      ...(body === undefined ? {} : { body }),
    });
  const count = async () => Number(((await daemon.services.db.knex('audit_logs').count('* as n').first()) as { n: string | number }).n);

  it.each<[string, string | undefined]>([
    ['no body', undefined],
    ['an empty object', '{}'],
    ['zero days', '{"older_than_days":0}'],
    ['more than ten years', '{"older_than_days":3651}'],
    ['a fraction of a day', '{"older_than_days":1.5}'],
    ['days as a string', '{"older_than_days":"30"}'],
    ['an unknown field', '{"older_than_days":30,"dry_run":true}'],
    ['an array', '[30]'],
  ])('refuses %s with 422 and deletes nothing', async (_, body) => {
    const before = await count();
    expect((await json<{ code: string }>(await cleanup(body), 422)).code).toBe('validation_failed');
    expect(await count()).toBe(before);
  });

  it('deletes exactly the entries older than the cutoff and records its own entry', async () => {
    const started = Date.now();
    const result = await json<{ deleted: number; before: string }>(await cleanup('{"older_than_days":180}'));
    expect(result.deleted).toBe(old.length);
    expect(Date.parse(result.before)).toBeGreaterThanOrEqual(started - 180 * DAY);
    expect(Date.parse(result.before)).toBeLessThanOrEqual(Date.now() - 180 * DAY);

    const knex = daemon.services.db.knex;
    const left = (await knex('audit_logs').whereNot({ event_type: 'audit_log.cleanup' }).pluck('id')) as string[];
    expect(left.sort()).toEqual(idsOf(recent).sort());

    const own = await knex('audit_logs').where({ event_type: 'audit_log.cleanup' });
    expect(own).toHaveLength(1);
    expect(own[0]).toMatchObject({ action: 'audit_log:cleanup', outcome: 'success', actor_sub: 'dev-user', org_id: null });
    expect(own[0].details_json).toMatchObject({
      deleted: old.length,
      before: result.before,
      older_than_days: 180,
      route: 'POST /audit-logs/cleanup',
    });

    const listed = await json<Page>(await get('/audit-logs', { event_type: 'audit_log.cleanup' }));
    expect(listed.items.map((e) => e.id)).toEqual([own[0].id]);
  });

  it('deletes nothing more when nothing is that old, and keeps its earlier entry', async () => {
    expect((await json<{ deleted: number }>(await cleanup('{"older_than_days":3650}'))).deleted).toBe(0);
    const own = await daemon.services.db.knex('audit_logs').where({ event_type: 'audit_log.cleanup' });
    expect(own).toHaveLength(2);
    expect((await walk('/audit-logs', { limit: '9' })).ids).toHaveLength(recent.length + 2);
  });
});
