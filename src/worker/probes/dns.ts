import { lookup, Resolver } from 'node:dns/promises';
import { attemptSignal, elapsedSince, failed, networkFailure, passed, type CheckOutcome } from './outcome.js';

export const RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'TXT'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

/**
 * `dns_resolve` of probe.connectivity / monitor.connectivity: the name resolves as the system resolves it
 * (getaddrinfo: hosts file, then DNS), within the timeout. Its values are the addresses.
 */
export async function systemLookup(name: string, timeoutMs: number, runSignal: AbortSignal): Promise<CheckOutcome> {
  const signal = attemptSignal(runSignal, timeoutMs);
  const started = performance.now();
  try {
    const addresses = await raced(lookup(name, { all: true }), signal);
    return passed(elapsedSince(started), { values: addresses.map((a) => a.address) });
  } catch (error) {
    if (runSignal.aborted) throw runSignal.reason;
    if (signal.aborted) return failed('timeout', `no answer within ${timeoutMs} ms`);
    return networkFailure(error, started);
  }
}

export interface DnsQuery {
  readonly name: string;
  readonly type: RecordType;
  /** `host`, `host:port` or `[v6]:port`; empty asks the system's nameservers. */
  readonly resolver: string;
  readonly expected: readonly string[];
  readonly timeoutMs: number;
}

/**
 * `probe.dns`: one query of `type` for `name` to the resolver, within the timeout. Passes when it answers
 * and every expected value is among the answers (compared without case and without a final dot).
 */
export async function dnsQuery(query: DnsQuery, runSignal: AbortSignal): Promise<CheckOutcome> {
  const resolver = new Resolver({ timeout: query.timeoutMs, tries: 1 });
  if (query.resolver !== '') resolver.setServers([query.resolver]);
  const signal = attemptSignal(runSignal, query.timeoutMs);
  const onAbort = () => resolver.cancel();
  signal.addEventListener('abort', onAbort, { once: true });
  const started = performance.now();
  try {
    const values = await resolve(resolver, query.name, query.type);
    const latency = elapsedSince(started);
    const missing = query.expected.filter((value) => !values.some((got) => sameValue(got, value)));
    if (missing.length > 0)
      return failed('unexpected_values', `missing ${missing.join(', ')}`, latency, { values, missing, record_type: query.type });
    return passed(latency, { values, record_type: query.type });
  } catch (error) {
    if (runSignal.aborted) throw runSignal.reason;
    if (signal.aborted) return failed('timeout', `no answer within ${query.timeoutMs} ms`);
    return dnsFailure(error, started);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

async function resolve(resolver: Resolver, name: string, type: RecordType): Promise<string[]> {
  switch (type) {
    case 'A':
      return resolver.resolve4(name);
    case 'AAAA':
      return resolver.resolve6(name);
    case 'CNAME':
      return resolver.resolveCname(name);
    case 'NS':
      return resolver.resolveNs(name);
    case 'MX':
      return (await resolver.resolveMx(name)).sort((a, b) => a.priority - b.priority).map((mx) => mx.exchange);
    case 'TXT':
      return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
  }
}

function dnsFailure(error: unknown, started: number): CheckOutcome {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'ENOTFOUND' || code === 'ENODATA' || code === 'NXDOMAIN') return failed('name_not_resolved', message, elapsedSince(started));
  if (code === 'ETIMEOUT' || code === 'ECANCELLED') return failed('timeout', message);
  if (code === 'ECONNREFUSED' || code === 'ESERVFAIL' || code === 'EREFUSED') return failed('resolver_failed', message);
  return networkFailure(error, started);
}

function sameValue(got: string, expected: string): boolean {
  const bare = (value: string) => value.trim().replace(/\.$/, '').toLowerCase();
  return bare(got) === bare(expected);
}

/** `promise`, or the signal's abort first (the lookup itself cannot be cancelled; its answer is dropped). */
function raced<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
