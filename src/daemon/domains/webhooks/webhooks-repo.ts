import type { Knex } from 'knex';
import type { AuditRow } from '../../audit/audit-repo.js';
import { admissionCompanion, type AdmissionCompanion } from '../runs/admission-companion.js';
import { prepared } from '../../db/prepared.js';
import { SoftDeleteTable, whereLive } from '../../db/soft-delete.js';
import { uuidArrayText } from '../../db/uuid-array.js';
import { TransactionalRepo } from '../../db/transactional-repo.js';

export interface WebhookEndpointRow {
  readonly id: string;
  readonly org_id: string;
  readonly name: string;
  readonly description: string | null;
  readonly enabled: boolean;
  readonly path_token: string;
  readonly secret_id: string | null;
  readonly auth_mode: 'hmac_sha256' | 'bearer';
  readonly replay_window_seconds: number;
  readonly rate_limit_per_minute: number;
  readonly flow_id: string | null;
  readonly flow_version: number | null;
  readonly allowed_source_ips_json: string[] | null;
  readonly payload_mapping_json: Record<string, unknown>;
  readonly last_triggered_at: Date | null;
  readonly created_at: Date;
  readonly updated_at: Date;
  readonly created_by: string | null;
  readonly updated_by: string | null;
  readonly deleted_at: Date | null;
  readonly deleted_by: string | null;
}

/** An endpoint with its flow's name (null when the flow row is gone or soft-deleted). */
export interface WebhookEndpointWithFlow extends WebhookEndpointRow {
  readonly flow_name: string | null;
  readonly flow_org_id: string | null;
  readonly flow_deleted: boolean | null;
}

export interface DeliveryRow {
  readonly id: string;
  readonly webhook_endpoint_id: string;
  readonly idempotency_key: string | null;
  readonly signature_valid: boolean;
  readonly source_ip: string | null;
  readonly request_body_hash: string | null;
  readonly response_status: number;
  readonly error_detail: string | null;
  readonly run_ids: string[];
  readonly processing_duration_ms: number | null;
  readonly created_at: Date;
}

/** An accepted delivery as a duplicate's answer names it. */
export type AcceptedDelivery = Pick<DeliveryRow, 'id' | 'run_ids'>;

/** A journal row to write; the id is chosen by the trigger so the run and the log can name it up front. */
export type NewDelivery = Omit<DeliveryRow, 'created_at'>;

export type WebhooksTx = Knex.Transaction;

const ENDPOINT_COLUMNS = [
  'e.id',
  'e.org_id',
  'e.name',
  'e.description',
  'e.enabled',
  'e.path_token',
  'e.secret_id',
  'e.auth_mode',
  'e.replay_window_seconds',
  'e.rate_limit_per_minute',
  'e.flow_id',
  'e.flow_version',
  'e.allowed_source_ips_json',
  'e.payload_mapping_json',
  'e.last_triggered_at',
  'e.created_at',
  'e.updated_at',
  'e.created_by',
  'e.updated_by',
  'e.deleted_at',
  'e.deleted_by',
] as const;

/** A journal row's columns as the trigger writes them (the database adds `created_at`). */
const WRITTEN_DELIVERY_COLUMNS = [
  'id',
  'webhook_endpoint_id',
  'idempotency_key',
  'signature_valid',
  'source_ip',
  'request_body_hash',
  'response_status',
  'error_detail',
  'run_ids',
  'processing_duration_ms',
] as const;
const DELIVERY_COLUMNS = [...WRITTEN_DELIVERY_COLUMNS, 'created_at'] as const;

/** PostgreSQL answers `uuid[]` as an array on pg, as text (`{a,b}`) on some drivers: always an array here. */
function runIds(value: unknown): string[] {
  if (Array.isArray(value)) return value as string[];
  if (typeof value === 'string')
    return value
      .replace(/^\{|\}$/g, '')
      .split(',')
      .filter(Boolean);
  return [];
}

function delivery(row: DeliveryRow): DeliveryRow {
  return { ...row, run_ids: runIds(row.run_ids) };
}

/**
 * The accepted delivery as a companion of run admission: the journal row is the gate, written only for an
 * admission whose checks in the statement hold (`ON CONFLICT DO NOTHING` on the accepted key's partial
 * unique index, so exactly one of concurrent duplicates writes its run); then the `webhook.triggered`
 * entry and, where asked, the endpoint's `last_triggered_at`. Run admission writes the SQL.
 */
const ACCEPTED_DELIVERY = admissionCompanion({
  name: 'webhook',
  columns: {
    id: 'uuid',
    webhook_endpoint_id: 'uuid',
    idempotency_key: 'text',
    signature_valid: 'boolean',
    source_ip: 'text',
    request_body_hash: 'text',
    response_status: 'integer',
    error_detail: 'text',
    run_ids: 'uuid[]',
    processing_duration_ms: 'integer',
    touch_endpoint: 'boolean',
  },
  gate: {
    into: 'webhook_deliveries',
    columns: WRITTEN_DELIVERY_COLUMNS,
    key: 'id',
    onConflictDoNothing: {
      columns: ['webhook_endpoint_id', 'idempotency_key'],
      where: 'idempotency_key IS NOT NULL AND response_status = 202',
    },
  },
  auditEntry: true,
  afterWritten: [
    (written) =>
      `UPDATE webhook_endpoints SET last_triggered_at = now()
        WHERE id IN (SELECT ${written.column('webhook_endpoint_id')} FROM ${written.name} WHERE ${written.column('touch_endpoint')})`,
  ],
});

const ENDPOINTS = new SoftDeleteTable<{ id: string }>('webhook_endpoints', ['id']);

/** `webhook_endpoints` and the `webhook_deliveries` journal, plus the flow facts endpoint management checks. */
export class WebhooksRepo extends TransactionalRepo {
  private endpoints(db: Knex | WebhooksTx = this.knex): Knex.QueryBuilder {
    return db('webhook_endpoints as e')
      .leftJoin('flows as f', 'f.id', 'e.flow_id')
      .select(...ENDPOINT_COLUMNS, 'f.name as flow_name', 'f.org_id as flow_org_id', db.raw('(f.deleted_at IS NOT NULL) as flow_deleted'));
  }

  async list(orgId: string, includeDeleted: boolean): Promise<WebhookEndpointWithFlow[]> {
    const query = this.endpoints()
      .where('e.org_id', orgId)
      .orderBy([{ column: 'e.created_at' }, { column: 'e.id' }]);
    if (!includeDeleted) whereLive(query, 'e');
    return query;
  }

  /** One endpoint of the organization, soft-deleted included (callers decide). */
  async find(orgId: string, id: string, db: Knex | WebhooksTx = this.knex): Promise<WebhookEndpointWithFlow | undefined> {
    return this.endpoints(db).where({ 'e.org_id': orgId, 'e.id': id }).first();
  }

  async lock(trx: WebhooksTx, orgId: string, id: string): Promise<WebhookEndpointRow | undefined> {
    return trx('webhook_endpoints').where({ org_id: orgId, id }).forUpdate().first();
  }

  /**
   * The trigger path's lookup: an endpoint that is not soft-deleted, by its token (disabled ones too: the
   * caller answers for them), of an active organization: a deactivated one's endpoints start nothing, as
   * its schedules fire nothing (its members can no longer see them). Duplicates are found by the accepted
   * delivery's write, not here.
   */
  async findByToken(pathToken: string): Promise<WebhookEndpointRow | undefined> {
    return this.knex('webhook_endpoints as e')
      .join('organizations as o', 'o.id', 'e.org_id')
      .where('e.path_token', pathToken)
      .whereNull('e.deleted_at')
      .where('o.is_active', true)
      .first(...ENDPOINT_COLUMNS)
      .options(prepared('svc_webhook_endpoint'));
  }

  async insert(trx: WebhooksTx, row: Record<string, unknown>): Promise<string> {
    const [inserted] = await trx('webhook_endpoints').insert(row).returning('id');
    return (inserted as { id: string }).id;
  }

  async update(trx: WebhooksTx, id: string, change: Record<string, unknown>): Promise<void> {
    await trx('webhook_endpoints')
      .where({ id })
      .update({ ...change, updated_at: trx.fn.now() });
  }

  /** Marks the endpoint deleted; `updated_at` moves with it, as it always has for an endpoint. */
  async softDelete(trx: WebhooksTx, id: string, by: string | null): Promise<void> {
    await ENDPOINTS.markDeleted(trx, [id], by, { updated_at: trx.fn.now() });
  }

  async restore(trx: WebhooksTx, id: string, by: string | null): Promise<void> {
    await ENDPOINTS.restore(trx, [id], by);
  }

  /** Removes the endpoint for good; its journal goes with it (cascade). */
  async purge(trx: WebhooksTx, id: string): Promise<void> {
    await ENDPOINTS.purge(trx, [id]);
  }

  /** The flow an endpoint may target: live, in one of `orgIds`; with whether `version` (if given) is committed. */
  async flowFacts(
    orgIds: readonly string[],
    flowId: string,
    version: number | null,
  ): Promise<{ id: string; name: string; org_id: string; latest_version: number; version_exists: boolean } | undefined> {
    const row = await this.knex('flows as f')
      .whereIn('f.org_id', orgIds)
      .where('f.id', flowId)
      .whereNull('f.deleted_at')
      .first(
        'f.id',
        'f.name',
        'f.org_id',
        'f.latest_version',
        version === null
          ? this.knex.raw('true as version_exists')
          : this.knex.raw('EXISTS (SELECT 1 FROM flow_versions v WHERE v.flow_id = f.id AND v.version = ?) as version_exists', [version]),
      );
    return row as { id: string; name: string; org_id: string; latest_version: number; version_exists: boolean } | undefined;
  }

  /**
   * Live endpoints that target a flow (a flow they target cannot be deleted). `db` is the flow delete's
   * transaction when it asks: the embedded database has one connection, which that transaction holds.
   */
  async referencingFlow(flowId: string, db: Knex | WebhooksTx = this.knex): Promise<{ id: string; name: string }[]> {
    return ENDPOINTS.live(db)
      .where({ flow_id: flowId })
      .select('id', 'name')
      .orderBy([{ column: 'name' }, { column: 'id' }]);
  }

  async deliveries(endpointId: string, limit: number, offset: number): Promise<{ items: DeliveryRow[]; total: number }> {
    const [items, count] = await Promise.all([
      this.knex('webhook_deliveries')
        .where({ webhook_endpoint_id: endpointId })
        .orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .limit(limit)
        .offset(offset)
        .select(DELIVERY_COLUMNS),
      this.knex('webhook_deliveries').where({ webhook_endpoint_id: endpointId }).count<{ count: string | number }[]>('* as count'),
    ]);
    return { items: (items as DeliveryRow[]).map(delivery), total: Number(count[0]?.count ?? 0) };
  }

  /** The accepted delivery holding an idempotency key, if any. */
  async acceptedByKey(endpointId: string, key: string, db: Knex | WebhooksTx = this.knex): Promise<AcceptedDelivery | undefined> {
    const row = await db('webhook_deliveries')
      .where({ webhook_endpoint_id: endpointId, idempotency_key: key, response_status: 202 })
      .first('id', 'run_ids');
    return row ? { id: row.id, run_ids: runIds(row.run_ids) } : undefined;
  }

  /** The database for work that needs no transaction of its own (the accepted trigger's one statement). */
  get direct(): Knex {
    return this.knex;
  }

  /**
   * The accepted delivery's rows in run admission's one statement (see `ACCEPTED_DELIVERY`), with
   * `touchEndpoint` the endpoint's `last_triggered_at` too. No transaction, no round trip of their own.
   */
  acceptedDelivery(row: NewDelivery, triggered: AuditRow, touchEndpoint: boolean): AdmissionCompanion {
    return ACCEPTED_DELIVERY.with({ ...row, touch_endpoint: touchEndpoint }, triggered);
  }

  async insertRejected(row: NewDelivery, db: Knex | WebhooksTx = this.knex): Promise<string> {
    const [inserted] = await db('webhook_deliveries')
      .insert({ ...row, run_ids: db.raw('?::uuid[]', [uuidArrayText(row.run_ids)]) })
      .returning('id');
    return (inserted as { id: string }).id;
  }
}
