/**
 * The one door notifications use to reach a receiver's URL: the shared outbound guard's `request`
 * (src/shared/net/outbound-http.ts), which refuses private, loopback and link-local targets unless
 * SERVICE_OUTBOUND_ALLOWED_NETWORKS permits, limits time and body, and follows no redirect.
 */
export interface OutboundPost {
  readonly method: 'POST';
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly timeoutMs?: number;
  readonly maxResponseBytes?: number;
}

export interface OutboundAnswer {
  readonly status: number;
  text(): Promise<string>;
}

export type OutboundSend = (url: string, request: OutboundPost) => Promise<OutboundAnswer>;

/** Why the guard refused or failed a request (`OutboundError.reason`), or undefined for any other error. */
export function outboundReason(error: unknown): string | undefined {
  const reason = (error as { reason?: unknown } | null)?.reason;
  return error instanceof Error && error.name === 'OutboundError' && typeof reason === 'string' ? reason : undefined;
}

/** Refusals that will not change by trying again. */
const PERMANENT_REASONS = new Set(['malformed_url', 'scheme_not_allowed', 'address_not_allowed', 'too_many_redirects']);

export function isPermanentOutboundReason(reason: string): boolean {
  return PERMANENT_REASONS.has(reason);
}
