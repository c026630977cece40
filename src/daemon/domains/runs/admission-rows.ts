import type { TriggerSource } from './run-admission.js';

/** What admission writes for one run, shared by its repository and the statement it runs. */

/** The devices a run will target: admission writes the run only if every one is live where it may be used. */
export interface TargetDevices {
  readonly orgId: string;
  /** Distinct, lower-case UUIDs. */
  readonly ids: readonly string[];
}

export interface NewRun {
  readonly id: string;
  readonly org_id: string;
  readonly flow_id: string;
  readonly flow_version: number;
  readonly flow_name: string;
  readonly name: string;
  readonly params: Record<string, unknown>;
  readonly targets: Record<string, string[]>;
  readonly trigger_source: TriggerSource;
  readonly trigger_details: Record<string, unknown>;
  readonly workflow_id: string;
  readonly created_by: string | null;
}
