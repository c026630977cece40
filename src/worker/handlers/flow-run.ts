import { randomBytes } from 'node:crypto';
import { isFinishedRun } from '../../shared/run-statuses.js';
import type { ChildRunRequest, RunOutputs } from '../callbacks.js';
import { isRunNotHeld } from '../callbacks.js';
import { DaemonAnswerError } from '../http-client.js';
import { abortableDelay } from '../retry.js';
import { StepFailure, type StepContext, type StepResult, type StopReason } from './types.js';

/**
 * `flow.run`: starts a child run of another committed flow (`POST /internal/runs`, admitted as the
 * parent's child through the one admission) and, unless `wait_for_completion` is false, polls its outputs
 * every `poll_interval_seconds` (clamped to 1-60) until it ends: succeeded gives the step the child's
 * outputs, failed or cancelled fails the step. A parent cancelled (or a worker stopping) while it waits
 * cancels the child: nothing would read its result any more.
 */
export async function runFlowRun(context: StepContext): Promise<StepResult> {
  const { config, signal, emit, callbacks } = context;
  const request = childRequest(context);
  let child: { id: string };
  try {
    child = await callbacks.startChildRun(request);
  } catch (error) {
    throw refusal(error, 'child_run_refused', 'the daemon refused the child run');
  }
  emit('flow.child_run', { run_id: child.id, ...(request.flow_id ? { flow_id: request.flow_id } : { flow_name: request.flow_name }) });
  if (config.wait_for_completion === false) return { outputs: { run_id: child.id }, summary: `started child run ${child.id}` };

  const intervalMs = clamp(typeof config.poll_interval_seconds === 'number' ? config.poll_interval_seconds : 5, 1, 60) * 1000;
  context.waitingOnChild(true);
  try {
    for (;;) {
      const state = await pollOnce(context, child.id);
      if (isFinishedRun(state.status)) return mirror(state, emit);
      await abortableDelay(intervalMs, signal);
    }
  } catch (error) {
    const reason = signal.aborted ? (signal.reason as StopReason) : undefined;
    if (reason === 'cancel' || reason === 'shutdown') {
      await callbacks.cancelChildRun(child.id, reason === 'cancel' ? 'parent run cancelled' : 'parent worker stopped').catch(() => {});
    }
    throw error;
  } finally {
    context.waitingOnChild(false);
  }
}

async function pollOnce({ callbacks, signal }: StepContext, childId: string): Promise<RunOutputs> {
  try {
    return await callbacks.childOutputs(childId, signal);
  } catch (error) {
    throw refusal(error, 'child_run_unreadable', 'the child run could not be read');
  }
}

function mirror(state: RunOutputs, emit: StepContext['emit']): StepResult {
  emit('flow.child_finished', { run_id: state.run_id, status: state.status });
  if (state.status === 'succeeded') return { outputs: state.outputs, summary: `child run ${state.run_id} succeeded` };
  throw new StepFailure(`child_run_${state.status}`, `the child run ${state.run_id} ${state.status}`, {
    child_run_id: state.run_id,
    ...(state.error ? { child_error: state.error } : {}),
  });
}

function childRequest({ run, step, config, rawConfig }: StepContext): ChildRunRequest {
  const flowId = nonEmptyString(config.flow_id);
  const flowName = nonEmptyString(config.flow_name);
  if ((flowId === undefined) === (flowName === undefined)) {
    throw new StepFailure('invalid_config', 'give exactly one of flow_id and flow_name', { field: 'flow_id' });
  }
  const version = config.version ?? null;
  if (version !== null && (typeof version !== 'number' || !Number.isInteger(version) || version < 1)) {
    throw new StepFailure('invalid_config', 'version must be an integer of at least 1', { field: 'version' });
  }
  const name = nonEmptyString(config.run_name) ?? `${run.name.slice(0, 240)}-${randomBytes(3).toString('hex')}`;
  const targets = childTargets(config.target_mappings, run.targets);
  return {
    parent_run_id: run.run_id,
    parent_step_id: step.id,
    ...(flowId !== undefined ? { flow_id: flowId } : { flow_name: flowName! }),
    version: version as number | null,
    params: childParams(config.field_mappings, rawConfig.field_mappings),
    ...(targets ? { targets } : {}),
    name,
  };
}

/** `literal` passes the value as written, `template` as rendered, `default` leaves the child's default. */
function childParams(rendered: unknown, raw: unknown): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const [field, entry] of Object.entries(asObject(rendered))) {
    const mapping = asObject(entry);
    if (mapping.mode === 'literal') params[field] = asObject(asObject(raw)[field]).value;
    else if (mapping.mode === 'template') params[field] = mapping.value;
  }
  return params;
}

/** `parent_role` hands on the parent's devices of that role, `none` none; `child_default` leaves the role out. */
function childTargets(mappings: unknown, parentTargets: Readonly<Record<string, readonly string[]>>): Record<string, string[]> | undefined {
  const targets: Record<string, string[]> = {};
  for (const [role, entry] of Object.entries(asObject(mappings))) {
    const mapping = asObject(entry);
    if (mapping.mode === 'parent_role' && typeof mapping.parent_role_id === 'string')
      targets[role] = [...(parentTargets[mapping.parent_role_id] ?? [])];
    else if (mapping.mode === 'none') targets[role] = [];
  }
  return Object.keys(targets).length > 0 ? targets : undefined;
}

function refusal(error: unknown, code: string, message: string): unknown {
  if (!(error instanceof DaemonAnswerError) || isRunNotHeld(error)) return error;
  return new StepFailure(code, `${message} (${error.status}${error.code ? ` ${error.code}` : ''})`, {
    status: error.status,
    ...(error.code ? { problem_code: error.code } : {}),
    ...(typeof error.body === 'object' && error.body !== null && 'errors' in error.body
      ? { errors: (error.body as { errors: unknown }).errors }
      : {}),
  });
}

function asObject(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
