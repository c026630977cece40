import { readFile } from 'node:fs/promises';
import { usageError } from '../../errors.js';
import { ApiClient } from '../../http/client.js';
import type { Context } from '../../runtime/context.js';
import { printJson, readStdin } from '../../runtime/io.js';

export interface ApiOptions {
  readonly method: string;
  readonly path: string;
  /** `-F k=v`: typed (true, false, null, numbers, `@file` reads a file); `-f k=v`: strings. */
  readonly fields: readonly { readonly key: string; readonly value: string; readonly typed: boolean }[];
  /** `--input FILE` or `-` for stdin: the raw request body. */
  readonly input: string | undefined;
  readonly headers: Readonly<Record<string, string>>;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

function splitPair(text: string, separator: string, flag: string): [string, string] {
  const at = text.indexOf(separator);
  if (at <= 0) throw usageError(`${flag} takes key${separator}value, not "${text}"`);
  return [text.slice(0, at).trim(), text.slice(at + 1).trim()];
}

/** Only parses: METHOD PATH and the repeated flags. */
export function parseApiOptions(method: string, path: string, raw: Record<string, unknown>): ApiOptions {
  const upper = method.toUpperCase();
  if (!METHODS.has(upper)) throw usageError(`unknown HTTP method ${method}`);
  if (!path.startsWith('/')) throw usageError(`the path must start with /, not "${path}"`);
  const strings = (value: unknown) => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
  const fields = [
    ...strings(raw.field).map((f) => ({ pair: splitPair(f, '=', '--field'), typed: true })),
    ...strings(raw.rawField).map((f) => ({ pair: splitPair(f, '=', '--raw-field'), typed: false })),
  ].map(({ pair: [key, value], typed }) => ({ key, value, typed }));
  const input = typeof raw.input === 'string' ? raw.input : undefined;
  if (input !== undefined && fields.length > 0 && upper !== 'GET') throw usageError('--input and --field cannot both make the body', 'fields go into the query string of a GET only');
  const headers = Object.fromEntries(strings(raw.header).map((h) => splitPair(h, ':', '--header')));
  return { method: upper, path, fields, input, headers };
}

async function typedValue(value: string): Promise<unknown> {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (value === 'null') return null;
  if (/^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (value.startsWith('@')) return (await readFile(value.slice(1), 'utf8')).replace(/\n$/, '');
  return value;
}

/** Calls the API like `gh api`: fields become the query of a GET or a JSON body otherwise; prints the body. */
export async function runApi(options: ApiOptions, ctx: Context): Promise<void> {
  let body: unknown;
  const query: Record<string, string[]> = {};
  if (options.input !== undefined) {
    body = options.input === '-' ? await readStdin(ctx.io) : await readFile(options.input, 'utf8');
  } else if (options.fields.length > 0) {
    if (options.method === 'GET' || options.method === 'HEAD') {
      for (const f of options.fields) (query[f.key] ??= []).push(f.value);
    } else {
      const object: Record<string, unknown> = {};
      for (const f of options.fields) object[f.key] = f.typed ? await typedValue(f.value) : f.value;
      body = object;
    }
  }
  const response = await new ApiClient(ctx).request({ method: options.method, path: options.path, query, body, headers: { ...options.headers } });
  if (response.body === null) return;
  if (typeof response.body === 'string') ctx.io.out(response.body.endsWith('\n') ? response.body : `${response.body}\n`);
  else printJson(ctx.io, response.body);
}
