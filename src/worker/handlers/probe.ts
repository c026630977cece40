import { mapConcurrent, PROBE_PARALLELISM } from '../probes/concurrency.js';
import { connectivityChecker, connectivityConfig, unreachable } from '../probes/connectivity.js';
import { dnsQuery, type RecordType } from '../probes/dns.js';
import { httpProbe, statusMatcher } from '../probes/http.js';
import { withAttempts } from '../probes/outcome.js';
import { namedSubject, probeReport, requireTargets, targetResult } from '../probes/report.js';
import { probeTargets, type ProbeTarget } from '../probes/targets.js';
import { readConfig } from './step-config.js';
import type { StepContext, StepResult } from './types.js';

/**
 * `probe.connectivity`: one check (`check_type`) of every target device, up to `attempts` times each.
 * With `hostname` set, `dns_resolve` looks that name up once instead of each target's address.
 */
export async function runProbeConnectivity({ step, config: rendered, run, signal }: StepContext): Promise<StepResult> {
  const config = readConfig(step.handler, rendered);
  const connectivity = connectivityConfig(config);
  const check = connectivityChecker(connectivity);
  const hostname = config.hostname as string;
  const subjects =
    connectivity.checkType === 'dns_resolve' && hostname !== '' ? [namedSubject(hostname)] : requireTargets(probeTargets(run));
  const results = await mapConcurrent(subjects, PROBE_PARALLELISM, async (target) =>
    targetResult(target, await withAttempts(config.attempts as number, signal, () => check(target, signal))),
  );
  const extra = { check_type: connectivity.checkType, ...(usesPort(connectivity.checkType) ? { port: connectivity.port } : {}) };
  return probeReport(`${connectivity.checkType}`, results, extra);
}

function usesPort(checkType: string): boolean {
  return checkType === 'tcp_connect' || checkType === 'http_health';
}

/** `probe.http`: one request to every target device (its address, the scheme's port unless `port`), judged by status and body. */
export async function runProbeHttp({ step, config: rendered, run, signal }: StepContext): Promise<StepResult> {
  const config = readConfig(step.handler, rendered);
  const scheme = config.scheme as 'http' | 'https';
  const port = typeof config.port === 'number' ? config.port : scheme === 'https' ? 443 : 80;
  const rawPath = config.path as string;
  const expected = statusMatcher(config.expected_status as string);
  const results = await mapConcurrent(requireTargets(probeTargets(run)), PROBE_PARALLELISM, async (target) => {
    const once = () =>
      target.host === null
        ? Promise.resolve(unreachable(target))
        : httpProbe(
            {
              scheme,
              host: target.host,
              port,
              path: rawPath.startsWith('/') ? rawPath : `/${rawPath}`,
              method: config.method as 'GET' | 'HEAD' | 'POST',
              expected,
              bodyContains: config.body_contains as string,
              verifyTls: config.verify_tls as boolean,
              followRedirects: config.follow_redirects as boolean,
              timeoutMs: (config.timeout_sec as number) * 1000,
            },
            signal,
          );
    return targetResult(target, await withAttempts(config.attempts as number, signal, once));
  });
  return probeReport(`HTTP ${config.method as string} ${scheme}:${port}`, results, { scheme, port });
}

/**
 * `probe.dns`: one query of `record_type` to `resolver` (the system's when empty) for `query_name`, or for
 * each target's hostname when it is empty; every `expected_values` entry must be among the answers.
 */
export async function runProbeDns({ step, config: rendered, run, signal }: StepContext): Promise<StepResult> {
  const config = readConfig(step.handler, rendered);
  const queryName = config.query_name as string;
  const subjects: readonly ProbeTarget[] = queryName !== '' ? [namedSubject(queryName)] : requireTargets(probeTargets(run));
  const recordType = config.record_type as RecordType;
  const expected = Array.isArray(config.expected_values) ? (config.expected_values as string[]) : [];
  const results = await mapConcurrent(subjects, PROBE_PARALLELISM, async (target) => {
    const once = () =>
      target.host === null
        ? Promise.resolve(unreachable(target))
        : dnsQuery(
            {
              name: target.host,
              type: recordType,
              resolver: config.resolver as string,
              expected,
              timeoutMs: (config.timeout_sec as number) * 1000,
            },
            signal,
          );
    return targetResult(target, await withAttempts(config.attempts as number, signal, once));
  });
  return probeReport(`DNS ${recordType}`, results, { record_type: recordType, resolver: (config.resolver as string) || null });
}
