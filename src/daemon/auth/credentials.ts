import type { IncomingHttpHeaders } from 'node:http';

export type Credential =
  | { readonly kind: 'none' }
  | { readonly kind: 'bearer'; readonly token: string }
  /** `password` is what follows the first `:` of the decoded user-pass ('' when there is none). */
  | { readonly kind: 'basic'; readonly password: string }
  | { readonly kind: 'malformed' };

/** What the `Authorization` header carries. The scheme is case-insensitive (RFC 9110); the token is taken as sent. */
export function readCredential(headers: IncomingHttpHeaders): Credential {
  const header = headers.authorization;
  if (header === undefined || header === '') return { kind: 'none' };
  const space = header.indexOf(' ');
  const scheme = (space < 0 ? header : header.slice(0, space)).toLowerCase();
  const value = space < 0 ? '' : header.slice(space + 1).trim();
  if (scheme === 'basic') return { kind: 'basic', password: basicPassword(value) };
  if (scheme === 'bearer' && value !== '' && !/\s/.test(value)) return { kind: 'bearer', token: value };
  return { kind: 'malformed' };
}

/** The password of RFC 7617 credentials (the user-id is ignored: a run token is the password). */
function basicPassword(encoded: string): string {
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? '' : decoded.slice(colon + 1);
}
