import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/daemon/db/database.js';
import * as retiredSlugs from '../migrations/20261129090000_create_retired_org_slugs.js';
import { freshDatabase } from './helpers/database.js';

let db: Database;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ db, close } = await freshDatabase());
});
afterAll(() => close?.());

describe('migration create_retired_org_slugs', () => {
  it('retires the slugs of organizations the audit log says were deleted before it, the latest deletion kept', async () => {
    const knex = db.knex;
    const [first, second, other] = [randomUUID(), randomUUID(), randomUUID()];
    const deleted = (ts: string, details: Record<string, unknown>) => ({
      event_type: 'org.deleted',
      action: 'org:manage',
      resource_type: 'organization',
      resource_id: String(details.org_id),
      outcome: 'success',
      ts,
      details_json: JSON.stringify(details),
    });
    await knex('audit_logs').insert([
      deleted('2026-01-01T00:00:00Z', { org_id: first, slug: 'gone' }),
      deleted('2026-02-01T00:00:00Z', { org_id: second, slug: 'gone' }),
      deleted('2026-03-01T00:00:00Z', { org_id: other, slug: 'left' }),
      deleted('2026-03-02T00:00:00Z', { org_id: 'not-a-uuid', slug: 'odd' }),
      { ...deleted('2026-03-03T00:00:00Z', { org_id: randomUUID(), slug: 'kept' }), event_type: 'org.updated' },
    ]);
    await retiredSlugs.down(knex);
    await retiredSlugs.up(knex);
    const rows = await knex('retired_org_slugs').orderBy('slug').select('slug', 'org_id');
    expect(rows).toEqual([
      { slug: 'gone', org_id: second },
      { slug: 'left', org_id: other },
    ]);
  });
});
