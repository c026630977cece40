import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import ipaddr from 'ipaddr.js';
import { AddressPolicy } from './address-policy.js';

/** Why an outbound request was refused or failed; callers turn it into their own coded answer. */
export type OutboundFailure =
  | 'malformed_url'
  | 'scheme_not_allowed'
  | 'address_not_allowed'
  | 'dns_failed'
  | 'connect_failed'
  | 'timeout'
  | 'tls_failed'
  | 'response_too_large'
  | 'too_many_redirects';

export class OutboundError extends Error {
  constructor(
    readonly reason: OutboundFailure,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

export interface OutboundRequest {
  /** Default GET. */
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array | Readable;
  /** The whole exchange, up to the end of the response body; default the guard's (SERVICE_OUTBOUND_TIMEOUT_MS). */
  readonly timeoutMs?: number;
  /** Most bytes `text()` and `json()` read; default 1 MiB. */
  readonly maxResponseBytes?: number;
  /** Default 0: a 3xx is answered as it is. Above 0, redirects are followed, each hop checked as the first. */
  readonly maxRedirects?: number;
}

export interface OutboundResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** The URL that answered, after redirects. */
  readonly url: string;
  /** The raw body; read it, or call `text()`/`json()`, not both. */
  readonly body: Readable;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

export interface OutboundOptions {
  /** CIDR blocks that may be reached although not public (SERVICE_OUTBOUND_ALLOWED_NETWORKS). */
  readonly allowedNetworks: readonly string[];
  /** SERVICE_OUTBOUND_TIMEOUT_MS. */
  readonly timeoutMs: number;
}

const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const TLS_ERROR = /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|HOSTNAME_MISMATCH)/;

/**
 * HTTP(S) requests to addresses users configure (notification webhooks, inventory providers, file imports,
 * upstream registries): server-side request forgery's front door. Only http(s); the host's addresses are
 * checked by the address policy inside the connection's own lookup, so the socket goes to an address that
 * was checked (a name that resolves to a public address for the check and a private one for the connect
 * cannot slip through); IP literals, which skip the lookup, are checked before the request. No redirect is
 * followed unless asked, and each followed hop is checked again. One time limit covers the whole exchange.
 * The agents are this guard's own, so a pooled connection is never reused under another daemon's policy.
 */
export class OutboundHttp {
  readonly #policy: AddressPolicy;
  readonly #timeoutMs: number;
  readonly #http: HttpAgent;
  readonly #https: HttpsAgent;

  constructor(options: OutboundOptions) {
    this.#policy = new AddressPolicy(options.allowedNetworks);
    this.#timeoutMs = options.timeoutMs;
    const lookup = this.#checkedLookup();
    this.#http = new HttpAgent({ keepAlive: true, lookup });
    this.#https = new HttpsAgent({ keepAlive: true, lookup });
  }

  async request(url: string | URL, request: OutboundRequest = {}): Promise<OutboundResponse> {
    const deadline = Date.now() + (request.timeoutMs ?? this.#timeoutMs);
    let target = parseTarget(url);
    let method = (request.method ?? 'GET').toUpperCase();
    let body = request.body;
    for (let hops = request.maxRedirects ?? 0; ; hops--) {
      const { response, signal } = await this.#once(target, method, request.headers ?? {}, body, deadline);
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (!REDIRECTS.has(status) || location === undefined || (request.maxRedirects ?? 0) === 0) {
        return answer(response, signal, target.href, request.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES);
      }
      response.resume();
      if (hops === 0) throw new OutboundError('too_many_redirects', 'the target redirected more often than allowed');
      if (body instanceof Readable && status !== 303) {
        throw new OutboundError('too_many_redirects', 'a streamed body cannot be sent again to a redirect');
      }
      if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
      }
      target = parseTarget(new URL(location, target));
    }
  }

  /** Ends the pooled connections (the daemon's stop). */
  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }

  #once(
    target: URL,
    method: string,
    headers: Readonly<Record<string, string>>,
    body: OutboundRequest['body'],
    deadline: number,
  ): Promise<{ response: IncomingMessage; signal: AbortSignal }> {
    const literal = hostLiteral(target.hostname);
    if (literal !== undefined && !this.#policy.allows(literal)) {
      return Promise.reject(new OutboundError('address_not_allowed', 'the target address is not allowed'));
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) return Promise.reject(new OutboundError('timeout', 'the target did not answer in time'));
    const signal = AbortSignal.timeout(remaining);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const outgoing = send(target, { method, headers, agent: target.protocol === 'https:' ? this.#https : this.#http, signal });
      outgoing.once('error', (error) => reject(failure(error, signal)));
      outgoing.once('response', (response) => {
        // The limit goes on while the body is read; an aborted request ends its body with the same error.
        response.once('error', () => undefined);
        resolve({ response, signal });
      });
      if (body instanceof Readable) body.pipe(outgoing);
      else outgoing.end(body);
    });
  }

  #checkedLookup(): LookupFunction {
    const policy = this.#policy;
    return (hostname: string, options: LookupOptions, callback: (...args: never[]) => void) => {
      const done = callback as unknown as (error: Error | null, address?: string | LookupAddress[], family?: number) => void;
      dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
        if (error) return done(new OutboundError('dns_failed', `the name ${hostname} did not resolve`));
        if (addresses.length === 0 || addresses.some((entry) => !policy.allows(entry.address))) {
          return done(new OutboundError('address_not_allowed', 'the target address is not allowed'));
        }
        if (options.all) return done(null, addresses);
        done(null, addresses[0]!.address, addresses[0]!.family);
      });
    };
  }
}

function parseTarget(url: string | URL): URL {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new OutboundError('malformed_url', 'not an absolute URL');
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    throw new OutboundError('scheme_not_allowed', 'only http and https targets are allowed');
  }
  return target;
}

/** The address of a host written as an IP literal (`[::1]` included), else undefined. */
function hostLiteral(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) ? bare : undefined;
}

function failure(error: Error & { code?: string }, signal: AbortSignal): OutboundError {
  if (error instanceof OutboundError) return error;
  if (signal.aborted) return new OutboundError('timeout', 'the target did not answer in time');
  if (error.code && TLS_ERROR.test(error.code)) return new OutboundError('tls_failed', 'the TLS handshake with the target failed');
  return new OutboundError('connect_failed', 'the target could not be reached');
}

function answer(response: IncomingMessage, signal: AbortSignal, url: string, maxBytes: number): OutboundResponse {
  const text = async () => {
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of response as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > maxBytes) {
          response.destroy();
          throw new OutboundError('response_too_large', `the answer is larger than ${maxBytes} bytes`);
        }
        chunks.push(chunk);
      }
    } catch (error) {
      throw failure(error as Error, signal);
    }
    return Buffer.concat(chunks).toString('utf8');
  };
  return {
    status: response.statusCode ?? 0,
    headers: response.headers,
    url,
    body: response,
    text,
    async json() {
      return JSON.parse(await text()) as unknown;
    },
  };
}
