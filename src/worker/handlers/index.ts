import { findHandler } from '../../shared/flows/step-handlers/index.js';
import { runFlowNotify } from './flow-notify.js';
import { runFlowRun } from './flow-run.js';
import { runNoop, runSleep } from './general.js';
import { runMonitorConnectivity, runMonitorStop } from './monitor.js';
import { runProbeConnectivity, runProbeDns, runProbeHttp } from './probe.js';
import { runProbeWaitReachable } from './wait-reachable.js';
import type { StepHandlerRun } from './types.js';

/** The handlers the reference worker runs for real. */
export const RUNNABLE_HANDLERS: ReadonlyMap<string, StepHandlerRun> = new Map<string, StepHandlerRun>([
  ['general.noop', runNoop],
  ['general.sleep', runSleep],
  ['flow.run', runFlowRun],
  ['probe.connectivity', runProbeConnectivity],
  ['probe.http', runProbeHttp],
  ['probe.dns', runProbeDns],
  ['probe.wait_reachable', runProbeWaitReachable],
  ['monitor.connectivity', runMonitorConnectivity],
  ['monitor.start', runMonitorConnectivity],
  ['monitor.stop', runMonitorStop],
  ['flow.notify', runFlowNotify],
]);

export type Unavailability = 'container_engine' | 'device_access' | 'domain_not_built' | 'no_worker_route' | 'unknown_handler';

const REASONS: Readonly<Record<Exclude<Unavailability, 'unknown_handler'>, string>> = {
  container_engine: 'needs a container engine; this worker has none',
  device_access:
    "needs a session on the run's target devices (their credentials and an SSH/CLI session, which the reference worker does not open; it only probes their addresses)",
  domain_not_built: 'needs a part of the platform that is not built yet',
  no_worker_route: 'needs a daemon route a worker may call, and the daemon offers none',
};

/**
 * Why every other catalogue handler is refused, by id or namespace prefix (the longest match wins).
 * A handler runs here only if it needs no container, no session on a device (probes only reach its
 * address), no service that does not exist yet and no daemon route a worker may not call;
 * test/worker-handlers.test.ts holds every catalogue handler to being either runnable or listed here.
 */
const REFUSED: readonly { readonly prefix: string; readonly needs: Exclude<Unavailability, 'unknown_handler'>; readonly what?: string }[] =
  [
    { prefix: 'playbook.run', needs: 'container_engine' },
    { prefix: 'container.run', needs: 'container_engine' },
    { prefix: 'iac.', needs: 'container_engine' },
    { prefix: 'netos.upgrade.', needs: 'device_access' },
    { prefix: 'netcli.', needs: 'device_access' },
    { prefix: 'shell.execute', needs: 'device_access' },
    {
      prefix: 'evidence.',
      needs: 'no_worker_route',
      what: "reading a run's artifacts (only users download them, `run:view`); the evidence comes from netcli.collect_evidence, which needs device access",
    },
    {
      prefix: 'flow.git_sync',
      needs: 'no_worker_route',
      what: 'a repository sync (`POST /git-repositories/{repo_id}/sync` is `git_repository:sync`, a user action; no internal route)',
    },
  ];

export interface UnavailableHandler {
  readonly handler: string;
  readonly needs: Unavailability;
  readonly reason: string;
}

/** Undefined when the worker runs the handler; else what it would need and a sentence saying so. */
export function unavailableHandler(handler: string): UnavailableHandler | undefined {
  if (RUNNABLE_HANDLERS.has(handler)) return undefined;
  if (!findHandler(handler)) return { handler, needs: 'unknown_handler', reason: 'is not in the step handler catalogue' };
  const refusal = REFUSED.filter((r) => handler.startsWith(r.prefix)).sort((a, b) => b.prefix.length - a.prefix.length)[0];
  if (!refusal) return { handler, needs: 'domain_not_built', reason: 'is not implemented by this worker' };
  const reason = refusal.what ? `${REASONS[refusal.needs]}: ${refusal.what}` : REASONS[refusal.needs];
  return { handler, needs: refusal.needs, reason };
}
