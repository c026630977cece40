import { StepFailure, type StepResult } from '../handlers/types.js';
import type { CheckOutcome } from './outcome.js';
import type { ProbeTarget } from './targets.js';

/** One target's line of a probe step's outputs. */
export interface TargetResult extends Record<string, unknown> {
  readonly device_id: string | null;
  readonly name: string;
  readonly host: string | null;
  readonly ok: boolean;
  readonly latency_ms: number | null;
  readonly attempts: number;
  readonly code?: string;
  readonly message?: string;
}

export function targetResult(target: ProbeTarget, outcome: CheckOutcome & { readonly attempts: number }): TargetResult {
  return {
    device_id: target.deviceId === '' ? null : target.deviceId,
    name: target.name,
    host: target.host,
    ok: outcome.ok,
    latency_ms: outcome.latencyMs,
    attempts: outcome.attempts,
    ...(outcome.details ?? {}),
    ...(outcome.ok ? {} : { code: outcome.code, message: outcome.message }),
  };
}

/**
 * A probe step's end: outputs `{targets, passed, failed, …extra}` and a summary when every target passed;
 * else the step fails `probe_failed`, naming each failed target with its code, the whole results beside.
 */
export function probeReport(what: string, results: readonly TargetResult[], extra: Record<string, unknown> = {}): StepResult {
  const failures = results.filter((result) => !result.ok);
  const outputs = { ...extra, targets: results, passed: results.length - failures.length, failed: failures.length };
  if (failures.length > 0) {
    const named = failures.map((f) => `${f.name} (${f.code})`).join(', ');
    throw new StepFailure('probe_failed', `${what} failed for ${failures.length} of ${results.length}: ${named}`.slice(0, 4000), {
      failed_targets: failures.map((f) => ({ device_id: f.device_id, name: f.name, host: f.host, code: f.code })),
      outputs,
    });
  }
  return { outputs, summary: `${what} passed for ${results.length} of ${results.length}` };
}

/** A probe with nothing to check fails: a check of no device has shown nothing. */
export function requireTargets<T>(targets: readonly T[]): readonly T[] {
  if (targets.length === 0) throw new StepFailure('no_targets', 'the run names no target devices to probe');
  return targets;
}

/** A name checked on its own (`hostname`, `query_name`), not a device, as the one "target" of a probe. */
export function namedSubject(name: string): ProbeTarget {
  return { deviceId: '', name, host: name };
}
