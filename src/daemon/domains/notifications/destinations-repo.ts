import type { Knex } from 'knex';
import type { DestinationKind, NotificationEvent } from '../../../shared/api/notifications.js';
import { SoftDeleteTable, whereLive } from '../../db/soft-delete.js';
import { TransactionalRepo } from '../../db/transactional-repo.js';
import { pageWithTotal } from '../../db/page.js';

export interface DestinationRow {
  readonly id: string;
  readonly org_id: string;
  readonly name: string;
  readonly description: string | null;
  readonly kind: DestinationKind;
  readonly config_json: Record<string, unknown>;
  readonly enabled: boolean;
  readonly default_events: NotificationEvent[];
  readonly created_at: Date;
  readonly updated_at: Date;
  readonly created_by: string | null;
  readonly updated_by: string | null;
  readonly deleted_at: Date | null;
  readonly deleted_by: string | null;
}

export interface DestinationFilter {
  readonly kind?: DestinationKind | undefined;
  readonly enabled?: boolean | undefined;
  readonly q?: string | undefined;
  readonly includeDeleted: boolean;
  readonly limit: number;
  readonly offset: number;
}

export const DESTINATION_COLUMNS = [
  'id',
  'org_id',
  'name',
  'description',
  'kind',
  'config_json',
  'enabled',
  'default_events',
  'created_at',
  'updated_at',
  'created_by',
  'updated_by',
  'deleted_at',
  'deleted_by',
] as const;

const DESTINATIONS = new SoftDeleteTable<DestinationRow>('notification_destinations', DESTINATION_COLUMNS);

/** The name index's violation: a live destination of the organization already has the name. */
export function isNameTaken(error: unknown): boolean {
  const e = error as { code?: string; constraint?: string; message?: string };
  return e?.code === '23505' && (e.constraint === 'notification_destinations_live_name' || /live_name/.test(e.message ?? ''));
}

/** `notification_destinations`: an organization's destinations, soft-deleted ones included where asked. */
export class DestinationsRepo extends TransactionalRepo {
  /** One destination of the organization, soft-deleted included (callers decide). */
  async find(orgId: string, id: string, db: Knex | Knex.Transaction = this.knex): Promise<DestinationRow | undefined> {
    return db('notification_destinations').where({ org_id: orgId, id }).first(DESTINATION_COLUMNS);
  }

  /** One destination by id alone (the senders and the internal routes act for every organization). */
  async byId(id: string): Promise<DestinationRow | undefined> {
    return this.knex('notification_destinations').where({ id }).first(DESTINATION_COLUMNS);
  }

  /** The organization of a run, by id alone (the `flow.notify` step reads destinations for its run). */
  async runOrg(runId: string): Promise<string | undefined> {
    const row = await this.knex('runs').where({ id: runId }).first('org_id');
    return (row as { org_id: string } | undefined)?.org_id;
  }

  async lock(trx: Knex.Transaction, orgId: string, id: string): Promise<DestinationRow | undefined> {
    return trx('notification_destinations').where({ org_id: orgId, id }).forUpdate().first(DESTINATION_COLUMNS);
  }

  async list(orgId: string, filter: DestinationFilter): Promise<{ rows: DestinationRow[]; total: number }> {
    const query = this.knex('notification_destinations').where('org_id', orgId);
    if (!filter.includeDeleted) whereLive(query);
    if (filter.kind) query.where('kind', filter.kind);
    if (filter.enabled !== undefined) query.where('enabled', filter.enabled);
    if (filter.q) query.whereRaw('position(lower(?) in lower(name)) > 0', [filter.q]);
    return pageWithTotal<DestinationRow>(
      this.knex,
      query,
      DESTINATION_COLUMNS,
      [
        { column: 'name', order: 'asc' },
        { column: 'id', order: 'asc' },
      ],
      filter,
    );
  }

  /** Live destinations of the organization with flow defaults, by name. */
  async withDefaults(orgId: string): Promise<DestinationRow[]> {
    return whereLive(this.knex('notification_destinations'))
      .where('org_id', orgId)
      .whereRaw(`jsonb_array_length(default_events) > 0`)
      .orderBy([{ column: 'name' }, { column: 'id' }])
      .select(DESTINATION_COLUMNS);
  }

  async insert(trx: Knex.Transaction, row: Record<string, unknown>): Promise<DestinationRow> {
    return DESTINATIONS.insert(trx, row);
  }

  async update(trx: Knex.Transaction, id: string, change: Record<string, unknown>): Promise<DestinationRow> {
    return DESTINATIONS.update(trx, id, change);
  }

  async softDelete(trx: Knex.Transaction, id: string, by: string | null): Promise<void> {
    await DESTINATIONS.markDeleted(trx, [id], by);
  }

  async restore(trx: Knex.Transaction, id: string, by: string | null): Promise<DestinationRow> {
    const [row] = await DESTINATIONS.restore(trx, [id], by);
    return row!;
  }

  /** Removes it for good; its subscriptions and outbox rows (with their attempts) go with it. */
  async purge(trx: Knex.Transaction, id: string): Promise<void> {
    await DESTINATIONS.purge(trx, [id]);
  }
}
