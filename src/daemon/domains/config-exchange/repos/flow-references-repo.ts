import type { Knex } from 'knex';

/**
 * Which flows a reference by name may reach: the organization's own, or (as the webhooks and flow
 * subscriptions APIs allow) the shared organization's when the organization has none of that name.
 */
export type FlowReach = 'own' | 'own_or_shared';

/** Live flows by name, for the families whose items name a flow; on the handle it is given. */
export class FlowReferencesRepo {
  async flowId(db: Knex, orgId: string, name: string, reach: FlowReach): Promise<string | undefined> {
    const query = db('flows as f').where('f.name', name).whereNull('f.deleted_at');
    if (reach === 'own') query.where('f.org_id', orgId);
    else
      query
        .join('organizations as o', 'o.id', 'f.org_id')
        .where((q) => q.where('f.org_id', orgId).orWhere('o.is_shared', true))
        .orderByRaw('CASE WHEN f.org_id = ? THEN 0 ELSE 1 END', [orgId]);
    return ((await query.first('f.id')) as { id: string } | undefined)?.id;
  }
}
