import { SECRET_KEY_PATTERN, SECRET_NAME_MAX, isSafeSecretPath } from './names.js';

/**
 * A parsed secret reference. Two spellings reach the same secret:
 * - a location, `<scheme>://orgs/<org_slug>/secrets/<path>`, bare or inside `{{ secret('…') }}`;
 * - a secret name of the caller's organization, only inside `{{ secret('<name>') }}`.
 * Either may end with `#<key>` to select one key of the folder.
 */
export type SecretReference =
  | { readonly kind: 'location'; readonly scheme: string; readonly orgSlug: string; readonly path: string; readonly key?: string }
  | { readonly kind: 'name'; readonly name: string; readonly key?: string };

const TEMPLATE = /^\{\{\s*secret\(\s*(?:'([^']*)'|"([^"]*)")\s*\)\s*\}\}$/;
const LOCATION = /^([a-z][a-z0-9+.-]{0,63}):\/\/orgs\/([a-z0-9]+(?:-[a-z0-9]+)*)\/secrets\/(.+)$/;

/** Parses a reference, or answers undefined when it is neither spelling. */
export function parseSecretReference(text: string): SecretReference | undefined {
  const trimmed = text.trim();
  const template = TEMPLATE.exec(trimmed);
  const inner = template ? (template[1] ?? template[2] ?? '') : trimmed;
  const hash = inner.lastIndexOf('#');
  const body = hash === -1 ? inner : inner.slice(0, hash);
  const key = hash === -1 ? undefined : inner.slice(hash + 1);
  if (key !== undefined && !SECRET_KEY_PATTERN.test(key)) return undefined;
  const withKey = key === undefined ? {} : { key };
  const location = LOCATION.exec(body);
  if (location) {
    const path = location[3]!;
    if (!isSafeSecretPath(path)) return undefined;
    return { kind: 'location', scheme: location[1]!, orgSlug: location[2]!, path, ...withKey };
  }
  // A bare name would be indistinguishable from a plain string value: only the template names a secret.
  if (!template || body.length > SECRET_NAME_MAX || !isSafeSecretPath(body)) return undefined;
  return { kind: 'name', name: body, ...withKey };
}

/** The folder of `path` in the organization's prefix: what a backend stores it under. */
export function secretLocation(orgSlug: string, path: string): string {
  return `orgs/${orgSlug}/secrets/${path}`;
}

/** The organization's prefix in every backend. */
export function orgSecretsPrefix(orgSlug: string): string {
  return `orgs/${orgSlug}/secrets/`;
}

/** The bare reference of a secret, as flows write it. */
export function secretReference(scheme: string, orgSlug: string, path: string): string {
  return `${scheme}://${secretLocation(orgSlug, path)}`;
}

/** Splits a stored location back into organization slug and path, or undefined when it is not one. */
export function splitSecretLocation(location: string): { orgSlug: string; path: string } | undefined {
  const match = /^orgs\/([a-z0-9]+(?:-[a-z0-9]+)*)\/secrets\/(.+)$/.exec(location);
  if (!match || !isSafeSecretPath(match[2]!)) return undefined;
  return { orgSlug: match[1]!, path: match[2]! };
}
