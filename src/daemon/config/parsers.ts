/**
 * Parsers for environment values. Each returns the typed value or throws a SettingError whose message
 * says what was expected; the loader adds the variable's name.
 */
export class SettingError extends Error {}

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);

export function parseBoolean(raw: string): boolean {
  const value = raw.trim().toLowerCase();
  if (TRUE.has(value)) return true;
  if (FALSE.has(value)) return false;
  throw new SettingError('expected true or false');
}

export function integerBetween(min: number, max: number): (raw: string) => number {
  return (raw) => {
    const trimmed = raw.trim();
    if (!/^-?\d+$/.test(trimmed)) throw new SettingError(`expected an integer between ${min} and ${max}`);
    const value = Number(trimmed);
    if (value < min || value > max) throw new SettingError(`expected an integer between ${min} and ${max}`);
    return value;
  };
}

export function oneOf<const T extends string>(values: readonly T[]): (raw: string) => T {
  return (raw) => {
    const value = raw.trim() as T;
    if (!values.includes(value)) throw new SettingError(`expected one of ${values.join(', ')}`);
    return value;
  };
}

export function parseHttpUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new SettingError('expected an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SettingError('expected an http(s) URL');
  // Issuers are compared byte for byte with the token's `iss`, so keep the value exactly as written.
  return raw.trim();
}

export function parsePostgresUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new SettingError('expected a postgres:// connection URL');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new SettingError('expected a postgres:// or postgresql:// connection URL');
  }
  return raw.trim();
}

export function nonEmpty(raw: string): string {
  const value = raw.trim();
  if (value === '') throw new SettingError('must not be empty');
  return value;
}
