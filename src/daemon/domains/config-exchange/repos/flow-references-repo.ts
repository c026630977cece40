import type { Knex } from 'knex';

/**
 * Live flows by name, for the families whose items name a flow (webhooks, schedules, flow subscriptions),
 * on the handle it is given: the organization's own, else the shared organization's of that name, as the
 * webhooks, schedules and subscriptions APIs each allow a flow of either.
 */
export class FlowReferencesRepo {
  async flowId(db: Knex, orgId: string, name: string): Promise<string | undefined> {
    const found = await db('flows as f')
      .join('organizations as o', 'o.id', 'f.org_id')
      .where('f.name', name)
      .whereNull('f.deleted_at')
      .where((q) => q.where('f.org_id', orgId).orWhere('o.is_shared', true))
      .orderByRaw('CASE WHEN f.org_id = ? THEN 0 ELSE 1 END', [orgId])
      .first('f.id');
    return (found as { id: string } | undefined)?.id;
  }
}
