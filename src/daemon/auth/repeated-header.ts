/** The headers that carry a credential; each must come at most once. */
export type CredentialHeader = 'authorization' | 'x-internal-token' | 'x-service-signature';

const CREDENTIAL_HEADERS: readonly CredentialHeader[] = ['authorization', 'x-internal-token', 'x-service-signature'];

/**
 * The first credential header the request repeats, if any. Node keeps only the first `Authorization`
 * and joins other repeats with ", ", so without this a valid credential followed by garbage (or by
 * someone else's) would authenticate as whichever came first. Reads the raw header list: names only,
 * a length test before any lower-casing, nothing allocated on the usual request.
 */
export function repeatedCredentialHeader(rawHeaders: readonly string[]): CredentialHeader | undefined {
  let seen = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length !== 13 && name.length !== 16 && name.length !== 19) continue;
    const index = CREDENTIAL_HEADERS.indexOf(name.toLowerCase() as CredentialHeader);
    if (index < 0) continue;
    const bit = 1 << index;
    if (seen & bit) return CREDENTIAL_HEADERS[index];
    seen |= bit;
  }
  return undefined;
}
