import { abortableDelay } from '../retry.js';
import { mapConcurrent, PROBE_PARALLELISM } from '../probes/concurrency.js';
import { unreachable } from '../probes/connectivity.js';
import { passed, type CheckOutcome } from '../probes/outcome.js';
import { probeReport, requireTargets, targetResult } from '../probes/report.js';
import { probeTargets, type ProbeTarget } from '../probes/targets.js';
import { tcpConnect } from '../probes/tcp.js';
import { readConfig } from './step-config.js';
import type { StepContext, StepResult } from './types.js';

/**
 * The port a reachability poll knocks on: SSH, the management port the device handlers would use. The
 * host is up when it answers at all: a connection, or a refusal (a reset comes from the host itself);
 * only silence or an unreachable network counts as down. So no ICMP and no open port is needed.
 */
export const REACHABILITY_PORT = 22;

/**
 * `probe.wait_reachable`: polls every target every `poll_interval` seconds until each has answered
 * without a miss for `stable_seconds` (a miss restarts its window), failing targets not stable by
 * `max_wait_seconds` (`not_reachable`).
 */
export async function runProbeWaitReachable({ step, config: rendered, run, signal, emit }: StepContext): Promise<StepResult> {
  const config = readConfig(step.handler, rendered);
  const timing = {
    maxWaitMs: (config.max_wait_seconds as number) * 1000,
    stableMs: (config.stable_seconds as number) * 1000,
    pollMs: (config.poll_interval as number) * 1000,
  };
  const targets = requireTargets(probeTargets(run));
  emit('log', {
    level: 'info',
    message: `waiting for ${targets.length} target(s) to stay reachable for ${config.stable_seconds as number} s`,
  });
  const results = await mapConcurrent(targets, PROBE_PARALLELISM, async (target) =>
    targetResult(target, { ...(await waitFor(target, timing, signal)), attempts: 1 }),
  );
  return probeReport('reachability', results, { port: REACHABILITY_PORT, stable_seconds: config.stable_seconds });
}

interface Timing {
  readonly maxWaitMs: number;
  readonly stableMs: number;
  readonly pollMs: number;
}

async function waitFor(target: ProbeTarget, timing: Timing, signal: AbortSignal): Promise<CheckOutcome> {
  if (target.host === null) return unreachable(target);
  const started = Date.now();
  const deadline = started + timing.maxWaitMs;
  let stableSince: number | undefined;
  let outages = 0;
  let polls = 0;
  for (;;) {
    const timeoutMs = Math.max(500, Math.min(timing.pollMs, 10_000, deadline - Date.now()));
    const outcome = await answers(target.host, timeoutMs, signal);
    if (signal.aborted) throw signal.reason;
    polls += 1;
    const now = Date.now();
    if (outcome.ok) stableSince ??= now;
    else if (stableSince !== undefined) {
      stableSince = undefined;
      outages += 1;
    }
    const details = { polls, outages, waited_s: Math.round((now - started) / 1000) };
    if (stableSince !== undefined && now - stableSince >= timing.stableMs) return passed(outcome.latencyMs ?? 0, details);
    if (now + timing.pollMs > deadline) {
      return {
        ok: false,
        latencyMs: null,
        code: 'not_reachable',
        message: `not reachable for ${timing.stableMs / 1000} s in a row within ${timing.maxWaitMs / 1000} s (last: ${outcome.code ?? 'reachable'})`,
        details,
      };
    }
    await abortableDelay(timing.pollMs, signal);
  }
}

async function answers(host: string, timeoutMs: number, signal: AbortSignal): Promise<CheckOutcome> {
  const outcome = await tcpConnect(host, REACHABILITY_PORT, timeoutMs, signal);
  return outcome.code === 'connection_refused' ? passed(outcome.latencyMs ?? 0) : outcome;
}
