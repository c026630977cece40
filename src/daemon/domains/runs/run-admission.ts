import type { Knex } from 'knex';
import type { AuditContext } from '../../audit/audit-context.js';

export const TRIGGER_SOURCES = ['manual', 'schedule', 'webhook'] as const;
export type TriggerSource = (typeof TRIGGER_SOURCES)[number];

/** What a trigger path hands to admission. */
export interface AdmissionRequest {
  /** The organization the run belongs to (the caller's active organization, the endpoint's or the schedule's). */
  readonly orgId: string;
  readonly flowId: string;
  /** A committed version number, or null for the newest committed version. */
  readonly version: number | null;
  readonly params: Readonly<Record<string, unknown>>;
  /** Target role -> device UUIDs (in the organization or the shared organization). */
  readonly targets: Readonly<Record<string, readonly string[]>>;
  readonly trigger: {
    readonly source: TriggerSource;
    /** What started it: the webhook endpoint and delivery, the schedule, … (stored and audited). */
    readonly details?: Readonly<Record<string, unknown>>;
  };
  readonly name?: string;
  /** The request's audit context; `actor` overrides its actor (`system:webhook`). */
  readonly audit?: AuditContext;
  readonly actor?: { readonly sub: string; readonly username?: string };
  /** The creating user's subject, stored as `created_by`. */
  readonly createdBy?: string | null;
}

export interface AdmittedRun {
  readonly id: string;
  readonly org_id: string;
  readonly flow_id: string;
  readonly flow_name: string;
  readonly flow_version: number;
  readonly workflow_id: string;
  readonly status: 'queued';
}

/**
 * The one run admission every trigger path uses. `trx` is the caller's transaction (a webhook writes its
 * delivery in the same one); admission runs in it and throws coded Problems.
 */
export interface RunAdmission {
  admit(trx: Knex.Transaction, request: AdmissionRequest): Promise<AdmittedRun>;
}
