import type { Assignment } from '../shared/api/workers.js';
import type { FlowStep } from '../shared/flows/definition.js';
import { parseDefinitionShape } from '../shared/flows/definition-schema.js';
import { attachmentsContext, manifestLine, namesAttachments } from './attachments.js';
import { isInvalidRunState, isRunNotHeld, type RunCallbacks } from './callbacks.js';
import { executionOrder } from './dag.js';
import { EventBuffer } from './event-buffer.js';
import { RUNNABLE_HANDLERS, unavailableHandler } from './handlers/index.js';
import { StepFailure, type StepHandlerRun, type StopReason } from './handlers/types.js';
import type { WorkerLog } from './log.js';
import { DaemonAnswerError } from './http-client.js';
import type { MonitorCallbacks } from './monitor-callbacks.js';
import { RunMonitors } from './monitoring/run-monitors.js';
import { DEFAULT_OUTBOUND, stepOutbound, type StepOutbound } from './outbound.js';
import type { RunControl } from './run-control.js';
import { renderConfig, renderText, TemplateError } from './templates.js';

/**
 * How one execution of a run ended, for the worker's bookkeeping:
 * - `finished`: the run was ended through `PATCH /internal/runs/{id}` (succeeded or failed);
 * - `cancelled`: the daemon cancelled it; the current step run was ended `cancelled`, the run left alone;
 * - `lost`: the run is no longer this attempt's (`lost`, 409 `run_not_held`); nothing more was said;
 * - `released`: the worker is stopping; the run is to be handed back in the next heartbeat's `released`;
 * - `abandoned`: the daemon stayed unreachable past the retries; the lease will lapse and the reaper decide;
 * - `awaiting_approval`: a step's approval gate was asked for; the daemon took the run back (no lease, no
 *   worker), so the worker forgets it: a decision requeues it and the next assignment resumes it.
 */
export type RunOutcome = 'finished' | 'cancelled' | 'lost' | 'released' | 'abandoned' | 'awaiting_approval';

export interface ExecuteRunOptions {
  readonly assignment: Assignment;
  readonly callbacks: RunCallbacks;
  readonly control: RunControl;
  /** True once the worker drains: a run that has started no step is handed back rather than begun. */
  readonly draining: () => boolean;
  readonly log: WorkerLog;
  /** Told when the run starts or stops taking a slot (a `flow.run` waiting for its child takes none). */
  readonly onSlotChange?: () => void;
  /** The handler table (tests replace it); the worker's own by default. */
  readonly handlers?: ReadonlyMap<string, StepHandlerRun>;
  /** Where `monitor.*` steps record their monitors; without it they fail `monitors_unavailable`. */
  readonly monitors?: MonitorCallbacks;
  /** The worker's outbound guard; absent, the run gets its own with the daemon's defaults (public addresses only). */
  readonly outbound?: StepOutbound;
}

type ErrorInfo = { code: string; message: string } & Record<string, unknown>;

/** Executes the assignment's committed definition as a DAG, one step at a time, and reports it. */
export async function executeRun(options: ExecuteRunOptions): Promise<RunOutcome> {
  const events = new EventBuffer(options.callbacks);
  const monitors = new RunMonitors(options.monitors);
  const owned = options.outbound ? undefined : stepOutbound(DEFAULT_OUTBOUND);
  try {
    return await new RunExecution({ ...options, outbound: options.outbound ?? owned! }, events, monitors).run();
  } catch (error) {
    if (options.control.stopReason === 'lost' || isRunNotHeld(error)) return 'lost';
    options.log.error({ run_id: options.assignment.run_id, err: error }, 'run abandoned: the daemon could not be told');
    return 'abandoned';
  } finally {
    monitors.abandon();
    events.close();
    owned?.close();
  }
}

class RunExecution {
  /** Outputs of the steps done so far, earlier attempts' included (a run resumed after an approval). */
  readonly #stepOutputs: Record<string, { outputs: Record<string, unknown> }>;
  /** Steps an earlier attempt completed: not run again. */
  readonly #completed: ReadonlySet<string>;
  /** Steps whose gate was approved: their handler runs without asking again. */
  readonly #approved: ReadonlySet<string>;
  #runVars: Record<string, unknown>;
  /** The run's variables (`{{ variables.<name> }}`), read once before the first step when a step names one. */
  #variables: Record<string, unknown> = {};
  /** The run's attachments (`{{ attachments.… }}`), read once before the first step when a step names them. */
  #attachments: Record<string, unknown> = {};
  readonly #handlers: ReadonlyMap<string, StepHandlerRun>;
  constructor(
    private readonly options: ExecuteRunOptions & { readonly outbound: StepOutbound },
    private readonly events: EventBuffer,
    private readonly monitors: RunMonitors,
  ) {
    const { assignment } = options;
    this.#runVars = { ...assignment.run_vars };
    this.#handlers = options.handlers ?? RUNNABLE_HANDLERS;
    this.#stepOutputs = Object.fromEntries(
      Object.entries(assignment.completed_steps ?? {}).map(([id, { outputs }]) => [id, { outputs: { ...outputs } }]),
    );
    this.#completed = new Set(Object.keys(this.#stepOutputs));
    this.#approved = new Set(assignment.approved_steps ?? []);
  }

  async run(): Promise<RunOutcome> {
    const shape = parseDefinitionShape(this.options.assignment.definition);
    if (!shape.ok)
      return this.#failRun({ code: 'invalid_definition', message: 'the committed definition is malformed', issues: shape.issues });
    const { order, unreachable } = executionOrder(shape.definition);
    if (unreachable.length > 0) {
      return this.#failRun({ code: 'invalid_definition', message: 'steps on a cycle never run', steps: unreachable.map((s) => s.id) });
    }
    // Refused before any step runs (or any gate asks for approval): half a change made before finding the
    // rest cannot run helps nobody. Steps an earlier attempt completed are not run again.
    const refused = order.find((step) => !this.#completed.has(step.id) && this.#handlerOf(step) === undefined);
    if (!refused && namesVariables(order)) {
      const failed = await this.#loadVariables();
      if (failed) return failed;
    }
    if (!refused && namesAttachments(order)) {
      const failed = await this.#loadAttachments();
      if (failed) return failed;
    }

    let last: FlowStep | undefined;
    for (const step of refused ? [refused] : order) {
      if (!this.#completed.has(step.id)) {
        const stop = await this.#waitUntilRunnable();
        if (stop) return stop;
        const outcome =
          refused || !this.#gated(step) ? await this.#runStep(step, refused !== undefined) : await this.#requestApproval(step);
        if (outcome !== 'succeeded') return outcome;
      }
      last = step;
    }
    return this.#finish({ status: 'succeeded', outputs: last ? this.#stepOutputs[last.id]!.outputs : {} });
  }

  /** A step whose approval gate was not yet approved: the run asks for approval instead of running it. */
  #gated(step: FlowStep): boolean {
    return step.approval !== undefined && step.approval !== null && !this.#approved.has(step.id);
  }

  /**
   * Asks for the step's approval (`POST /internal/runs/{id}/approvals`) with its rendered message, after
   * the events so far; no step run is made for the gated step. The daemon moves the run to
   * `awaiting_approval` and ends its lease in the same transaction, so the execution ends here.
   */
  async #requestApproval(step: FlowStep): Promise<'succeeded' | RunOutcome> {
    const template = step.approval?.message;
    let message: string | undefined;
    try {
      message = template === undefined ? undefined : renderText(template, this.#templateContext(), 'approval.message');
    } catch (error) {
      return this.#failRun({ ...errorInfo(error), step_id: step.id });
    }
    await this.events.flush();
    try {
      const approval = await this.options.callbacks.requestApproval({ step_id: step.id, ...(message === undefined ? {} : { message }) });
      this.options.log.info({ run_id: this.options.assignment.run_id, step_id: step.id, approval_id: approval.id }, 'approval requested');
    } catch (error) {
      if (!isInvalidRunState(error)) throw error;
      return this.#movedUnderUs(error, () => this.#requestApproval(step));
    }
    return 'awaiting_approval';
  }

  /**
   * Reads the run's variables once. One whose secret could not be read is left out (a step naming it fails
   * with `template_error`) and reported as a `log` event by name and reason, never by value.
   */
  async #loadVariables(): Promise<RunOutcome | undefined> {
    const read = this.options.callbacks.runVariables;
    if (!read) return undefined;
    try {
      const answer = await read.call(this.options.callbacks);
      this.#variables = answer.variables;
      if (answer.unresolved.length > 0) {
        const names = answer.unresolved.map((u) => `${u.name} (${u.reason})`).join(', ');
        this.events.emit('log', { level: 'warn', message: `variables left out, their secret unreadable: ${names}` });
      }
      return undefined;
    } catch (error) {
      if (isRunNotHeld(error) || !(error instanceof DaemonAnswerError)) throw error;
      return this.#failRun({
        code: 'variables_unavailable',
        message: `the run's variables could not be read: ${error.message}`.slice(0, 4000),
      });
    }
  }

  /** Reads the manifest the run's version pinned once, and records which contents it resolved as a `log` event. */
  async #loadAttachments(): Promise<RunOutcome | undefined> {
    const read = this.options.callbacks.runAttachments;
    if (!read) return undefined;
    try {
      const manifest = await read.call(this.options.callbacks);
      this.#attachments = attachmentsContext(manifest);
      this.events.emit('log', { level: 'info', message: manifestLine(manifest) });
      return undefined;
    } catch (error) {
      if (isRunNotHeld(error) || !(error instanceof DaemonAnswerError)) throw error;
      return this.#failRun({
        code: 'attachments_unavailable',
        message: `the run's attachments could not be read: ${error.message}`.slice(0, 4000),
      });
    }
  }

  #handlerOf(step: FlowStep): StepHandlerRun | undefined {
    return this.#handlers.get(step.handler);
  }

  /** Holds while paused; answers an outcome when the run must not go on. */
  async #waitUntilRunnable(): Promise<RunOutcome | undefined> {
    const { control, draining } = this.options;
    await control.whenRunnable();
    if (control.stopReason) return stoppedOutcome(control.stopReason);
    if (draining() && !control.stepStarted) return 'released';
    return undefined;
  }

  async #runStep(step: FlowStep, refused = false): Promise<'succeeded' | RunOutcome> {
    const { callbacks, control } = this.options;
    let stepRunId: string;
    try {
      stepRunId = (await callbacks.createStepRun({ step_id: step.id, handler: step.handler, status: 'running' })).id;
    } catch (error) {
      if (!isInvalidRunState(error)) throw error;
      return this.#movedUnderUs(error, () => this.#runStep(step));
    }
    control.stepStarted = true;

    if (refused) {
      const unavailable = unavailableHandler(step.handler) ?? { needs: 'unknown_handler', reason: 'is not run by this worker' };
      this.events.emit('handler_unavailable', { handler: step.handler, reason: unavailable.reason, needs: unavailable.needs }, step.id);
      return this.#failStep(step, stepRunId, {
        code: 'handler_unavailable',
        message: `${step.handler} ${unavailable.reason}`,
        handler: step.handler,
        needs: unavailable.needs,
      });
    }

    let result;
    try {
      result = await this.#handlerOf(step)!({
        run: this.options.assignment,
        step,
        config: renderConfig(step.config, this.#templateContext()),
        rawConfig: step.config,
        signal: control.signal,
        emit: (type, data) => this.events.emit(type, data, step.id),
        setRunVars: (vars) => this.#setRunVars(vars),
        waitingOnChild: (waiting) => {
          control.waitingOnChild = waiting;
          this.options.onSlotChange?.();
        },
        callbacks,
        monitors: this.monitors,
        notifications: this.options.outbound.notifications,
      });
    } catch (error) {
      if (control.stopReason) return this.#stoppedDuringStep(control.stopReason, stepRunId);
      if (isRunNotHeld(error)) throw error;
      return this.#failStep(step, stepRunId, errorInfo(error));
    }
    if (control.stopReason) return this.#stoppedDuringStep(control.stopReason, stepRunId);
    this.#stepOutputs[step.id] = { outputs: result.outputs };
    await this.events.flush();
    await callbacks.patchStepRun(stepRunId, {
      status: 'succeeded',
      outputs: result.outputs,
      ...(result.summary ? { summary: result.summary.slice(0, 1000) } : {}),
    });
    return 'succeeded';
  }

  async #failStep(step: FlowStep, stepRunId: string, error: ErrorInfo): Promise<RunOutcome> {
    await this.events.flush();
    await this.options.callbacks.patchStepRun(stepRunId, { status: 'failed', error });
    return this.#failRun({ ...error, step_id: step.id });
  }

  /** A cancelled run ends its step run `cancelled`; a stopping worker ends it failed and hands the run back. */
  async #stoppedDuringStep(reason: StopReason, stepRunId: string): Promise<RunOutcome> {
    if (reason === 'lost') return 'lost';
    await this.events.flush();
    if (reason === 'cancel') {
      await this.options.callbacks.patchStepRun(stepRunId, { status: 'cancelled' });
      return 'cancelled';
    }
    await this.options.callbacks.patchStepRun(stepRunId, {
      status: 'failed',
      error: { code: 'worker_stopped', message: 'the worker stopped before the step ended' },
    });
    return 'released';
  }

  /** The daemon refused a step (or a gate) because the run moved: paused (hold, then `again`) or ended (stop). */
  async #movedUnderUs(error: unknown, again: () => Promise<'succeeded' | RunOutcome>): Promise<'succeeded' | RunOutcome> {
    const status = (error as { body?: { status?: unknown } }).body?.status;
    if (status !== 'paused') return 'cancelled';
    this.options.control.setPaused(true);
    const stop = await this.#waitUntilRunnable();
    return stop ?? again();
  }

  #failRun(error: ErrorInfo): Promise<RunOutcome> {
    return this.#finish({ status: 'failed', error });
  }

  async #finish(
    body: { status: 'succeeded'; outputs: Record<string, unknown> } | { status: 'failed'; error: ErrorInfo },
  ): Promise<RunOutcome> {
    // Background monitors have their last word before the run's end closes them.
    await this.monitors.settle(body.status === 'succeeded');
    await this.events.flush();
    try {
      await this.options.callbacks.finishRun(body);
    } catch (error) {
      // Cancelled by a user between our last heartbeat and this call: the cancel stands.
      if (isInvalidRunState(error)) return 'cancelled';
      throw error;
    }
    return 'finished';
  }

  async #setRunVars(vars: Record<string, unknown>): Promise<void> {
    this.#runVars = { ...this.#runVars, ...vars };
    await this.options.callbacks.putRunVars(this.#runVars);
  }

  #templateContext(): Record<string, unknown> {
    const { assignment } = this.options;
    return {
      inputs: assignment.params,
      params: assignment.params,
      targets: assignment.targets,
      vars: this.#runVars,
      variables: this.#variables,
      attachments: this.#attachments,
      steps: this.#stepOutputs,
      run: { id: assignment.run_id, name: assignment.name, workflow_id: assignment.workflow_id, attempt: assignment.attempt },
    };
  }
}

/** Whether a step's config or approval message has a `{{ variables.… }}` template (other runs ask for none). */
function namesVariables(steps: readonly FlowStep[]): boolean {
  return steps.some((step) => VARIABLES_TEMPLATE.test(JSON.stringify([step.config, step.approval?.message ?? null])));
}

const VARIABLES_TEMPLATE = /\{\{\s*variables\./;

function stoppedOutcome(reason: StopReason): RunOutcome {
  return reason === 'cancel' ? 'cancelled' : reason === 'lost' ? 'lost' : 'released';
}

function errorInfo(error: unknown): ErrorInfo {
  if (error instanceof StepFailure) return { ...error.details, code: error.code, message: error.message.slice(0, 4000) };
  if (error instanceof TemplateError) return { code: 'template_error', message: error.message.slice(0, 4000), path: error.path };
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'handler_error', message: message.slice(0, 4000) };
}
