import type { Assignment } from '../../shared/api/workers.js';
import type { FlowStep } from '../../shared/flows/definition.js';
import type { NotificationDelivery } from '../../shared/notifications/delivery.js';
import type { RunCallbacks } from '../callbacks.js';
import type { RunMonitors } from '../monitoring/run-monitors.js';

/** Everything a handler sees of the step it runs. */
export interface StepContext {
  readonly run: Pick<
    Assignment,
    'run_id' | 'attempt' | 'name' | 'flow_name' | 'workflow_id' | 'org_id' | 'params' | 'targets' | 'target_devices'
  >;
  readonly step: FlowStep;
  /** The step's configuration with its templates rendered. */
  readonly config: Readonly<Record<string, unknown>>;
  /** The configuration as written (a `flow.run` literal mapping is passed on unrendered). */
  readonly rawConfig: Readonly<Record<string, unknown>>;
  /** Aborted when the run is cancelled, lost or the worker stops; `signal.reason` says which (a StopReason). */
  readonly signal: AbortSignal;
  /** A worker event of this step (`log`, …), sent in the run's next batch. */
  emit(type: string, data: Record<string, unknown>): void;
  /** `flow.run` says when it only waits for its child, so the run takes no slot meanwhile. */
  waitingOnChild(waiting: boolean): void;
  /** Merges into the run's variables and stores them (`PUT …/run-vars`). */
  setRunVars(vars: Record<string, unknown>): Promise<void>;
  readonly callbacks: RunCallbacks;
  /** The run's background monitors (`monitor.*`), which outlive the step that starts them. */
  readonly monitors: RunMonitors;
  /** `flow.notify` sends through it, behind the worker's outbound guard. */
  readonly notifications: NotificationDelivery;
}

export interface StepResult {
  readonly outputs: Record<string, unknown>;
  readonly summary?: string;
}

export type StepHandlerRun = (context: StepContext) => Promise<StepResult>;

/** Why a run's execution is being stopped from outside. */
export type StopReason = 'cancel' | 'lost' | 'shutdown';

/** A step that failed for a reason the handler names: the step run's and (first failure) the run's error. */
export class StepFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'StepFailure';
  }
}
