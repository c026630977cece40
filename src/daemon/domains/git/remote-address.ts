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

/** What makes one operation connect to the address the guard checked, whatever the name resolves to later. */
export interface RemotePin {
  /** `-c` settings for git's HTTP client (`http.curloptResolve`). */
  readonly config: readonly string[];
  /** ssh options: connect to the address (`HostName`), check the host key under the name (`HostKeyAlias`). */
  readonly ssh: readonly string[];
}

const UNPINNED: RemotePin = { config: [], ssh: [] };

const resolveAll: Resolve = async (host) => (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * The outbound guard for a remote, before each network operation: every address its host resolves to
 * must be public or in SERVICE_OUTBOUND_ALLOWED_NETWORKS (502 `git_remote_failed`, `address_not_allowed`;
 * `unreachable` when the name does not resolve). Answers the pin that makes git's HTTP client or ssh
 * connect to the address checked, so a name that resolves elsewhere a moment later (DNS rebinding)
 * changes nothing. ssh checks the host key under the name as before: a known_hosts entry of a port other
 * than 22 is `[name]:port`, so that is the alias then.
 */
export async function checkedRemote(url: string, policy: AddressPolicy, resolve: Resolve = resolveAll): Promise<RemotePin> {
  const endpoint = remoteEndpoint(url);
  if (!endpoint) return UNPINNED;
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
  if (literal) return UNPINNED;
  const address = addresses[0]!;
  if (endpoint.transport === 'ssh') {
    const alias = endpoint.port === 22 ? endpoint.host : `[${endpoint.host}]:${endpoint.port}`;
    return { config: [], ssh: ['-o', `HostKeyAlias=${alias}`, '-o', `HostName=${address}`] };
  }
  const pinned = isIP(address) === 6 ? `[${address}]` : address;
  return { config: ['-c', `http.curloptResolve=${endpoint.host}:${endpoint.port}:${pinned}`], ssh: [] };
}

function remoteRefused(reason: 'address_not_allowed' | 'unreachable', detail: string) {
  return problem('git_remote_failed', detail, { reason });
}
