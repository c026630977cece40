import type { Column } from '../../runtime/table.js';

import type {
  WebhookDelivery as Delivery,
  WebhookEndpoint as Endpoint,
  WebhookListItem as EndpointListItem,
  WebhookTestResult as TestResult,
  TriggerEnvelope,
} from '../../../shared/api/webhooks.js';

/** The webhook routes' wire shapes, inferred from the schemas the daemon answers with (types only: no zod at run time). */
export type { Delivery, Endpoint, EndpointListItem, TestResult, TriggerEnvelope };

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
