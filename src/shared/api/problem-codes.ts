/**
 * Every `code` a problem response can carry. Clients (the CLI among them) branch on these, never on
 * message text, so a code once published keeps its meaning.
 */
export const PROBLEM_CODES = {
  not_found: 'No route matches the request path.',
  method_not_allowed: 'The path exists but not with this method; `Allow` lists the methods it has.',
  invalid_path: 'The request path has a malformed percent-encoding.',
  payload_too_large: 'The request body exceeds the size limit.',
  malformed_json: 'The request body is not valid JSON.',
  unsupported_media_type: 'The request body is not JSON (`Content-Type: application/json`).',
  unauthenticated: 'No credential was sent; `WWW-Authenticate` says which kind the route takes.',
  token_expired: 'The access token has expired.',
  invalid_token:
    'The credential is not valid: bad signature, issuer, audience, claims, format, or a revoked or expired personal access token.',
  invalid_internal_token: 'The `X-Internal-Token` header is missing or wrong on an internal route.',
  basic_auth_refused: 'HTTP Basic credentials are not accepted on this route.',
  account_disabled: 'The user behind the credential is deactivated.',
  auth_unavailable: 'The identity provider cannot be reached to check the token; retry after `Retry-After`.',
  auth_not_configured: 'No identity provider is configured (SERVICE_IDP_ISSUER unset).',
  ambiguous_credentials:
    'A credential header (`Authorization`, `X-Internal-Token`, `X-Service-Signature`) is sent more than once; `header` names it.',
  invalid_ticket: 'The stream ticket is unknown, expired, or already used.',
  tickets_unavailable: 'Stream tickets are not issued while authentication is disabled.',
  forbidden: "The caller is authenticated but its roles or memberships do not satisfy the route's policy.",
  validation_failed: 'The request body or query does not satisfy the schema; `errors` lists each problem with its JSON path.',
  resource_not_found: 'The addressed resource does not exist (or is not visible to the caller).',
  conflict: 'The request conflicts with the current state (for example a duplicate).',
  override_rule_violation:
    'A permission override breaks a resolution rule; `rule` names it (structural_policy, permission_manage_pinned, org_policy_needs_org_ref, auth_me_never_disabled, unknown_action, unknown_route, unknown_policy).',
  route_disabled: 'The route is switched off by a `disabled` override; nobody may call it.',
  invalid_org_header: 'The `X-Org-Id` header is not an organization id or slug (or was sent twice).',
  org_not_found:
    'The organization named by `{org_ref}` or `X-Org-Id` does not exist or is deactivated; answered to platform admins only (anyone else is refused with 403 `forbidden`, alike for a foreign organization and a nonexistent one).',
  org_header_mismatch: "The `X-Org-Id` header names another organization than the path's `{org_ref}`.",
  not_implemented: 'The route is in the catalogue but its domain is not built yet; `action` names it.',
  database_unavailable: 'The database does not answer.',
  shutting_down: 'The instance is shutting down and takes no new work.',
  internal_error: 'An unexpected error; the request id finds it in the logs.',
  restricted_option:
    'The request uses an option only a platform admin may use (handler-level narrowing); `restriction` names it (container_host_access, egress_widening, force_manual_run).',
  shared_read_only:
    'The resource belongs to the shared organization: every tenant may read it, only the shared organization may change it.',
  secret_backend_unavailable: 'The secret backend holding the values failed or answered nothing usable; retry later.',
  unsupported_backend_type: 'The secret backend type is known but this build cannot serve it (e.g. `vault`); `type` names it.',
  webhook_auth_failed:
    'The webhook trigger is not authenticated: `reason` is missing_headers, bad_timestamp, stale_timestamp, bad_signature or bad_bearer.',
  source_not_allowed: "The caller's address is outside the webhook endpoint's `allowed_source_ips`.",
  no_linked_flow: 'The webhook endpoint targets no flow (its flow row was removed).',
  rate_limited: 'Too many requests: a webhook ingress or delivery limit (`limit` names which); retry after `Retry-After` seconds.',
  duplicate_delivery: 'The `X-Idempotency-Key` was already accepted for this endpoint; `delivery_id` and `run_id` name the original.',
  org_header_required: 'The route requires an `X-Org-Id` header naming the organization of the path (creating an IdP mapping).',
  nothing_to_commit: "The flow's draft is the same as its newest committed version: a commit would add nothing.",
  flow_not_found:
    "Run admission: the flow does not exist, is deleted, or belongs to neither the organization nor the shared one (404; 422 on the webhook trigger, where the flow is the endpoint's configuration).",
  flow_not_committed: 'Run admission: the flow has no committed version to run (400).',
  flow_version_not_found: 'Run admission: the requested (or pinned) version does not exist on the flow (404).',
  unknown_device_reference:
    'Run admission: a target names no live device of the organization (or, by UUID, of the shared organization); `missing` lists `{role, device_id}` (400).',
  too_many_targets:
    'A run names more device targets than SERVICE_INVENTORY_MAX_RUN_TARGETS allows, all roles together; refused before any lookup (422).',
  manual_runs_disabled:
    "The flow's manual runs are switched off: `POST /runs` refuses it (a platform admin may pass `force=true`); schedules and webhooks still start it (409).",
  invalid_run_state:
    "The run's status does not allow this transition (for example cancelling a finished run); `status` gives the current one (409).",
  invalid_payload:
    'Webhook trigger: the body is not a JSON object of the accepted shape (not UTF-8 JSON, `params` not an object, `related_targets` not an object of arrays, a malformed device reference); `errors` gives the path (422).',
  external_id_not_text: "Webhook trigger: a provider reference's `external_id` is a JSON number; send it as a string (422).",
  too_many_provider_references:
    'Webhook trigger: more than 100 `{provider_id, external_id}` references, all roles together; `limit` and `count` say so (422).',
  provider_managed:
    "The site or device is provider-sourced: the fields named in `fields` belong to its inventory provider and change only through provider sync; a device's local annotations go through `overlay` (PATCH /devices/{device_id}/overlay) (409).",
  site_in_use: 'The site still has live child sites or devices (`children`, `devices` count them); move or delete them first (409).',
} as const;

export type ProblemCode = keyof typeof PROBLEM_CODES;

/** The RFC 9457 body every error response carries. */
export interface ProblemBody {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail?: string;
  readonly code: ProblemCode;
  readonly request_id?: string;
  readonly [extension: string]: unknown;
}

export function problemType(code: ProblemCode): string {
  return `urn:svc:problem:${code}`;
}
