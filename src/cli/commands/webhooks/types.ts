import type { Column } from '../../runtime/table.js';

/**
 * The webhook routes' wire shapes as the CLI reads them (src/daemon/domains/webhooks/endpoint-view.ts).
 * Kept here rather than imported: the CLI must not depend on daemon modules.
 */
export interface EndpointListItem {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly enabled: boolean;
  readonly auth_mode: string;
  readonly flow_id: string | null;
  readonly flow_name: string | null;
  readonly flow_version: number | null;
  readonly secret_id: string | null;
  readonly rate_limit_per_minute: number;
  readonly last_triggered_at: string | null;
  readonly created_at: string | null;
  readonly deleted_at: string | null;
}

export interface Endpoint extends EndpointListItem {
  readonly org_id: string;
  readonly path_token: string;
  readonly trigger_path: string;
  readonly replay_window_seconds: number;
  readonly allowed_source_ips: string[] | null;
  readonly payload_mapping_json: Record<string, unknown>;
  readonly updated_at: string | null;
  readonly created_by: string | null;
  readonly updated_by: string | null;
  readonly deleted_by: string | null;
}

export interface Delivery {
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
  readonly created_at: string;
}

export interface TestResult {
  readonly valid: boolean;
  readonly checks: Record<string, boolean>;
  readonly errors: { readonly code: string; readonly message: string }[];
}

const yes = (value: boolean) => (value ? 'yes' : 'no');
/** A null pin runs the newest committed version. */
export const versionText = (version: number | null) => (version === null ? 'latest' : String(version));

export const ENDPOINT_COLUMNS: Column<EndpointListItem>[] = [
  { header: 'ID', value: (e) => e.id },
  { header: 'NAME', value: (e) => e.name },
  { header: 'ENABLED', value: (e) => yes(e.enabled) },
  { header: 'AUTH', value: (e) => e.auth_mode },
  { header: 'FLOW', value: (e) => e.flow_name ?? e.flow_id },
  { header: 'VERSION', value: (e) => versionText(e.flow_version) },
  { header: 'RATE/MIN', value: (e) => e.rate_limit_per_minute },
  { header: 'LAST TRIGGERED', value: (e) => e.last_triggered_at },
];

export const DELETED_COLUMN: Column<EndpointListItem> = { header: 'DELETED', value: (e) => e.deleted_at };

export const DELIVERY_COLUMNS: Column<Delivery>[] = [
  { header: 'ID', value: (d) => d.id },
  { header: 'CREATED', value: (d) => d.created_at },
  { header: 'STATUS', value: (d) => d.response_status },
  { header: 'SIGNATURE', value: (d) => (d.signature_valid ? 'valid' : 'invalid') },
  { header: 'SOURCE', value: (d) => d.source_ip },
  { header: 'RUNS', value: (d) => d.run_ids.join(',') },
  { header: 'MS', value: (d) => d.processing_duration_ms },
  { header: 'IDEMPOTENCY KEY', value: (d) => d.idempotency_key },
  { header: 'ERROR', value: (d) => d.error_detail },
];

/** One endpoint as `field: value` lines; `triggerUrl` is where senders post (the server plus the trigger path). */
export const endpointFields = (e: Endpoint, triggerUrl: string) =>
  [
    ['id', e.id],
    ['name', e.name],
    ['description', e.description],
    ['enabled', yes(e.enabled)],
    ['auth_mode', e.auth_mode],
    ['flow', e.flow_id === null ? null : `${e.flow_name ?? '(deleted)'} (${e.flow_id})`],
    ['flow_version', versionText(e.flow_version)],
    ['secret_id', e.secret_id],
    ['trigger_url', triggerUrl],
    ['replay_window_seconds', e.replay_window_seconds],
    ['rate_limit_per_minute', e.rate_limit_per_minute],
    ['allowed_source_ips', e.allowed_source_ips === null ? 'any' : e.allowed_source_ips.join(', ')],
    ['payload_mapping_json', JSON.stringify(e.payload_mapping_json)],
    ['last_triggered_at', e.last_triggered_at],
    ['created_at', e.created_at],
    ['updated_at', e.updated_at],
    ...(e.deleted_at === null ? [] : [['deleted_at', e.deleted_at] as const]),
  ] as const;
