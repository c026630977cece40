import { STATUS_CODES } from 'node:http';
import type { ProblemCode } from '../../shared/api/problem-codes.js';

/**
 * A failure with a stable wire code. Services throw these; the error middleware alone turns them into
 * `application/problem+json`. `extensions` become extra members of the body (for example `action`).
 */
export class Problem extends Error {
  constructor(
    readonly status: number,
    readonly code: ProblemCode,
    detail?: string,
    readonly extensions: Readonly<Record<string, unknown>> = {},
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    // A Problem is an expected outcome, not a fault: no stack trace is captured (that would be most of its cost).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(detail ?? STATUS_CODES[status] ?? code);
    Error.stackTraceLimit = limit;
    this.name = 'Problem';
  }

  get title(): string {
    return STATUS_CODES[this.status] ?? 'Error';
  }
}

/**
 * Every 401 names what the route takes (RFC 9110 15.5.2). Neither the worker token nor a stream ticket
 * has a registered scheme: each challenge names its own (`X-Internal-Token`, `Ticket`), and a stream
 * route, which also takes a bearer token, offers both.
 */
const INTERNAL_TOKEN_CHALLENGE = 'X-Internal-Token realm="svc"';
const TICKET_CHALLENGE = 'Ticket realm="svc", Bearer realm="svc"';

export const problems = {
  notFound: () => new Problem(404, 'not_found', 'No route matches this path.'),
  methodNotAllowed: (allow: readonly string[]) =>
    new Problem(405, 'method_not_allowed', 'This path does not accept this method.', { allow }, { Allow: allow.join(', ') }),
  invalidPath: () => new Problem(400, 'invalid_path', 'The path contains a malformed percent-encoding.'),
  payloadTooLarge: (limit: number) => new Problem(413, 'payload_too_large', `The request body exceeds ${limit} bytes.`, { limit }),
  // The parser's own message quotes part of the body, which may hold a secret: never echoed back.
  malformedJson: (errors?: readonly { path: string; message: string }[]) =>
    errors
      ? new Problem(400, 'malformed_json', 'The request body holds a string that is not Unicode text.', { errors })
      : new Problem(400, 'malformed_json', 'The request body is not valid JSON.'),
  unsupportedMediaType: () => new Problem(415, 'unsupported_media_type', 'Send the request body as application/json.'),
  unauthenticated: (challenge: string) =>
    new Problem(401, 'unauthenticated', 'Missing authentication token', {}, { 'WWW-Authenticate': challenge }),
  tokenExpired: () =>
    new Problem(
      401,
      'token_expired',
      'Token expired',
      {},
      { 'WWW-Authenticate': 'Bearer realm="svc", error="invalid_token", error_description="token expired"' },
    ),
  invalidToken: () =>
    new Problem(401, 'invalid_token', 'Invalid or expired token', {}, { 'WWW-Authenticate': 'Bearer realm="svc", error="invalid_token"' }),
  invalidInternalToken: () =>
    new Problem(
      401,
      'invalid_internal_token',
      'Invalid internal authentication token',
      {},
      { 'WWW-Authenticate': INTERNAL_TOKEN_CHALLENGE },
    ),
  ambiguousCredentials: (header: string) =>
    new Problem(400, 'ambiguous_credentials', `The ${header} header is sent more than once; send one credential.`, { header }),
  basicRefused: () =>
    new Problem(
      401,
      'basic_auth_refused',
      'HTTP Basic credentials are not accepted here; send a Bearer token.',
      {},
      { 'WWW-Authenticate': 'Bearer realm="svc"' },
    ),
  accountDisabled: () =>
    new Problem(
      401,
      'account_disabled',
      'The account is deactivated.',
      {},
      { 'WWW-Authenticate': 'Bearer realm="svc", error="invalid_token"' },
    ),
  authUnavailable: () =>
    new Problem(503, 'auth_unavailable', 'Authentication service temporarily unavailable (retry after 30 s)', {}, { 'Retry-After': '30' }),
  authNotConfigured: () => new Problem(503, 'auth_not_configured', 'Authentication service not configured'),
  invalidTicket: () =>
    new Problem(401, 'invalid_ticket', 'The ticket is unknown, expired or already used.', {}, { 'WWW-Authenticate': TICKET_CHALLENGE }),
  ticketsUnavailable: () => new Problem(400, 'tickets_unavailable', 'Stream tickets are not issued while authentication is disabled.'),
  forbidden: (detail: string, extensions: Record<string, unknown> = {}) => new Problem(403, 'forbidden', detail, extensions),
  validation: (errors: readonly { path: string; message: string }[]) =>
    new Problem(
      422,
      'validation_failed',
      `The request is not valid: ${errors.map((e) => `${e.path || '(body)'}: ${e.message}`).join('; ')}`,
      { errors },
    ),
  resourceNotFound: (what: string) => new Problem(404, 'resource_not_found', `${what} not found.`),
  conflict: (detail: string) => new Problem(409, 'conflict', detail),
  notImplemented: (action: string) => new Problem(501, 'not_implemented', `The ${action} action is not built yet.`, { action }),
  // A write's commit may have been stored while its acknowledgement was lost: the detail says so where senders read.
  databaseUnavailable: () =>
    new Problem(
      503,
      'database_unavailable',
      'The database does not answer; retry after Retry-After seconds. A write may have been stored even so (its acknowledgement lost): retry a webhook trigger with the same X-Idempotency-Key, which answers 409 duplicate_delivery if it was.',
      {},
      { 'Retry-After': '5' },
    ),
  shuttingDown: () => new Problem(503, 'shutting_down', 'This instance is shutting down.', {}, { 'Retry-After': '1' }),
  internal: () => new Problem(500, 'internal_error', 'An unexpected error occurred.'),
};
