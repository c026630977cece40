import { usageError } from '../../errors.js';
import { jsonObjectArgument } from '../json-object-flag.js';
import { flag } from '../shared.js';

/**
 * `--param k=v`: the value is JSON when it parses as JSON (`5`, `true`, `null`, `{"a":1}`, `"5"`),
 * else the text as a string. The daemon never coerces (`"5"` is no integer), so the CLI decides the
 * type here, as `svc api -F` does, and `--param id='"5"'` sends the string.
 */
export function paramValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function keyValue(entry: string, name: string, what: string): [string, string] {
  const at = entry.indexOf('=');
  if (at <= 0) throw usageError(`${name} takes ${what}=VALUE, not "${entry}"`);
  return [entry.slice(0, at), entry.slice(at + 1)];
}

/** The run's params: `--params-json` first, then each `--param` over it; undefined when neither is given. */
export function paramsOf(raw: Record<string, unknown>): Record<string, unknown> | undefined {
  const json = flag.string(raw, 'paramsJson');
  const pairs = flag.strings(raw, 'param');
  if (json === undefined && pairs.length === 0) return undefined;
  const params = json === undefined ? {} : jsonObjectArgument(json, '--params-json');
  for (const entry of pairs) {
    const [key, value] = keyValue(entry, '--param', 'KEY');
    params[key] = paramValue(value);
  }
  return params;
}

/** `--target role=device` (repeat; several may be comma-separated): devices (ids or names, `withDeviceIds`) per role, in order given. */
export function targetsOf(raw: Record<string, unknown>): Record<string, string[]> | undefined {
  const entries = flag.strings(raw, 'target');
  if (entries.length === 0) return undefined;
  const targets: Record<string, string[]> = {};
  for (const entry of entries) {
    const [role, ids] = keyValue(entry, '--target', 'ROLE');
    const devices = ids
      .split(',')
      .map((id) => id.trim())
      .filter((id) => id !== '');
    if (devices.length === 0) throw usageError(`--target ${role}= names no device`);
    (targets[role] ??= []).push(...devices);
  }
  return targets;
}

/** `--version N`, `--limit N`: a whole number from 1. */
export function positiveNumber(raw: Record<string, unknown>, key: string, name: string): number | undefined {
  const text = flag.string(raw, key);
  if (text === undefined) return undefined;
  if (!/^[1-9]\d{0,8}$/.test(text)) throw usageError(`${name} must be a whole number from 1, not "${text}"`);
  return Number(text);
}
