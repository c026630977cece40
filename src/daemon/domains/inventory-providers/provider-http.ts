import type { IncomingHttpHeaders } from 'node:http';

/** What the providers need of the outbound guard: one request, its status, headers and text. */
export interface ProviderResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  text(): Promise<string>;
}

export interface ProviderRequestOptions {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
  readonly maxResponseBytes?: number;
}

/** The one door to the network: the shared outbound guard (address rules, time limit, size cap). */
export type ProviderFetch = (url: string, request: ProviderRequestOptions) => Promise<ProviderResponse>;

/** Why a provider request failed: the guard's reasons, and what the provider's answer said. */
export class ProviderRequestError extends Error {
  override name = 'ProviderRequestError';
  constructor(
    readonly reason: string,
    message: string,
    /** Where it failed, without credentials (a page URL or offset). */
    readonly page: string | null = null,
  ) {
    super(message);
  }
}

export interface RetryPolicy {
  /** Further attempts after the first, on 5xx, 429 and failures to connect or answer in time. */
  readonly retries: number;
  /** First backoff; doubled each attempt (with jitter), never past `maxWaitMs`. */
  readonly baseMs: number;
  /** The longest wait, a Retry-After's included. */
  readonly maxWaitMs: number;
}

/** Reasons worth another attempt: the provider or the path to it may be better in a moment. */
const TRANSIENT = new Set(['connect_failed', 'timeout', 'dns_failed']);

/** The most one page may hold (a page of 1000 devices with their custom fields is well under it). */
const MAX_PAGE_BYTES = 16 * 1024 * 1024;

type Sleep = (ms: number) => Promise<void>;
const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * JSON GETs to one provider with retries: 5xx and 429 (Retry-After honoured, in seconds or as a date)
 * and transient failures back off exponentially; 401/403 is `auth_failed` at once; any other status is
 * `upstream_status`. Each attempt is the guard's request with the provider's time limit.
 */
export class ProviderHttp {
  constructor(
    private readonly fetch: ProviderFetch,
    private readonly policy: RetryPolicy,
    private readonly timeoutMs: number,
    private readonly sleep: Sleep = realSleep,
  ) {}

  async getJson(url: string, headers: Readonly<Record<string, string>>): Promise<unknown> {
    const shown = redactUrl(url);
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.attempt(url, headers, shown);
      if ('value' in outcome) return outcome.value;
      if (attempt >= this.policy.retries) throw outcome.failure;
      const backoff = this.policy.baseMs * 2 ** attempt * (0.5 + Math.random() / 2);
      await this.sleep(Math.min(outcome.waitMs ?? backoff, this.policy.maxWaitMs));
    }
  }

  /** One request: its JSON, or a failure worth retrying (with the wait the provider asked for); others throw. */
  private async attempt(
    url: string,
    headers: Readonly<Record<string, string>>,
    shown: string,
  ): Promise<{ value: unknown } | { failure: ProviderRequestError; waitMs?: number | undefined }> {
    try {
      const response = await this.fetch(url, {
        headers: { accept: 'application/json', ...headers },
        timeoutMs: this.timeoutMs,
        maxResponseBytes: MAX_PAGE_BYTES,
      });
      const text = await response.text();
      if (response.status >= 200 && response.status < 300) return { value: parseJson(text, shown) };
      if (response.status === 401 || response.status === 403) {
        throw new ProviderRequestError('auth_failed', `the provider refused the credential (${response.status})`, shown);
      }
      const failure = new ProviderRequestError('upstream_status', `the provider answered ${response.status}`, shown);
      if (response.status !== 429 && response.status < 500) throw failure;
      return { failure, waitMs: retryAfterMs(response.headers['retry-after']) };
    } catch (error) {
      if (error instanceof ProviderRequestError) throw error;
      const failure = asRequestError(error, shown);
      if (!TRANSIENT.has(failure.reason)) throw failure;
      return { failure };
    }
  }
}

/** The guard's failure, or a plain error, as a provider request error (never the URL's credentials). */
function asRequestError(error: unknown, page: string): ProviderRequestError {
  const reason = (error as { reason?: unknown } | null)?.reason;
  if (typeof reason === 'string') return new ProviderRequestError(reason, `the request failed: ${reason.replaceAll('_', ' ')}`, page);
  if ((error as { name?: string } | null)?.name === 'TimeoutError')
    return new ProviderRequestError('timeout', 'the provider did not answer in time', page);
  return new ProviderRequestError('connect_failed', 'the provider could not be reached', page);
}

function parseJson(text: string, page: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ProviderRequestError('malformed_answer', 'the provider answered something that is not JSON', page);
  }
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** A URL fit for records: no user information, no query values that could hold a token. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '(malformed URL)';
  }
}
