import { readNetworkList } from '../../shared/net/network-matcher.js';

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

/** An absolute URL with one of `protocols`, kept exactly as written (issuers are compared byte for byte with `iss`). */
function urlWith(protocols: readonly string[], expected: string): (raw: string) => string {
  return (raw) => {
    let url: URL;
    try {
      url = new URL(raw.trim());
    } catch {
      throw new SettingError(`expected ${expected}`);
    }
    if (!protocols.includes(url.protocol)) throw new SettingError(`expected ${expected}`);
    return raw.trim();
  };
}

export const parseHttpUrl = urlWith(['http:', 'https:'], 'an absolute http(s) URL');
export const parsePostgresUrl = urlWith(['postgres:', 'postgresql:'], 'a postgres:// or postgresql:// connection URL');

export function nonEmpty(raw: string): string {
  const value = raw.trim();
  if (value === '') throw new SettingError('must not be empty');
  return value;
}

/** A 256-bit key, written as 64 hex digits or as base64 (standard or URL-safe) of 32 bytes. */
export function parseKey256(raw: string): Buffer {
  const text = raw.trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) {
    const bytes = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (bytes.length === 32) return bytes;
  }
  throw new SettingError('must be 32 bytes as 64 hex digits or base64');
}

/** Comma-separated CIDR blocks or addresses (IPv4, IPv6), checked as strictly as a webhook allow-list; empty gives none. */
export function parseNetworkList(raw: string): string[] {
  const list = readNetworkList(raw);
  if ('message' in list) throw new SettingError(list.message);
  return list.entries;
}
