/**
 * The key names tried in order when one value must be taken from a secret's folder without naming a key
 * (the webhook specification's rule for signing keys and bearer tokens).
 */
export const PREFERRED_SECRET_KEYS = ['value', 'secret', 'hmac', 'hmac_key', 'token', 'key'] as const;

/**
 * The value of the first present key among PREFERRED_SECRET_KEYS, else the value of the only key when the
 * folder holds exactly one, else undefined. "Present" means the key exists, even with an empty value:
 * whether an empty value is usable is the caller's decision.
 */
export function pickSecretValue(folder: Readonly<Record<string, string>>): string | undefined {
  for (const key of PREFERRED_SECRET_KEYS) if (Object.hasOwn(folder, key)) return folder[key];
  const keys = Object.keys(folder);
  return keys.length === 1 ? folder[keys[0]!] : undefined;
}
