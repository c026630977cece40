/**
 * The password of an `Authorization: Basic` header (the run token; the username is ignored), or
 * undefined when the header is absent, of another scheme, or not base64 of `user:password`.
 */
export function basicPassword(header: string | undefined): string | undefined {
  if (header === undefined || header.length > 4096) return undefined;
  const space = header.indexOf(' ');
  if (space < 0 || header.slice(0, space).toLowerCase() !== 'basic') return undefined;
  const decoded = Buffer.from(header.slice(space + 1).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 || colon === decoded.length - 1 ? undefined : decoded.slice(colon + 1);
}
