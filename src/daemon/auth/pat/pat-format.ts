import { randomSecret } from '../secrets.js';

/** Personal access tokens start with this, so they are recognisable (secret scanners, logs, the daemon itself). */
export const PAT_PREFIX = 'svc_pat_';
const PAT_SHAPE = /^svc_pat_[A-Za-z0-9_-]{43}$/;

export function newPersonalAccessToken(): { token: string; displayPrefix: string } {
  const token = `${PAT_PREFIX}${randomSecret(32)}`;
  return { token, displayPrefix: token.slice(0, PAT_PREFIX.length + 6) };
}

export function looksLikePersonalAccessToken(token: string): boolean {
  return token.startsWith(PAT_PREFIX);
}

export function isWellFormedPersonalAccessToken(token: string): boolean {
  return PAT_SHAPE.test(token);
}
