import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { problem } from '../../../shared/api/problem.js';
import type { AddressPolicy } from '../../../shared/net/address-policy.js';
import { SCHEME, SCP_LIKE } from './repository-url.js';

/** Where a remote URL connects: its host (brackets of an IPv6 literal removed), port and transport. */
export interface RemoteEndpoint {
  readonly host: string;
  readonly port: number;
  readonly transport: 'http' | 'ssh';
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443, 'ssh:': 22 };

/** The endpoint of an accepted repository URL; undefined for one that reaches no host (`file://`). */
export function remoteEndpoint(url: string): RemoteEndpoint | undefined {
  const scp = SCHEME.test(url) ? null : SCP_LIKE.exec(url);
  if (scp) return { host: unbracketed(scp[2]!), port: 22, transport: 'ssh' };
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  const defaultPort = DEFAULT_PORTS[parsed.protocol];
  if (defaultPort === undefined || !parsed.hostname) return undefined;
  const port = parsed.port ? Number(parsed.port) : defaultPort;
  return { host: unbracketed(parsed.hostname), port, transport: parsed.protocol === 'ssh:' ? 'ssh' : 'http' };
}

function unbracketed(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

export type Resolve = (host: string) => Promise<readonly string[]>;

const resolveAll: Resolve = async (host) => (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * The outbound guard for a remote, before each network operation: every address its host resolves to
 * must be public or in SERVICE_OUTBOUND_ALLOWED_NETWORKS (502 `git_remote_failed`, `address_not_allowed`;
 * `unreachable` when the name does not resolve). Answers the `-c` settings that make git's own HTTP client
 * connect to the address checked (`http.curloptResolve`), so a name that resolves elsewhere a moment later
 * changes nothing; ssh resolves the name again itself (docs/git.md says so).
 */
export async function checkedRemote(url: string, policy: AddressPolicy, resolve: Resolve = resolveAll): Promise<readonly string[]> {
  const endpoint = remoteEndpoint(url);
  if (!endpoint) return [];
  const literal = isIP(endpoint.host) !== 0;
  let addresses: readonly string[];
  try {
    addresses = literal ? [endpoint.host] : await resolve(endpoint.host);
  } catch {
    addresses = [];
  }
  if (addresses.length === 0) throw remoteRefused('unreachable', 'The remote could not be reached, or has no repository at this URL.');
  if (addresses.some((address) => !policy.allows(address))) {
    throw remoteRefused(
      'address_not_allowed',
      "The remote's address is not public and not in SERVICE_OUTBOUND_ALLOWED_NETWORKS: the daemon does not connect there.",
    );
  }
  if (literal || endpoint.transport !== 'http') return [];
  const pinned = isIP(addresses[0]!) === 6 ? `[${addresses[0]}]` : addresses[0]!;
  return ['-c', `http.curloptResolve=${endpoint.host}:${endpoint.port}:${pinned}`];
}

function remoteRefused(reason: 'address_not_allowed' | 'unreachable', detail: string) {
  return problem('git_remote_failed', detail, { reason });
}
