import type { WebhookDelivery, WebhookEndpoint, WebhookListItem } from '../../../shared/api/webhooks.js';
import type { DeliveryRow, WebhookEndpointRow, WebhookEndpointWithFlow } from './webhooks-repo.js';

export type EndpointView = WebhookEndpoint;

function iso(value: Date | string): string;
function iso(value: Date | string | null): string | null;
function iso(value: Date | string | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}

/** The flow an endpoint targets as a reader sees it: null name when the row is gone or soft-deleted. */
function flowName(row: WebhookEndpointWithFlow): string | null {
  return row.flow_deleted ? null : row.flow_name;
}

/** The full read schema (create, read, update, restore, rotate answer it). */
export function endpointView(row: WebhookEndpointWithFlow): EndpointView {
  return {
    id: row.id,
    org_id: row.org_id,
    name: row.name,
    description: row.description,
    enabled: row.enabled,
    path_token: row.path_token,
    trigger_path: `/hooks/${row.path_token}`,
    secret_id: row.secret_id,
    auth_mode: row.auth_mode,
    replay_window_seconds: row.replay_window_seconds,
    rate_limit_per_minute: row.rate_limit_per_minute,
    flow_id: row.flow_id,
    flow_name: flowName(row),
    flow_version: row.flow_version,
    allowed_source_ips: row.allowed_source_ips_json,
    payload_mapping_json: row.payload_mapping_json ?? {},
    last_triggered_at: iso(row.last_triggered_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    created_by: row.created_by,
    updated_by: row.updated_by,
    deleted_at: iso(row.deleted_at),
    deleted_by: row.deleted_by,
  };
}

/**
 * What an endpoint's entity tag covers: the view without `last_triggered_at`, which every accepted trigger
 * moves, and without `flow_name`, the flow's own. A trigger or a flow's rename is no edit of the endpoint,
 * so a form read before one may still save over it.
 */
export function endpointVersion(view: EndpointView): Omit<EndpointView, 'last_triggered_at' | 'flow_name'> {
  const { last_triggered_at: _triggered, flow_name: _flow, ...settings } = view;
  return settings;
}

/** The version of the endpoint as locked: the flow's name, not in the version, needs no join. */
export function lockedEndpointVersion(row: WebhookEndpointRow): Omit<EndpointView, 'last_triggered_at' | 'flow_name'> {
  return endpointVersion(endpointView({ ...row, flow_name: null, flow_org_id: null, flow_deleted: null }));
}

/** What an audit entry may carry of an endpoint: everything but the token that addresses it. */
export function endpointAuditView(view: EndpointView): Omit<EndpointView, 'path_token' | 'trigger_path'> {
  const { path_token: _token, trigger_path: _path, ...rest } = view;
  return rest;
}

/** A list item: the endpoint's label, state and target; the token only in the full read. */
export function endpointListItem(row: WebhookEndpointWithFlow): WebhookListItem {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    enabled: row.enabled,
    auth_mode: row.auth_mode,
    flow_id: row.flow_id,
    flow_name: flowName(row),
    flow_version: row.flow_version,
    secret_id: row.secret_id,
    rate_limit_per_minute: row.rate_limit_per_minute,
    last_triggered_at: iso(row.last_triggered_at),
    created_at: iso(row.created_at),
    deleted_at: iso(row.deleted_at),
  };
}

export function deliveryView(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    webhook_endpoint_id: row.webhook_endpoint_id,
    idempotency_key: row.idempotency_key,
    signature_valid: row.signature_valid,
    source_ip: row.source_ip,
    request_body_hash: row.request_body_hash,
    response_status: row.response_status,
    error_detail: row.error_detail,
    run_ids: row.run_ids,
    processing_duration_ms: row.processing_duration_ms,
    created_at: iso(row.created_at),
  };
}
