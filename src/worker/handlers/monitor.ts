import { DaemonAnswerError } from '../http-client.js';
import { ConnectivityMonitor, type ConnectivityMonitorPlan } from '../monitoring/connectivity-monitor.js';
import type { MonitorCallbacks } from '../monitor-callbacks.js';
import type { ScheduleMode } from '../monitoring/run-monitors.js';
import { connectivityChecker, connectivityConfig } from '../probes/connectivity.js';
import { namedSubject, requireTargets } from '../probes/report.js';
import { probeTargets } from '../probes/targets.js';
import { readConfig } from './step-config.js';
import { StepFailure, type StepContext, type StepResult } from './types.js';

/**
 * `monitor.connectivity` (and `monitor.start`, which takes the same configuration and samples
 * `until_join` unless told otherwise): opens a monitor per target device and samples it in the background
 * while the run goes on; the step ends as soon as the monitors are open. docs/worker.md says when they end.
 */
export async function runMonitorConnectivity(context: StepContext): Promise<StepResult> {
  const { step, run, signal, monitors } = context;
  const defaults = step.handler === 'monitor.start' ? { schedule_mode: 'until_join' } : {};
  const config = readConfig('monitor.connectivity', { ...defaults, ...context.config });
  const connectivity = connectivityConfig(config);
  const checker = connectivityChecker(connectivity);
  const callbacks = monitors.callbacks;
  if (!callbacks) throw new StepFailure('monitors_unavailable', 'this execution has no monitor callbacks to record samples through');
  const hostname = typeof config.hostname === 'string' ? config.hostname : '';
  const targets =
    connectivity.checkType === 'dns_resolve' && hostname !== '' ? [namedSubject(hostname)] : requireTargets(probeTargets(run));
  const mode = config.schedule_mode as ScheduleMode;
  const monitor = await openMonitors(
    {
      stepId: step.id,
      checkType: connectivity.checkType,
      checker,
      targets,
      mode,
      count: config.count as number,
      durationMs: (config.duration_sec as number) * 1000,
      intervalMs: config.interval_ms as number,
    },
    callbacks,
    signal,
  );
  monitor.start();
  monitors.add(monitor);
  const opened = monitor.monitors.map(({ monitor: m, target }) => ({
    monitor_id: m.id,
    monitor_key: m.monitor_key,
    device_id: target.deviceId === '' ? null : target.deviceId,
    name: target.name,
    host: target.host,
  }));
  const until =
    mode === 'count' ? `${config.count as number} samples` : mode === 'duration' ? `${config.duration_sec as number} s` : 'stopped';
  return {
    outputs: { monitors: opened, check_type: connectivity.checkType, schedule_mode: mode },
    summary: `monitoring ${opened.length} target(s) by ${connectivity.checkType} every ${config.interval_ms as number} ms until ${until}`,
  };
}

/**
 * The step's monitors, one per target; a run already holding as many monitors as the daemon allows fails
 * the step by that code (the monitors this step opened before it stay unsampled until the run's end
 * closes them). Any other refusal goes on as it came: the executor knows a run no longer held.
 */
async function openMonitors(plan: ConnectivityMonitorPlan, callbacks: MonitorCallbacks, signal: AbortSignal): Promise<ConnectivityMonitor> {
  try {
    return await ConnectivityMonitor.open(plan, callbacks, signal);
  } catch (error) {
    if (!(error instanceof DaemonAnswerError) || error.code !== 'monitor_run_limit') throw error;
    const { limit } = error.body as { limit?: number };
    throw new StepFailure(
      'monitor_run_limit',
      `the run may open at most ${limit ?? 'so many'} monitors; this step needs ${plan.targets.length}`,
      {
        limit: limit ?? null,
        targets: plan.targets.length,
      },
    );
  }
}

/**
 * `monitor.stop`: stops the monitors the step `monitor_step` started (every monitor still sampling when
 * it is absent) and waits for their last samples and summaries.
 */
export async function runMonitorStop({ config, monitors }: StepContext): Promise<StepResult> {
  const named = config.monitor_step;
  if (named !== undefined && named !== null && named !== '' && typeof named !== 'string')
    throw new StepFailure('invalid_config', 'monitor_step must be a step id', { field: 'monitor_step' });
  const stepId = typeof named === 'string' && named !== '' ? named : undefined;
  const ended = await monitors.stop(stepId, 'monitor.stop');
  const stopped = ended.flatMap((end) => end.monitors.map((m) => ({ step_id: end.step_id, ...m })));
  return { outputs: { stopped }, summary: `stopped ${stopped.length} monitor(s)` };
}
