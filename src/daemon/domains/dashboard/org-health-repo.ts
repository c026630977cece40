import type { Knex } from 'knex';

export interface OrgHealthRow {
  readonly id: string;
  readonly slug: string;
  readonly name: string;
  readonly is_shared: boolean;
  readonly members: number;
  readonly flows: number;
  readonly runs: number;
  readonly succeeded: number;
  readonly failed: number;
  readonly queued_now: number;
  readonly running_now: number;
  readonly last_activity_at: Date | string | null;
  readonly page_total: number;
}

/**
 * `GET /dashboard/org-health`: a page of organizations (by slug) first, then each one's figures, so only
 * the page's organizations are counted; each count an indexed read of that organization (the window by
 * `runs_org_created_stats`, the queue by `runs_org_active`, the latest run and audit entry from the top of
 * `runs_org_created` and `(org_id, ts)`).
 */
export class OrgHealthRepo {
  constructor(private readonly knex: Knex) {}

  async page(filter: {
    from: Date;
    q?: string | undefined;
    limit: number;
    offset: number;
  }): Promise<{ rows: OrgHealthRow[]; total: number }> {
    const like = filter.q ? `%${filter.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
    const result = await this.knex.raw<{ rows: OrgHealthRow[] }>(
      `WITH page AS (
         SELECT id, slug, name, is_shared, count(*) OVER ()::integer AS page_total FROM organizations
          WHERE ?::text IS NULL OR slug ILIKE ? OR name ILIKE ?
          ORDER BY slug LIMIT ? OFFSET ?)
       SELECT p.*,
         (SELECT count(*) FROM org_memberships m WHERE m.org_id = p.id)::integer AS members,
         (SELECT count(*) FROM flows f WHERE f.org_id = p.id AND f.deleted_at IS NULL)::integer AS flows,
         w.runs, w.succeeded, w.failed,
         (SELECT count(*) FROM runs r WHERE r.org_id = p.id AND r.status = 'queued' AND r.deleted_at IS NULL)::integer AS queued_now,
         (SELECT count(*) FROM runs r WHERE r.org_id = p.id AND r.status = 'running' AND r.deleted_at IS NULL)::integer AS running_now,
         GREATEST(
           (SELECT r.created_at FROM runs r WHERE r.org_id = p.id ORDER BY r.created_at DESC LIMIT 1),
           (SELECT a.ts FROM audit_logs a WHERE a.org_id = p.id ORDER BY a.ts DESC LIMIT 1)) AS last_activity_at
       FROM page p
       CROSS JOIN LATERAL (
         SELECT count(*)::integer AS runs,
                (count(*) FILTER (WHERE r.status = 'succeeded'))::integer AS succeeded,
                (count(*) FILTER (WHERE r.status = 'failed'))::integer AS failed
           FROM runs r WHERE r.org_id = p.id AND r.created_at >= ? AND r.deleted_at IS NULL) w
       ORDER BY p.slug`,
      [like, like, like, filter.limit, filter.offset, filter.from],
    );
    const rows = result.rows;
    if (rows.length > 0) return { rows, total: Number(rows[0]!.page_total) };
    if (filter.offset === 0) return { rows, total: 0 };
    const counted = await this.knex.raw<{ rows: { n: number }[] }>(
      'SELECT count(*)::integer AS n FROM organizations WHERE ?::text IS NULL OR slug ILIKE ? OR name ILIKE ?',
      [like, like, like],
    );
    return { rows, total: counted.rows[0]?.n ?? 0 };
  }
}
