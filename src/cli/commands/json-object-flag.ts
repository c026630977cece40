import { readFileSync } from 'node:fs';
import { usageError } from '../errors.js';
import type { Context } from '../runtime/context.js';
import { readStdin } from '../runtime/io.js';
import { flag } from './shared.js';

/**
 * A flag holding a JSON object (a kind's or a plugin's settings): inline JSON, `@PATH` a file holding
 * it, `-` stdin; undefined when absent. A file that cannot be read or anything but a JSON object is a usage
 * error (exit 2), as `--params-json @FILE`'s: the daemon then checks the object itself (422).
 */
export async function jsonObjectFlag(
  raw: Record<string, unknown>,
  key: string,
  name: string,
  ctx: Context,
): Promise<Record<string, unknown> | undefined> {
  const given = flag.string(raw, key);
  if (given === undefined) return undefined;
  const forms = 'a JSON object, @FILE or - (stdin)';
  return given === '-' ? jsonObject(await readStdin(ctx.io), name, forms) : jsonObjectArgument(given, name, forms);
}

/** A JSON object given inline or as `@PATH` (`--params-json`, `--config`); an unreadable file or anything else is exit 2. */
export function jsonObjectArgument(given: string, name: string, forms = 'a JSON object or @FILE'): Record<string, unknown> {
  return jsonObject(given.startsWith('@') ? readArgumentFile(given.slice(1), name) : given, name, forms);
}

function readArgumentFile(path: string, name: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw usageError(`${name}: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** `forms`: what the flag takes, for the hint of a text that is not JSON. */
function jsonObject(text: string, name: string, forms: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw usageError(`${name} is not JSON`, `give ${forms}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw usageError(`${name} must be a JSON object`);
  return value as Record<string, unknown>;
}
