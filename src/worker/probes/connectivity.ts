import { StepFailure } from '../handlers/types.js';
import { systemLookup } from './dns.js';
import { httpProbe, statusMatcher } from './http.js';
import { findPing, icmpPing } from './icmp.js';
import { failed, type CheckOutcome } from './outcome.js';
import { tcpConnect } from './tcp.js';
import type { ProbeTarget } from './targets.js';

/** The connectivity checks (`check_type`) the reference worker runs; `icmp_ping` only where a `ping` is on PATH. */
export type CheckType = 'tcp_connect' | 'http_health' | 'dns_resolve' | 'icmp_ping';

export interface ConnectivityConfig {
  readonly checkType: CheckType;
  readonly port: number;
  readonly timeoutMs: number;
  readonly urlPath: string;
  readonly socksProxy: string;
}

export type Checker = (target: ProbeTarget, signal: AbortSignal) => Promise<CheckOutcome>;

/**
 * The check a connectivity step runs against each target, judged before any target is probed: a check
 * this worker cannot run honestly fails the step (`check_unavailable`), as does a configured SOCKS proxy
 * (`socks_proxy_unsupported`: the reference worker connects directly only; docs/decisions.md).
 */
export function connectivityChecker(config: ConnectivityConfig, pathEnv?: string): Checker {
  if (config.socksProxy !== '')
    throw new StepFailure('socks_proxy_unsupported', 'the reference worker does not connect through a SOCKS proxy', {
      check_type: config.checkType,
    });
  const ping = config.checkType === 'icmp_ping' ? findPing(pathEnv) : undefined;
  if (config.checkType === 'icmp_ping' && !ping)
    throw new StepFailure('check_unavailable', 'icmp_ping needs a ping command on PATH (the worker opens no raw sockets)', {
      check_type: 'icmp_ping',
    });
  const run = (host: string, signal: AbortSignal): Promise<CheckOutcome> => {
    switch (config.checkType) {
      case 'tcp_connect':
        return tcpConnect(host, config.port, config.timeoutMs, signal);
      case 'http_health':
        return httpProbe(healthCheck(host, config), signal);
      case 'dns_resolve':
        return systemLookup(host, config.timeoutMs, signal);
      case 'icmp_ping':
        return icmpPing(ping!, host, config.timeoutMs, signal);
    }
  };
  return (target, signal) => (target.host === null ? Promise.resolve(unreachable(target)) : run(target.host, signal));
}

/** A target the check cannot reach for want of an address. */
export function unreachable(target: ProbeTarget): CheckOutcome {
  return target.missing === 'no_address'
    ? failed('no_address', `device ${target.name} has no management address (hostname)`)
    : failed('device_not_found', `device ${target.deviceId} is not a live device of the run's organization`);
}

const HEALTHY = statusMatcher('200-399');

function healthCheck(host: string, config: ConnectivityConfig): Parameters<typeof httpProbe>[0] {
  const path = config.urlPath === '' ? '/health' : config.urlPath;
  return {
    scheme: 'http',
    host,
    port: config.port,
    path: path.startsWith('/') ? path : `/${path}`,
    method: 'GET',
    expected: HEALTHY,
    bodyContains: '',
    verifyTls: true,
    followRedirects: false,
    timeoutMs: config.timeoutMs,
  };
}

/** The connectivity fields of a `probe.connectivity` / `monitor.connectivity` configuration (defaults filled). */
export function connectivityConfig(config: Readonly<Record<string, unknown>>): ConnectivityConfig {
  return {
    checkType: config.check_type as CheckType,
    port: config.port as number,
    timeoutMs: (config.timeout_sec as number) * 1000,
    urlPath: typeof config.url_path === 'string' ? config.url_path : '',
    socksProxy: typeof config.socks_proxy === 'string' ? config.socks_proxy : '',
  };
}
