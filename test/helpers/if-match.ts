import { expect } from 'vitest';
import { call, count, type World } from './webhooks-fixtures.js';

/** A resource of acme whose GET answers an `ETag` and whose PATCH takes `If-Match`: `/{collection}/{id}`, rows in `table`. */
export interface IfMatchSubject {
  readonly collection: string;
  readonly table: string;
  readonly id: string;
  /** Who reads it and who changes it (keys of `world.as`). */
  readonly reader: string;
  readonly writer: string;
  /** Four different changes: sent with the current tag, with a stale one (refused), with `*`, with no header. */
  readonly changes: readonly [object, object, object, object];
}

/**
 * The contract of sites, devices and flows (docs/decisions.md): the GET's tag lets one PATCH through and
 * the PATCH answers the next tag, a GET's; the old tag is then 412 `precondition_failed` naming the current
 * one, nothing written; `*` and no header pass.
 */
export async function expectIfMatchHonoured(world: World, subject: IfMatchSubject): Promise<void> {
  const path = `/${subject.collection}/${subject.id}`;
  const read = () => call(world, subject.reader, 'GET', path);
  const patch = (body: object, tag?: string | null) => call(world, subject.writer, 'PATCH', path, body, 'acme', ifMatch(tag));
  // What the database holds of it: a refused PATCH must leave its row and its audit trail as they were.
  const stored = async () => ({
    row: await world.knex()(subject.table).where({ id: subject.id }).first(),
    updates: await count(world.knex()('audit_logs').where({ event_type: 'entity.updated', resource_id: subject.id })),
  });
  const [fresh, late, any, bare] = subject.changes;
  const etag = (await read()).headers.get('etag')!;
  expect(etag).toMatch(/^"[\w-]+"$/);

  const first = await patch(fresh, etag);
  expect(first.status).toBe(200);
  const next = first.headers.get('etag');
  expect(next).not.toBe(etag);
  expect((await read()).headers.get('etag')).toBe(next);

  const before = await stored();
  const stale = await patch(late, etag);
  expect(stale.status).toBe(412);
  expect(stale.body).toMatchObject({ code: 'precondition_failed', etag: next });
  expect(await stored()).toEqual(before);

  expect((await patch(any, '*')).status).toBe(200);
  const unconditional = await patch(bare);
  expect(unconditional.status).toBe(200);
  expect(unconditional.headers.get('etag')).toBe((await read()).headers.get('etag'));
  expect(await stored()).not.toEqual(before);
}

/** The headers of a request sending `If-Match: tag`, none when `tag` is undefined. */
export function ifMatch(tag: string | null | undefined): Record<string, string> {
  return tag === undefined || tag === null ? {} : { 'if-match': tag };
}
