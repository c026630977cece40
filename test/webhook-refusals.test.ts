import { describe, expect, it } from 'vitest';
import { REFUSALS, refuseAs, refusalOf, type RefusalReason, type RefusalRow } from '../src/daemon/domains/webhooks/trigger/refusals.js';
import { Problem } from '../src/shared/api/problem.js';
import { decodeTriggerBody, parseTriggerBody, resolveTargets, type TriggerBodyFailure } from '../src/shared/webhooks/trigger-body.js';

/**
 * The trigger's refusal table against the spec (webhooks-and-step-handlers.md, "Errors", "Limits",
 * "Trigger authentication") and docs/webhooks.md's step table: every reason's status, code, whether the
 * journal keeps it and its `signature_valid`, and whether it is audited (once the endpoint is known).
 */
type Expected = [status: number, code: string, journal: boolean, signatureValid: boolean];
const ANSWERED_ONLY: Partial<Record<RefusalReason, Expected>> = {
  global_backstop: [429, 'rate_limited', false, false],
  unknown_endpoint: [404, 'resource_not_found', false, false],
  endpoint_ingress: [429, 'rate_limited', false, false],
};
const RECORDED: Partial<Record<RefusalReason, Expected>> = {
  payload_too_large: [413, 'payload_too_large', true, false],
  // "no delivery record is written for a backend failure"
  secret_missing: [503, 'secret_backend_unavailable', false, false],
  secret_backend_unavailable: [503, 'secret_backend_unavailable', false, false],
  secret_unusable: [503, 'secret_backend_unavailable', false, false],
  ambiguous_credentials: [400, 'ambiguous_credentials', true, false],
  missing_headers: [401, 'webhook_auth_failed', true, false],
  bad_timestamp: [401, 'webhook_auth_failed', true, false],
  stale_timestamp: [401, 'webhook_auth_failed', true, false],
  bad_signature: [401, 'webhook_auth_failed', true, false],
  bad_bearer: [401, 'webhook_auth_failed', true, false],
  source_not_allowed: [403, 'source_not_allowed', true, true],
  invalid_idempotency_key: [422, 'invalid_payload', true, true],
  duplicate: [409, 'duplicate_delivery', true, true],
  // The delivery limit: audited, not journaled.
  rate_limited: [429, 'rate_limited', false, true],
  invalid_payload: [422, 'invalid_payload', true, true],
  external_id_not_text: [422, 'external_id_not_text', true, true],
  too_many_provider_references: [422, 'too_many_provider_references', true, true],
  too_many_targets: [422, 'too_many_targets', true, true],
  unknown_device_reference: [400, 'unknown_device_reference', true, true],
  no_linked_flow: [422, 'no_linked_flow', true, true],
  flow_not_found: [422, 'flow_not_found', true, true],
  flow_not_committed: [400, 'flow_not_committed', true, true],
  flow_version_not_found: [404, 'flow_version_not_found', true, true],
  validation_failed: [422, 'validation_failed', true, true],
};

const rowOf = ([status, code, journal, signatureValid]: Expected, audit: boolean): RefusalRow =>
  ({ status, code, journal, audit, signatureValid }) as RefusalRow;

describe('the refusal table', () => {
  it('lists every refusal once, each as the spec says', () => {
    expect(Object.keys(REFUSALS).sort()).toEqual([...Object.keys(ANSWERED_ONLY), ...Object.keys(RECORDED)].sort());
    for (const [reason, expected] of Object.entries(ANSWERED_ONLY))
      expect(REFUSALS[reason as RefusalReason], reason).toEqual(rowOf(expected, false));
    for (const [reason, expected] of Object.entries(RECORDED))
      expect(REFUSALS[reason as RefusalReason], reason).toEqual(rowOf(expected, true));
  });

  it("answers run admission's 404 flow_not_found with 422, keeping its detail and extensions", () => {
    const refusal = refusalOf(new Problem(404, 'flow_not_found', 'gone', { flow_id: 'f' }));
    expect(refusal?.problem).toMatchObject({ status: 422, code: 'flow_not_found', message: 'gone', extensions: { flow_id: 'f' } });
    expect(refusal?.reason).toBe('flow_not_found');
  });

  it("keeps a Problem that already has its row's answer, and the answer of one the table does not list", () => {
    const same = new Problem(400, 'flow_not_committed', 'never committed');
    expect(refuseAs('flow_not_committed', same).problem).toBe(same);
    const other = new Problem(409, 'conflict', 'retry');
    expect(refusalOf(other)).toMatchObject({
      reason: 'conflict',
      problem: other,
      row: { journal: true, audit: true, signatureValid: true },
    });
    expect(refusalOf(new Error('fault'))).toBeUndefined();
  });

  it('agrees with the body rules on the status of each of their refusals', () => {
    const failures: ({ readonly ok: true } | TriggerBodyFailure)[] = [
      decodeTriggerBody(Buffer.from('{')),
      parseTriggerBody({ related_targets: { r: [{ provider_id: 'p', external_id: 17 }] } }, { maxTargets: 10 }),
      parseTriggerBody(
        { related_targets: { r: Array.from({ length: 101 }, (_, i) => ({ provider_id: 'p', external_id: `${i}` })) } },
        { maxTargets: 1000 },
      ),
      parseTriggerBody(
        { related_targets: { r: ['6f1c6a52-5a1e-4a8e-9d4e-1b2c3d4e5f60', '7a2b3c4d-5e6f-4a1b-8c2d-3e4f5a6b7c8d'] } },
        { maxTargets: 1 },
      ),
    ];
    const body = parseTriggerBody({ related_targets: { r: ['6f1c6a52-5a1e-4a8e-9d4e-1b2c3d4e5f60'] } }, { maxTargets: 10 });
    if (!body.ok) throw new Error('refused');
    failures.push(resolveTargets(body, { liveIds: new Set(), byProviderRef: new Map() }));
    const codes = new Set<string>();
    for (const failure of failures) {
      if (failure.ok) throw new Error('accepted');
      codes.add(failure.code);
      expect(REFUSALS[failure.code].status, failure.code).toBe(failure.status);
    }
    expect(codes.size).toBe(5);
  });
});
