import { readFile } from 'node:fs/promises';
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
  const text = given === '-' ? await readStdin(ctx.io) : given.startsWith('@') ? await readObjectFile(given.slice(1), name) : given;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw usageError(`${name} is not JSON`, 'give a JSON object, @FILE or - (stdin)');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw usageError(`${name} must be a JSON object`);
  return value as Record<string, unknown>;
}

async function readObjectFile(path: string, name: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw usageError(`${name}: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}
