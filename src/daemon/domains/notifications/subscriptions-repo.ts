import type { Knex } from 'knex';
import type { DestinationKind, NotificationEvent } from '../../../shared/api/notifications.js';
import { TransactionalRepo } from '../../db/transactional-repo.js';

export interface SubscriptionRow {
  readonly id: string;
  readonly org_id: string;
  readonly flow_id: string;
  readonly destination_id: string;
  readonly destination_name: string;
  readonly destination_kind: DestinationKind;
  readonly events: NotificationEvent[];
  readonly enabled: boolean;
  readonly created_at: Date;
  readonly updated_at: Date;
  readonly created_by: string | null;
  readonly updated_by: string | null;
}

export interface EffectiveSubscription {
  readonly destination_id: string;
  readonly kind: DestinationKind;
  readonly events: NotificationEvent[];
  readonly source: 'subscription' | 'default';
}

const COLUMNS = [
  's.id',
  's.org_id',
  's.flow_id',
  's.destination_id',
  's.events',
  's.enabled',
  's.created_at',
  's.updated_at',
  's.created_by',
  's.updated_by',
];

/** `flow_notification_subscriptions`, with their destination's name and kind. */
export class SubscriptionsRepo extends TransactionalRepo {
  private joined(db: Knex | Knex.Transaction = this.knex): Knex.QueryBuilder {
    return db('flow_notification_subscriptions as s')
      .join('notification_destinations as d', 'd.id', 's.destination_id')
      .select([...COLUMNS, 'd.name as destination_name', 'd.kind as destination_kind']);
  }

  /** The flow's id when it is live in one of `orgIds` (the active organization and the shared one). */
  async readableFlow(orgIds: readonly string[], flowId: string): Promise<{ id: string; org_id: string } | undefined> {
    return this.knex('flows').whereIn('org_id', orgIds).where({ id: flowId }).whereNull('deleted_at').first('id', 'org_id');
  }

  /** The organization of a flow (live or soft-deleted), by id alone. */
  async flowOrg(flowId: string): Promise<string | undefined> {
    const row = await this.knex('flows').where({ id: flowId }).first('org_id');
    return (row as { org_id: string } | undefined)?.org_id;
  }

  /** The organization's subscriptions of the flow to its live destinations, by destination name. */
  async listOfFlow(orgId: string, flowId: string): Promise<SubscriptionRow[]> {
    return this.joined()
      .where({ 's.org_id': orgId, 's.flow_id': flowId })
      .whereNull('d.deleted_at')
      .orderBy([{ column: 'd.name' }, { column: 's.id' }]);
  }

  async find(orgId: string, flowId: string, id: string, db: Knex | Knex.Transaction = this.knex): Promise<SubscriptionRow | undefined> {
    return this.joined(db).where({ 's.org_id': orgId, 's.flow_id': flowId, 's.id': id }).first();
  }

  /** The organization's live destination of this id, locked against deletion while a subscription to it is written. */
  async lockDestination(trx: Knex.Transaction, orgId: string, id: string): Promise<boolean> {
    const row = await trx('notification_destinations').where({ org_id: orgId, id }).whereNull('deleted_at').forShare().first('id');
    return row !== undefined;
  }

  /** Inserts the subscription, or nothing when the flow already has one to the destination (false). */
  async insert(trx: Knex.Transaction, row: Record<string, unknown>): Promise<string | undefined> {
    const inserted = await trx('flow_notification_subscriptions')
      .insert(row)
      .onConflict(['org_id', 'flow_id', 'destination_id'])
      .ignore()
      .returning('id');
    return (inserted[0] as { id: string } | undefined)?.id;
  }

  async update(trx: Knex.Transaction, id: string, change: Record<string, unknown>): Promise<number> {
    return trx('flow_notification_subscriptions')
      .where({ id })
      .update({ ...change, updated_at: trx.fn.now() });
  }

  async remove(trx: Knex.Transaction, id: string): Promise<number> {
    return trx('flow_notification_subscriptions').where({ id }).delete();
  }

  /** What the flow's runs in `orgId` send: its subscriptions (enabled, to live enabled destinations), then the defaults it has none for. */
  async effective(orgId: string, flowId: string): Promise<EffectiveSubscription[]> {
    const result = await this.knex.raw(
      `SELECT d.id AS destination_id, d.kind,
              CASE WHEN s.id IS NULL THEN d.default_events ELSE s.events END AS events,
              CASE WHEN s.id IS NULL THEN 'default' ELSE 'subscription' END AS source
         FROM notification_destinations d
         LEFT JOIN flow_notification_subscriptions s ON s.destination_id = d.id AND s.org_id = d.org_id AND s.flow_id = ?
        WHERE d.org_id = ? AND d.deleted_at IS NULL AND d.enabled
          AND CASE WHEN s.id IS NULL THEN jsonb_array_length(d.default_events) > 0 ELSE s.enabled END
        ORDER BY d.name, d.id`,
      [flowId, orgId],
    );
    return (result.rows ?? result) as EffectiveSubscription[];
  }
}
