import type { IncomingHttpHeaders } from 'node:http';

export type Credential =
  | { readonly kind: 'none' }
  | { readonly kind: 'bearer'; readonly token: string }
  | { readonly kind: 'basic' }
  | { readonly kind: 'malformed' };

/** What the `Authorization` header carries. The scheme is case-insensitive (RFC 9110); the token is taken as sent. */
export function readCredential(headers: IncomingHttpHeaders): Credential {
  const header = headers.authorization;
  if (header === undefined || header === '') return { kind: 'none' };
  const space = header.indexOf(' ');
  const scheme = (space < 0 ? header : header.slice(0, space)).toLowerCase();
  const value = space < 0 ? '' : header.slice(space + 1).trim();
  if (scheme === 'basic') return { kind: 'basic' };
  if (scheme === 'bearer' && value !== '' && !/\s/.test(value)) return { kind: 'bearer', token: value };
  return { kind: 'malformed' };
}
