import { problem } from '../../shared/api/problem.js';

/**
 * Every 401 names what the route takes (RFC 9110 15.5.2). Neither the worker token nor a stream ticket
 * has a registered scheme: each challenge names its own (`X-Internal-Token`, `Ticket`), and a stream
 * route, which also takes a bearer token, offers both.
 */
const INTERNAL_TOKEN_CHALLENGE = 'X-Internal-Token realm="svc"';
const TICKET_CHALLENGE = 'Ticket realm="svc", Bearer realm="svc"';

/** The refusals of authentication, each 401 with its challenge. */
export const authProblems = {
  unauthenticated: (challenge: string) => problem('unauthenticated', 'Missing authentication token', {}, { 'WWW-Authenticate': challenge }),
  tokenExpired: () =>
    problem(
      'token_expired',
      'Token expired',
      {},
      { 'WWW-Authenticate': 'Bearer realm="svc", error="invalid_token", error_description="token expired"' },
    ),
  invalidToken: () =>
    problem('invalid_token', 'Invalid or expired token', {}, { 'WWW-Authenticate': 'Bearer realm="svc", error="invalid_token"' }),
  invalidInternalToken: () =>
    problem('invalid_internal_token', 'Invalid internal authentication token', {}, { 'WWW-Authenticate': INTERNAL_TOKEN_CHALLENGE }),
  basicRefused: () =>
    problem(
      'basic_auth_refused',
      'HTTP Basic credentials are not accepted here; send a Bearer token.',
      {},
      { 'WWW-Authenticate': 'Bearer realm="svc"' },
    ),
  invalidRunToken: () =>
    problem('invalid_run_token', 'Not a live run token for the state backend.', {}, { 'WWW-Authenticate': 'Basic realm="svc"' }),
  accountDisabled: () =>
    problem('account_disabled', 'The account is deactivated.', {}, { 'WWW-Authenticate': 'Bearer realm="svc", error="invalid_token"' }),
  authUnavailable: () =>
    problem('auth_unavailable', 'Authentication service temporarily unavailable (retry after 30 s)', {}, { 'Retry-After': '30' }),
  authNotConfigured: () => problem('auth_not_configured', 'Authentication service not configured'),
  invalidTicket: () =>
    problem('invalid_ticket', 'The ticket is unknown, expired or already used.', {}, { 'WWW-Authenticate': TICKET_CHALLENGE }),
  ticketsUnavailable: () => problem('tickets_unavailable', 'Stream tickets are not issued while authentication is disabled.'),
};
