import type { Knex } from 'knex';

export interface WebhookRow {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly enabled: boolean;
  readonly secret_name: string | null;
  readonly auth_mode: string;
  readonly replay_window_seconds: number;
  readonly rate_limit_per_minute: number;
  readonly flow_name: string | null;
  readonly flow_version: number | null;
  readonly allowed_source_ips_json: string[] | null;
  readonly payload_mapping_json: Record<string, unknown>;
}

/** The settings of a webhook endpoint as configuration exchange writes them (ids, not names). */
export interface WebhookColumns {
  readonly name: string;
  readonly description: string | null;
  readonly enabled: boolean;
  readonly secret_id: string | null;
  readonly auth_mode: string;
  readonly replay_window_seconds: number;
  readonly rate_limit_per_minute: number;
  readonly flow_id: string | null;
  readonly flow_version: number | null;
  readonly allowed_source_ips: string[] | null;
  readonly payload_mapping_json: Record<string, unknown>;
}

/** An organization's live webhook endpoints with their secret and flow by name, on the handle it is given. */
export class WebhooksRowsRepo {
  async live(db: Knex, orgId: string): Promise<WebhookRow[]> {
    return db('webhook_endpoints as w')
      .leftJoin('secrets as s', 's.id', 'w.secret_id')
      .leftJoin('flows as f', (j) => j.on('f.id', 'w.flow_id').andOnNull('f.deleted_at'))
      .where('w.org_id', orgId)
      .whereNull('w.deleted_at')
      .select(
        'w.id',
        'w.name',
        'w.description',
        'w.enabled',
        's.name as secret_name',
        'w.auth_mode',
        'w.replay_window_seconds',
        'w.rate_limit_per_minute',
        'f.name as flow_name',
        'w.flow_version',
        'w.allowed_source_ips_json',
        'w.payload_mapping_json',
      );
  }

  async secretId(db: Knex, orgId: string, name: string): Promise<string | undefined> {
    return ((await db('secrets').where({ org_id: orgId, name }).first('id')) as { id: string } | undefined)?.id;
  }

  async idOf(db: Knex, orgId: string, name: string): Promise<string> {
    const row = await db('webhook_endpoints').where({ org_id: orgId, name }).whereNull('deleted_at').forUpdate().first('id');
    if (!row) throw new Error(`webhook endpoint ${name} vanished during the apply`);
    return (row as { id: string }).id;
  }

  async insert(db: Knex, orgId: string, columns: WebhookColumns, pathToken: string, by: string | null): Promise<string> {
    const [row] = await db('webhook_endpoints')
      .insert({ org_id: orgId, ...stored(columns), path_token: pathToken, created_by: by, updated_by: by })
      .returning('id');
    return (row as { id: string }).id;
  }

  async update(db: Knex, id: string, columns: WebhookColumns, by: string | null): Promise<void> {
    await db('webhook_endpoints')
      .where({ id })
      .update({ ...stored(columns), updated_by: by, updated_at: db.fn.now() });
  }

  async softDelete(db: Knex, id: string, by: string | null): Promise<void> {
    await db('webhook_endpoints').where({ id }).update({ deleted_at: db.fn.now(), deleted_by: by });
  }
}

function stored(columns: WebhookColumns): Record<string, unknown> {
  const { allowed_source_ips, payload_mapping_json, ...rest } = columns;
  return {
    ...rest,
    allowed_source_ips_json: allowed_source_ips ? JSON.stringify(allowed_source_ips) : null,
    payload_mapping_json: JSON.stringify(payload_mapping_json),
  };
}
