import type { Knex } from 'knex';
import type { TriggerSource } from '../../../shared/api/runs.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AdmissionCompanion } from './admission-companion.js';
import type { RunView } from './run-view.js';

export type { TriggerSource } from '../../../shared/api/runs.js';

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
  /**
   * The catalogue action recorded on the `run.started` entry; by default the trigger's own
   * (`run:trigger`, `schedule:trigger`, `webhook:receive`).
   */
  readonly action?: string;
  /**
   * Manual triggers only: admit even when the flow's manual runs are switched off (`?force=true` of a
   * platform admin, checked by the caller). Other triggers ignore the switch altogether.
   */
  readonly forceManual?: boolean;
}

export interface AdmittedRun {
  readonly id: string;
  readonly org_id: string;
  readonly flow_id: string;
  readonly flow_name: string;
  readonly flow_version: number;
  readonly workflow_id: string;
  readonly status: 'queued';
  /** The run as stored: the same shape `GET /runs/{run_id}` answers. */
  readonly run: RunView;
}

/**
 * The one run admission every trigger path uses. `trx` is the caller's transaction (a webhook writes its
 * delivery in the same one), or the plain database handle when the caller has nothing else to write:
 * admission reads once and writes the run with its `run.started` entry in one statement, so it needs no
 * transaction of its own. It throws coded Problems:
 *
 * | Situation | Status | Code |
 * |---|---|---|
 * | more targets than SERVICE_INVENTORY_MAX_RUN_TARGETS (before any query) | 422 | `too_many_targets` |
 * | flow unknown, soft-deleted, or neither in the organization nor the shared one | 404 | `flow_not_found` |
 * | manual trigger, manual runs switched off, no force | 409 | `manual_runs_disabled` |
 * | no version given and the flow was never committed | 400 | `flow_not_committed` |
 * | the given version does not exist on the flow | 404 | `flow_version_not_found` |
 * | params or targets do not satisfy the version's inputs and target roles | 422 | `validation_failed` (`errors[].path` `params.<name>`, `targets.<role>`) |
 * | a device id names no live device of the organization or the shared one | 400 | `unknown_device_reference` (`missing: [{role, device_id}]`) |
 *
 * The same for every trigger path; a path may answer a code with a status of its own (for a webhook the
 * flow is the endpoint's configuration: `flow_not_found` is 422, in the trigger's refusal table).
 */
export interface RunAdmission {
  /**
   * `companion`, when given, adds rows of the trigger path's own to the run's one statement, so they commit
   * with the run and need no transaction (the webhook's delivery journal row and its audit entry; see
   * admission-companion.ts).
   */
  admit(
    trx: Knex | Knex.Transaction,
    request: AdmissionRequest,
    companion?: (run: AdmissionFacts) => AdmissionCompanion,
  ): Promise<AdmittedRun>;

  /**
   * Every refusal `admit` would answer for `request` (the table above, devices included), writing nothing:
   * for a trigger path that stores a request to admit later (a schedule), so bad input is refused when it
   * is stored rather than at every fire.
   */
  vet(db: Knex | Knex.Transaction, request: AdmissionRequest): Promise<VettedRun>;
}

/** What admission would run for a request it accepts: the flow's version, and the params and targets as it would store them. */
export interface VettedRun {
  readonly flow_id: string;
  readonly flow_name: string;
  readonly flow_version: number;
  readonly params: Record<string, unknown>;
  readonly targets: Record<string, string[]>;
}

/** What a companion may refer to: the run about to be written. */
export interface AdmissionFacts {
  readonly id: string;
  readonly flow_id: string;
  readonly flow_version: number;
}

/** The companion's gate returned no row: nothing was written. */
export class AdmissionGateClosed extends Error {
  constructor() {
    super('the admission gate returned no row');
    this.name = 'AdmissionGateClosed';
  }
}
