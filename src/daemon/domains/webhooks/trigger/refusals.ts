import type { ProblemCode } from '../../../../shared/api/problem-codes.js';
import { Problem, problem } from '../../../../shared/api/problem.js';

/** How the trigger answers and records one refusal. */
export interface RefusalRow {
  readonly status: number;
  readonly code: ProblemCode;
  /** Whether the delivery journal keeps a row of it (with this status). */
  readonly journal: boolean;
  /** Whether a `webhook.rejected` entry records it: possible only once the endpoint is known. */
  readonly audit: boolean;
  /** The journal row's `signature_valid`: whether authentication had passed when it was refused. */
  readonly signatureValid: boolean;
}

/**
 * Every refusal of `POST /hooks/{path_token}`, by reason (the `reason` of its `webhook.rejected` entry and
 * of its log line), in the order of the trigger's steps (trigger-steps.ts). The one place a refusal's status
 * is decided: a Problem made elsewhere (the body reader, the body rules, run admission) is answered with
 * its row's status, so run admission's 404 `flow_not_found` is a webhook's 422 here. A row's status is the
 * code table's (src/shared/api/problem-codes.ts) or the other status that table allows it (`withStatus`
 * refuses any other), so the two tables cannot disagree.
 */
export const REFUSALS = {
  // reason: answer (status, code); journaled; audited as `webhook.rejected`; the journal's `signature_valid`
  // Before the endpoint is known: answered only, with no endpoint to journal or audit against.
  global_backstop: { status: 429, code: 'rate_limited', journal: false, audit: false, signatureValid: false },
  unknown_endpoint: { status: 404, code: 'resource_not_found', journal: false, audit: false, signatureValid: false },
  endpoint_ingress: { status: 429, code: 'rate_limited', journal: false, audit: false, signatureValid: false },
  // Once it is known: a `webhook.rejected` entry each, and a journal row unless the spec keeps it out.
  payload_too_large: { status: 413, code: 'payload_too_large', journal: true, audit: true, signatureValid: false },
  secret_missing: { status: 503, code: 'secret_backend_unavailable', journal: false, audit: true, signatureValid: false },
  secret_backend_unavailable: { status: 503, code: 'secret_backend_unavailable', journal: false, audit: true, signatureValid: false },
  secret_unusable: { status: 503, code: 'secret_backend_unavailable', journal: false, audit: true, signatureValid: false },
  ambiguous_credentials: { status: 400, code: 'ambiguous_credentials', journal: true, audit: true, signatureValid: false },
  missing_headers: { status: 401, code: 'webhook_auth_failed', journal: true, audit: true, signatureValid: false },
  bad_timestamp: { status: 401, code: 'webhook_auth_failed', journal: true, audit: true, signatureValid: false },
  stale_timestamp: { status: 401, code: 'webhook_auth_failed', journal: true, audit: true, signatureValid: false },
  bad_signature: { status: 401, code: 'webhook_auth_failed', journal: true, audit: true, signatureValid: false },
  bad_bearer: { status: 401, code: 'webhook_auth_failed', journal: true, audit: true, signatureValid: false },
  source_not_allowed: { status: 403, code: 'source_not_allowed', journal: true, audit: true, signatureValid: true },
  invalid_idempotency_key: { status: 422, code: 'invalid_payload', journal: true, audit: true, signatureValid: true },
  duplicate: { status: 409, code: 'duplicate_delivery', journal: true, audit: true, signatureValid: true },
  // The delivery limit: its reason is the code's, as its audit entries have always named it.
  rate_limited: { status: 429, code: 'rate_limited', journal: false, audit: true, signatureValid: true },
  invalid_payload: { status: 422, code: 'invalid_payload', journal: true, audit: true, signatureValid: true },
  external_id_not_text: { status: 422, code: 'external_id_not_text', journal: true, audit: true, signatureValid: true },
  too_many_provider_references: { status: 422, code: 'too_many_provider_references', journal: true, audit: true, signatureValid: true },
  too_many_targets: { status: 422, code: 'too_many_targets', journal: true, audit: true, signatureValid: true },
  unknown_device_reference: { status: 400, code: 'unknown_device_reference', journal: true, audit: true, signatureValid: true },
  no_linked_flow: { status: 422, code: 'no_linked_flow', journal: true, audit: true, signatureValid: true },
  // Run admission's refusals, by their code. For a webhook the flow is the endpoint's configuration, not the
  // caller's input: the spec answers 422 where admission answers 404.
  flow_not_found: { status: 422, code: 'flow_not_found', journal: true, audit: true, signatureValid: true },
  flow_not_committed: { status: 400, code: 'flow_not_committed', journal: true, audit: true, signatureValid: true },
  flow_version_not_found: { status: 404, code: 'flow_version_not_found', journal: true, audit: true, signatureValid: true },
  validation_failed: { status: 422, code: 'validation_failed', journal: true, audit: true, signatureValid: true },
} as const satisfies Record<string, RefusalRow>;

export type RefusalReason = keyof typeof REFUSALS;

/** A refusal: why, how it is answered and recorded, and the answer. Thrown by the trigger's steps. */
export class Refusal {
  constructor(
    readonly reason: string,
    readonly row: RefusalRow,
    readonly problem: Problem,
  ) {}
}

function isReason(reason: string): reason is RefusalReason {
  return Object.hasOwn(REFUSALS, reason);
}

/** The refusal `reason`, answered with its row's status and code. */
export function refuse(
  reason: RefusalReason,
  detail?: string,
  extensions?: Readonly<Record<string, unknown>>,
  headers?: Readonly<Record<string, string>>,
): Refusal {
  const row = REFUSALS[reason];
  return new Refusal(reason, row, problem(row.code, detail, extensions, headers).withStatus(row.status));
}

/** A Problem made elsewhere, refused as `reason`: with the row's status and code where they differ. */
export function refuseAs(reason: RefusalReason, made: Problem): Refusal {
  const row = REFUSALS[reason];
  const answer = row.code === made.code ? made : problem(row.code, made.message, made.extensions, made.headers);
  return new Refusal(reason, row, answer.withStatus(row.status));
}

/**
 * What a step's error is: a refusal, a Problem of run admission (refused by its code; one the table does
 * not list keeps admission's answer and is journaled like the others), or undefined for a fault.
 */
export function refusalOf(error: unknown): Refusal | undefined {
  if (error instanceof Refusal) return error;
  if (!(error instanceof Problem)) return undefined;
  if (isReason(error.code)) return refuseAs(error.code, error);
  return new Refusal(error.code, { status: error.status, code: error.code, journal: true, audit: true, signatureValid: true }, error);
}
