/** What a problem `code` means and the one status it is answered with. */
export interface ProblemCodeEntry {
  readonly status: number;
  readonly meaning: string;
  /**
   * The single documented exception to "one code, one status": the other status the code is answered with
   * and where. Only `Problem.withStatus` answers it, so every such place is found by grepping for it.
   */
  readonly otherStatus?: { readonly status: number; readonly where: string };
}

/**
 * Every `code` a problem response can carry, with its status. Clients (the CLI among them) branch on
 * these, never on message text, so a code once published keeps its meaning and its status.
 */
export const PROBLEM_CODES = {
  not_found: { status: 404, meaning: 'No route matches the request path.' },
  method_not_allowed: { status: 405, meaning: 'The path exists but not with this method; `Allow` lists the methods it has.' },
  invalid_path: { status: 400, meaning: 'The request path has a malformed percent-encoding.' },
  payload_too_large: { status: 413, meaning: 'The request body exceeds the size limit.' },
  malformed_json: { status: 400, meaning: 'The request body is not valid JSON.' },
  unsupported_media_type: { status: 415, meaning: 'The request body is not JSON (`Content-Type: application/json`).' },
  unauthenticated: { status: 401, meaning: 'No credential was sent; `WWW-Authenticate` says which kind the route takes.' },
  token_expired: { status: 401, meaning: 'The access token has expired.' },
  invalid_token: {
    status: 401,
    meaning: 'The credential is not valid: bad signature, issuer, audience, claims, format, or a revoked or expired personal access token.',
  },
  invalid_internal_token: { status: 401, meaning: 'The `X-Internal-Token` header is missing or wrong on an internal route.' },
  basic_auth_refused: { status: 401, meaning: 'HTTP Basic credentials are not accepted on this route.' },
  account_disabled: { status: 401, meaning: 'The user behind the credential is deactivated.' },
  auth_unavailable: { status: 503, meaning: 'The identity provider cannot be reached to check the token; retry after `Retry-After`.' },
  auth_not_configured: { status: 503, meaning: 'No identity provider is configured (SERVICE_IDP_ISSUER unset).' },
  ambiguous_credentials: {
    status: 400,
    meaning: 'A credential header (`Authorization`, `X-Internal-Token`, `X-Service-Signature`) is sent more than once; `header` names it.',
  },
  invalid_ticket: { status: 401, meaning: 'The stream ticket is unknown, expired, or already used.' },
  tickets_unavailable: { status: 400, meaning: 'Stream tickets are not issued while authentication is disabled.' },
  forbidden: { status: 403, meaning: "The caller is authenticated but its roles or memberships do not satisfy the route's policy." },
  validation_failed: {
    status: 422,
    meaning: 'The request body or query does not satisfy the schema; `errors` lists each problem with its JSON path.',
  },
  resource_not_found: { status: 404, meaning: 'The addressed resource does not exist (or is not visible to the caller).' },
  conflict: { status: 409, meaning: 'The request conflicts with the current state (for example a duplicate).' },
  precondition_failed: {
    status: 412,
    meaning:
      '`If-Match` does not name the current version of the resource (`etag` in the body is): someone changed it since it was read; read it again and retry.',
  },
  override_rule_violation: {
    status: 422,
    meaning:
      'A permission override breaks a resolution rule; `rule` names it (structural_policy, permission_manage_pinned, org_policy_needs_org_ref, auth_me_never_disabled, unknown_action, unknown_route, unknown_policy).',
  },
  route_disabled: { status: 403, meaning: 'The route is switched off by a `disabled` override; nobody may call it.' },
  invalid_org_header: { status: 400, meaning: 'The `X-Org-Id` header is not an organization id or slug (or was sent twice).' },
  org_not_found: {
    status: 404,
    meaning:
      'The organization named by `{org_ref}` or `X-Org-Id` does not exist or is deactivated; answered to platform admins only (anyone else is refused with 403 `forbidden`, alike for a foreign organization and a nonexistent one).',
  },
  org_slug_retired: {
    status: 409,
    meaning:
      "The slug was a deleted organization's: it is never given to another, since what it names outside the database (the registry's `orgs/<slug>/…` images) outlives the organization; `slug` names it.",
  },
  org_header_mismatch: { status: 400, meaning: "The `X-Org-Id` header names another organization than the path's `{org_ref}`." },
  not_implemented: { status: 501, meaning: 'The route is in the catalogue but its domain is not built yet; `action` names it.' },
  database_unavailable: { status: 503, meaning: 'The database does not answer.' },
  shutting_down: { status: 503, meaning: 'The instance is shutting down and takes no new work.' },
  internal_error: { status: 500, meaning: 'An unexpected error; the request id finds it in the logs.' },
  restricted_option: {
    status: 403,
    meaning:
      'The request uses an option only a platform admin may use (handler-level narrowing); `restriction` names it (container_host_access, egress_widening, force_manual_run).',
  },
  shared_read_only: {
    status: 403,
    meaning: 'The resource belongs to the shared organization: every tenant may read it, only the shared organization may change it.',
  },
  secret_backend_unavailable: {
    status: 503,
    meaning: 'The secret backend holding the values failed or answered nothing usable; retry later.',
  },
  unsupported_backend_type: {
    status: 422,
    meaning: 'The secret backend type is known but this build cannot serve it (e.g. `vault`); `backend_type` names it.',
  },
  webhook_auth_failed: {
    status: 401,
    meaning:
      'The webhook trigger is not authenticated: `reason` is missing_headers, bad_timestamp, stale_timestamp, bad_signature or bad_bearer.',
  },
  source_not_allowed: { status: 403, meaning: "The caller's address is outside the webhook endpoint's `allowed_source_ips`." },
  no_linked_flow: { status: 422, meaning: 'The webhook endpoint targets no flow (its flow row was removed).' },
  rate_limited: {
    status: 429,
    meaning: 'Too many requests: a webhook ingress or delivery limit (`limit` names which); retry after `Retry-After` seconds.',
  },
  duplicate_delivery: {
    status: 409,
    meaning: 'The `X-Idempotency-Key` was already accepted for this endpoint; `delivery_id` and `run_id` name the original.',
  },
  org_header_required: {
    status: 400,
    meaning: 'The route requires an `X-Org-Id` header naming the organization of the path (creating an IdP mapping).',
  },
  nothing_to_commit: { status: 409, meaning: "The flow's draft is the same as its newest committed version: a commit would add nothing." },
  flow_not_found: {
    status: 404,
    meaning: 'Run admission: the flow does not exist, is deleted, or belongs to neither the organization nor the shared one.',
    otherStatus: { status: 422, where: "the webhook trigger, where the flow is the endpoint's configuration" },
  },
  flow_not_committed: { status: 400, meaning: 'Run admission: the flow has no committed version to run.' },
  flow_version_not_found: { status: 404, meaning: 'Run admission: the requested (or pinned) version does not exist on the flow.' },
  unknown_device_reference: {
    status: 400,
    meaning:
      'Run admission: a target names no live device of the organization (or, by UUID, of the shared organization); `missing` lists `{role, device_id}`.',
  },
  too_many_targets: {
    status: 422,
    meaning:
      'A run names more device targets than SERVICE_INVENTORY_MAX_RUN_TARGETS allows, all roles together; refused before any lookup.',
  },
  manual_runs_disabled: {
    status: 409,
    meaning:
      "The flow's manual runs are switched off: `POST /runs` refuses it (a platform admin may pass `force=true`); schedules and webhooks still start it.",
  },
  invalid_run_state: {
    status: 409,
    meaning:
      "The run's status does not allow this transition (for example cancelling a finished run); `current_status` gives the current one.",
  },
  run_not_held: {
    status: 409,
    meaning:
      'A worker callback names a worker and attempt (`X-Worker-Id`, `X-Run-Attempt`) that no longer hold the run: it was reaped, requeued or claimed again, or its lease ended.',
  },
  artifact_too_large: {
    status: 413,
    meaning: 'A run artifact is larger than SERVICE_ARTIFACT_MAX_BYTES (`limit`); nothing of it is stored.',
  },
  run_artifacts_too_large: {
    status: 413,
    meaning:
      "The run's artifacts together would pass SERVICE_ARTIFACT_RUN_MAX_BYTES (`limit`, `used`: the bytes the run holds already); nothing of the upload is stored.",
  },
  artifact_name_taken: {
    status: 409,
    meaning: 'The run already has an artifact of this `name` with other content (the same bytes again answer the stored artifact).',
  },
  artifact_unavailable: {
    status: 503,
    meaning:
      "The artifact's bytes cannot be read on this instance: its file is missing, it is kept in another daemon's data directory (the `file` store or a local file repository, with several daemons that share none), or its file repository's store does not answer.",
  },
  artifact_store_unavailable: {
    status: 503,
    meaning:
      "The file repository that keeps the run's artifacts (its S3 store) failed or did not answer during an upload; nothing of the upload is kept. Retry later.",
  },
  event_batch_too_large: {
    status: 413,
    meaning: 'A run event batch holds more events than the limit (`limit`, `count`); nothing of it is written.',
  },
  event_too_large: {
    status: 413,
    meaning: 'An event of a run event batch is larger, as JSON, than the limit (`limit`, `index`); nothing of the batch is written.',
  },
  monitor_closed: {
    status: 409,
    meaning:
      'The monitor is closed (by its worker, by finalizing its run, or by the run ending): it takes no more samples or changes; `monitor_id` names it.',
  },
  monitor_batch_too_large: {
    status: 413,
    meaning: 'A monitor sample batch holds more samples than the limit (`limit`, `count`); nothing of it is written.',
  },
  monitor_sample_too_large: {
    status: 413,
    meaning: "A sample's `data` is larger, as JSON, than the limit (`limit`, `index`); nothing of the batch is written.",
  },
  monitor_sample_limit: {
    status: 413,
    meaning:
      'The batch would take a monitor past the samples it may hold (SERVICE_MONITOR_MAX_SAMPLES: `limit`, `monitor_id`, `sample_count`); nothing of the batch is written.',
  },
  monitor_run_limit: {
    status: 413,
    meaning:
      'The run has opened as many monitors as it may (SERVICE_MONITOR_MAX_PER_RUN: `limit`, `run_id`); nothing is created. A retried open of a key the run has is still answered.',
  },
  invalid_step_run_state: {
    status: 409,
    meaning: "The step run's status does not allow this move (a finished step run stays as it is); `current_status` gives the current one.",
  },
  invalid_payload: {
    status: 422,
    meaning:
      'Webhook trigger: the body is not a JSON object of the accepted shape (not UTF-8 JSON, `params` not an object, `related_targets` not an object of arrays, a malformed device reference); `errors` gives the path.',
  },
  external_id_not_text: {
    status: 422,
    meaning: "Webhook trigger: a provider reference's `external_id` is a JSON number; send it as a string.",
  },
  too_many_provider_references: {
    status: 422,
    meaning: 'Webhook trigger: more than 100 `{provider_id, external_id}` references, all roles together; `limit` and `count` say so.',
  },
  provider_managed: {
    status: 409,
    meaning:
      "The site or device is provider-sourced: the fields named in `fields` belong to its inventory provider and change only through provider sync; a device's local annotations go through `overlay` (PATCH /devices/{device_id}/overlay).",
  },
  site_in_use: {
    status: 409,
    meaning: 'The site still has live child sites or devices (`children`, `devices` count them); move or delete them first.',
  },
  separation_of_duties: {
    status: 403,
    meaning:
      'The caller started the run this approval gates, and the approval step does not allow its starter to decide (`allow_starter`); another person must.',
  },
  approver_role_required: {
    status: 403,
    meaning:
      "The approval step names an organization role (`approver_role`) that the caller's membership in the run's organization does not hold; platform admins are not exempt.",
  },
  approval_not_pending: {
    status: 409,
    meaning:
      'The approval is no longer pending (approved, rejected, expired or cancelled): it takes no more decisions or changes; `current_status` gives the current one.',
  },
  already_decided: {
    status: 409,
    meaning: 'The caller has already decided on this approval; each person decides once.',
  },
  invalid_cron: {
    status: 422,
    meaning:
      "A schedule's cron expression does not parse: `field` names the part at fault (`minute`, `hour`, `day_of_month`, `month`, `day_of_week`, or `expression` for the shape), `errors[].path` is `cron`.",
  },
  unknown_timezone: {
    status: 422,
    meaning: "A schedule's `timezone` is not an IANA time zone this runtime knows; `errors[].path` is `timezone`.",
  },
  schedule_not_due: {
    status: 409,
    meaning: "An external scheduler's trigger names a `due_at` still in the future; `next_fire_at` gives the schedule's.",
  },
  schedule_fire_stale: {
    status: 409,
    meaning:
      "An external scheduler's trigger names a `due_at` that is not the schedule's next fire time (already fired by another scheduler, or the schedule changed); `next_fire_at` gives the current one.",
  },
  // vars (issue 22): the flow interface
  option_source_unavailable: {
    status: 422,
    meaning:
      'A launch form asked for options of a source this build lists but does not resolve yet (`kind`: inventory objects until their domain is built).',
  },
  // Git repositories and flow git sync (docs/git.md).
  git_url_refused: {
    status: 422,
    meaning:
      'A git repository URL the daemon will not use: `reason` is `dangerous_transport` (`ext::`, `fd::` and other remote helpers), `local_path` (a path or `file://`, unless SERVICE_GIT_ALLOW_FILE_URLS), `embedded_credentials` (user:password@ in the URL: use `auth`), or `unsupported_scheme`; `errors[].path` is `url`.',
  },
  git_remote_failed: {
    status: 502,
    meaning:
      'The git remote could not be used: `reason` is `authentication_failed`, `unreachable`, `timeout`, `credential_unavailable` (the secret reference does not resolve), `address_not_allowed` (its host is not public and not in SERVICE_OUTBOUND_ALLOWED_NETWORKS) or `failed`. No credential is ever in the detail.',
  },
  git_branch_not_found: { status: 404, meaning: 'The branch (`branch`) does not exist on the remote.' },
  git_path_not_found: { status: 404, meaning: 'No file or folder at `path` on the branch (`branch`, `commit_sha`).' },
  git_file_too_large: {
    status: 422,
    meaning: 'The file at `path` on the branch is larger than the daemon reads from git (`size`, `limit`: 16 MiB).',
  },
  git_path_conflict: {
    status: 409,
    meaning:
      "A push cannot write the flow's file at `path` on the branch: a folder is there, or a file stands where one of its folders would be (`branch`, `commit_sha`, `path`).",
  },
  flow_not_linked: { status: 409, meaning: 'The flow is not linked to a git repository: `PATCH /flows/{flow_id}/git` links it.' },
  draft_dirty: {
    status: 409,
    meaning:
      "A pull would overwrite a draft with changes that are neither committed nor from git's last sync; send `force: true` to overwrite them.",
  },
  non_fast_forward: {
    status: 409,
    meaning: 'The remote branch moved ahead of what the daemon fetched; pull first, or push with `force: true` to overwrite it.',
  },
  invalid_flow_yaml: {
    status: 422,
    meaning:
      'The flow file from git is not valid YAML or not a valid flow: `line` and `column` (1-based) locate it in the file, `path` is the JSON path of the member at fault (empty for a YAML syntax error); `errors[]` lists each. Nothing was changed.',
  },
  // Inventory providers (docs/inventory-providers.md).
  unknown_provider_type: {
    status: 422,
    meaning: 'The inventory provider `type` names no plugin; `types` lists those there are (GET /inventory/plugins).',
  },
  invalid_provider_url: {
    status: 422,
    meaning:
      "An inventory provider's `config.url` is not an absolute http(s) URL without credentials, query or fragment; `field` names it.",
  },
  provider_id_mismatch: {
    status: 422,
    meaning:
      'The `provider_id` given is not the one the type and name make in this organization (`<type>:<name>`, or `<type>:<name>:<org_id>` outside the default organization); `expected` gives it.',
  },
  invalid_provider_config: {
    status: 422,
    meaning:
      "An inventory provider's `config` does not satisfy its plugin's schema, or its YAML document does not parse; `errors` lists each problem with its path (and `line`/`column` in the document).",
  },
  inventory_sync_running: {
    status: 409,
    meaning: 'A sync of this inventory provider is already running (on this or another instance); `sync_id` names it.',
  },
  provider_disabled: { status: 409, meaning: 'The inventory provider is disabled: enable it before syncing or discovering.' },
  provider_request_failed: {
    status: 502,
    meaning:
      'The inventory provider could not be asked, or answered an error: `reason` says why (`auth_failed`, `upstream_status`, `timeout`, `address_not_allowed`, `connect_failed`, `malformed_answer`, …); a failed sync also names `sync_id`.',
  },
  // notifications (issue 24)
  notification_kind_unknown: {
    status: 422,
    meaning:
      'A notification destination names a `kind` this service does not send to; `kinds` lists those it does (`GET /notifications/destination-types`).',
  },
  notification_secret_reference_refused: {
    status: 422,
    meaning:
      "A notification destination's secret reference does not resolve in the active organization: `field` names it (`config.<field>`), `reason` says why (`malformed`, `other_organization`, `unknown_scheme`, `not_found`, `key_missing`, `key_ambiguous`).",
  },
  // Files and file repositories (issue 22, part files; docs/files.md)
  invalid_file_path: {
    status: 422,
    meaning:
      'A file name or folder is not a safe relative path: `field` names it, `reason` says why (`traversal`, `absolute`, `control_character`, `backslash`, `empty_segment`, `empty`, `too_long`).',
  },
  file_too_large: {
    status: 413,
    meaning: 'A file is larger than SERVICE_FILE_MAX_BYTES (`limit`); nothing of it is stored.',
  },
  file_exists: {
    status: 409,
    meaning: 'The folder already holds a file of this name (`path`); upload with `overwrite=true` to replace its bytes.',
  },
  checksum_mismatch: {
    status: 422,
    meaning: 'The bytes received do not have the SHA-256 the request gave (`expected`, `actual`); nothing of them is kept.',
  },
  file_in_use: {
    status: 409,
    meaning:
      'Flows, unfinished runs or inventory providers use the file (`flows`, `runs`, `inventory_providers`; a bulk delete also lists each used file under `files`); `force=true` deletes it anyway.',
  },
  file_repository_not_empty: {
    status: 409,
    meaning:
      'The repository still holds files (`file_count`) or the bytes of run artifacts (`artifact_count`, gone when their runs are purged); delete or move them first.',
  },
  folder_exists: {
    status: 409,
    meaning: 'The repository already has this folder (`path`), or a rename would land on one.',
  },
  folder_not_empty: {
    status: 409,
    meaning: 'The folder holds files or folders (`file_count`); `force=true` removes them with it.',
  },
  file_store_unavailable: {
    status: 503,
    meaning:
      "The file repository's store cannot take the bytes now (a file's or a flow attachment's): S3 does not answer, or the repository's credentials no longer resolve (see its test-connection); nothing of the upload is kept.",
  },
  file_unavailable: {
    status: 503,
    meaning: "The file's bytes cannot be read from its repository now: the store does not answer, or the bytes are missing there.",
  },
  signed_url_invalid: {
    status: 403,
    meaning:
      "A presigned URL's signature does not match: altered, made for another file, method or key, or the file's bytes changed since it was made.",
  },
  signed_url_expired: {
    status: 403,
    meaning: 'A presigned URL is past its `expires` time.',
  },
  // Binary artifacts (issue 22, part B; docs/binary-artifacts.md)
  bulk_download_too_large: {
    status: 413,
    meaning:
      'A bulk download names more artifacts (`limit_items`) or more bytes (`limit_bytes`) than one zip may carry; nothing is sent. Ask for fewer.',
  },
  secret_reference_unusable: {
    status: 422,
    meaning:
      "A repository's credential reference does not resolve in its organization (`field`, `reason`: malformed, other_organization, unknown_scheme, not_found, key_missing, key_ambiguous).",
  },
  import_refused: {
    status: 422,
    meaning:
      'A file import names a URL the daemon will not fetch (`reason`: malformed_url, scheme_not_allowed, address_not_allowed, too_many_redirects): only http(s), and no private, loopback or link-local address unless SERVICE_OUTBOUND_ALLOWED_NETWORKS allows it, at the first hop or any redirect.',
  },
  import_failed: {
    status: 502,
    meaning:
      'A file import could not fetch its URL (`reason`: dns_failed, connect_failed, timeout, tls_failed, upstream_status with `upstream_status`); nothing is kept.',
  },
  // iac: run tokens and the managed IaC state
  step_not_running: {
    status: 409,
    meaning:
      "A run token is minted only for a step running in the attempt the worker holds; `step_id` names the step, `current_status` its step run's status (null: no step run in this attempt).",
  },
  invalid_run_token: {
    status: 401,
    meaning:
      'HTTP Basic on a state backend route whose password is not a live run token for the state backend (unknown, revoked, expired, its step or run ended); answered with a Basic challenge.',
  },
  run_token_scope: {
    status: 403,
    meaning: 'A run token acts only on the one IaC state it was minted for; this request names another.',
  },
  iac_state_locked: {
    status: 423,
    meaning:
      "The IaC state is locked by another holder (a lock, a write without `?ID=`, import, rollback, delete); the body carries the holder's lock info at the top level (`ID`, `Operation`, `Info`, `Who`, `Version`, `Created`, `Path`) as Terraform reads it.",
  },
  force_unlock_forbidden: {
    status: 403,
    meaning:
      "An empty-body unlock of an IaC state forces another holder's lock: that needs `iac_state:manage` (its effective policy), and a run token never may.",
  },
  iac_lock_mismatch: {
    status: 409,
    meaning:
      "A state write (`?ID=`) or unlock names a lock that is not the one held (or the state is not locked); the holder's lock info, if any, at the top level as for `iac_state_locked`.",
  },
  content_md5_mismatch: {
    status: 400,
    meaning: 'The `Content-MD5` header (base64 MD5 of the body, as Terraform sends it) does not match the body; nothing was written.',
  },
  invalid_state_document: {
    status: 422,
    meaning: 'A state document must be a JSON object whose `serial` (when present) is a whole number and `lineage` a string.',
  },
  iac_state_unreadable: {
    status: 500,
    meaning:
      'A state version cannot be sealed or opened: the secrets key is not verified yet, is not the key it was sealed under, or the stored bytes were changed.',
  },
  // registry (issue 26)
  registry_not_configured: {
    status: 503,
    meaning: "The platform image registry's internal URL is not configured (SERVICE_REGISTRY_URL unset); the image routes cannot answer.",
  },
  registry_unavailable: {
    status: 503,
    meaning: "The platform image registry's API did not answer, or answered something unusable; retry later.",
  },
  // configuration exchange (issue 27)
  bundle_invalid: {
    status: 422,
    meaning:
      'A configuration bundle is not valid YAML or does not match the bundle schema; `errors` lists each `{path, line, column, message}`. Nothing was applied.',
  },
  stale_plan: {
    status: 409,
    meaning:
      'The rows a saved plan read have changed since it was made (its fingerprint no longer matches): plan again. Nothing was applied.',
  },
  operation_finished: {
    status: 409,
    meaning:
      'The configuration exchange operation has already finished (succeeded, failed or cancelled): it can no longer be cancelled; `current_status` says how it ended.',
  },
  plan_not_applicable: {
    status: 409,
    meaning: 'The operation named by `plan_id` is not a plan that succeeded (still queued or running, failed, cancelled, or not a plan).',
  },
  // Flow attachments (issue 22, last part A; docs/flow-attachments.md)
  attachment_exists: {
    status: 409,
    meaning:
      'The flow already has an attachment at this path, or a file where the path needs a folder or a folder where it needs a file (`paths`); `overwrite=true` replaces a file at the same path.',
  },
  attachment_too_large: {
    status: 413,
    meaning:
      'An attachment is larger than SERVICE_ATTACHMENT_MAX_BYTES, or a bulk upload holds more than SERVICE_ATTACHMENT_BULK_MAX_FILES files or SERVICE_ATTACHMENT_BULK_MAX_BYTES bytes (`limit`, `what`: `file`, `files`, `bytes`); nothing of it is kept.',
  },
  attachment_archive_invalid: {
    status: 422,
    meaning:
      "A bulk upload's body is not a zip archive this daemon reads (`reason`), or an entry's path is not a safe relative path (`entry`).",
  },
  attachment_unavailable: {
    status: 503,
    meaning: "An attachment's bytes cannot be read from the file repository holding them now.",
  },
  // platform sync (issue 27)
  destructive_not_authorized: {
    status: 409,
    meaning:
      'A platform sync apply has destructive changes (deletes by prune) and no destructive authorization of the profile covers it at apply time; `reason` says why: `none`, `expired` or `revoked`.',
  },
  sync_conflict: {
    status: 409,
    meaning:
      'A platform sync plan has changes whose target items changed locally since the last apply and that the source changed too; `change_ids` lists the unresolved ones (resolve each with take_source or keep_target). Nothing was applied.',
  },
  sync_source_invalid: {
    status: 422,
    meaning:
      "A platform sync profile's source cannot give a bundle: its file is missing, too large or not UTF-8 text, or its token reference does not resolve; `reason` says which.",
  },
  sync_source_unavailable: {
    status: 502,
    meaning:
      'The other installation a platform sync profile reads from cannot be reached, refused the export, or its export failed or did not finish in time; `reason` says which.',
  },
  bundle_reference_unresolved: {
    status: 422,
    meaning:
      "An applied bundle item names another row (`family`, `key`, `field`, `reference`: a site's parent, a device's site, ...) that neither the bundle nor the target installation holds. Nothing was applied.",
  },
  bundle_item_refused: {
    status: 409,
    meaning:
      'An applied bundle item cannot be written on the target as it stands (`family`, `key`, `reason`: e.g. `provider_managed` for a name a provider-sourced row holds, `in_use` for a pruned row others still use). Nothing was applied.',
  },
} as const satisfies Record<string, ProblemCodeEntry>;

export type ProblemCode = keyof typeof PROBLEM_CODES;

export function problemCodeEntry(code: ProblemCode): ProblemCodeEntry {
  return PROBLEM_CODES[code];
}

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
