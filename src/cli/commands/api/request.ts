import { readFile } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import { CliError, usageError } from '../../errors.js';
import type { ApiResponse } from '../../http/client.js';
import type { Context } from '../../runtime/context.js';
import { printJson, readStdin } from '../../runtime/io.js';
import { collect } from '../shared.js';
import type { Invoke } from '../verb.js';
import { isPage, mergePages, nextPageQuery, type Page } from './pages.js';

export interface ApiOptions {
  readonly method: string;
  readonly path: string;
  /** `-F k=v`: typed (true, false, null, numbers, `@file` reads a file); `-f k=v`: strings. */
  readonly fields: readonly { readonly key: string; readonly value: string; readonly typed: boolean }[];
  /** `--input FILE` or `-` for stdin: the raw request body. */
  readonly input: string | undefined;
  readonly headers: Readonly<Record<string, string>>;
  /** `--jq EXPR`: print what the jq filter makes of the answer instead of the answer. */
  readonly jq: string | undefined;
  /** `-i/--include`: the status line and headers on stdout before the body. */
  readonly include: boolean;
  /** `--paginate`: follow the list's pages to the end and print one answer with every page's items. */
  readonly paginate: boolean;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

function splitPair(text: string, separator: string, flag: string): [string, string] {
  const at = text.indexOf(separator);
  if (at <= 0) throw usageError(`${flag} takes key${separator}value, not "${text}"`);
  return [text.slice(0, at).trim(), text.slice(at + 1).trim()];
}

export function define(command: Command): void {
  command
    .description('Call the API and print the JSON answer, like `gh api`.')
    .argument('<method>', 'HTTP method')
    .argument('<path>', 'path on the server, e.g. /auth/me')
    .addOption(
      new Option(
        '-F, --field <key=value>',
        'typed field (true, false, null, numbers, @file); query of a GET, JSON body otherwise',
      ).argParser(collect),
    )
    .addOption(new Option('-f, --raw-field <key=value>', 'string field').argParser(collect))
    .option('--input <file>', 'request body from a file, or - for standard input')
    .addOption(new Option('-H, --header <key:value>', 'extra request header').argParser(collect))
    .option('--jq <expr>', 'print what the jq filter makes of the answer (strings raw), e.g. .items[].id')
    .option('-i, --include', 'print the status line and headers before the body')
    .option('--paginate', 'follow the pages of a list (offset or cursor) and print all items as one answer');
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runApi(parseApiOptions(positionals[0]!, positionals[1]!, raw), ctx);

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
  if (input !== undefined && fields.length > 0 && upper !== 'GET')
    throw usageError('--input and --field cannot both make the body', 'fields go into the query string of a GET only');
  const headers = Object.fromEntries(strings(raw.header).map((h) => splitPair(h, ':', '--header')));
  const jq = typeof raw.jq === 'string' ? raw.jq : undefined;
  if (jq !== undefined && jq.trim() === '') throw usageError('--jq takes a jq filter, e.g. .items[].id');
  const paginate = raw.paginate === true;
  if (paginate && upper !== 'GET') throw usageError(`--paginate follows the pages of a list, which only GET reads, not ${upper}`);
  return { method: upper, path, fields, input, headers, jq, include: raw.include === true, paginate };
}

async function typedValue(value: string): Promise<unknown> {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (value === 'null') return null;
  if (/^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (value.startsWith('@')) return (await readFile(value.slice(1), 'utf8')).replace(/\n$/, '');
  return value;
}

/** The query of `path` (`/runs?limit=2`) and the fields, as one map the client appends to the bare path. */
function splitQuery(path: string, fields: Record<string, string[]>): { path: string; query: Record<string, string[]> } {
  const at = path.indexOf('?');
  if (at < 0) return { path, query: fields };
  const query: Record<string, string[]> = {};
  for (const [key, value] of new URLSearchParams(path.slice(at + 1))) (query[key] ??= []).push(value);
  for (const [key, values] of Object.entries(fields)) (query[key] ??= []).push(...values);
  return { path: path.slice(0, at), query };
}

const headerName = (name: string) => name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase());

/** The status line and headers, as `gh api -i` prints them. */
async function printHead(ctx: Context, response: ApiResponse): Promise<void> {
  const { STATUS_CODES } = await import('node:http');
  const lines = [`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ''}`.trimEnd()];
  for (const [name, value] of response.headers) lines.push(`${headerName(name)}: ${value}`);
  ctx.io.out(`${lines.join('\n')}\n\n`);
}

/**
 * Calls the API like `gh api`: fields become the query of a GET or a JSON body otherwise; prints the
 * body, or what --jq makes of it. With --paginate, each next page (offset or cursor) is asked for
 * until the list is exhausted, and the items of all pages print as one answer.
 */
export async function runApi(options: ApiOptions, ctx: Context): Promise<void> {
  let body: unknown;
  const fieldQuery: Record<string, string[]> = {};
  if (options.input !== undefined) {
    body = options.input === '-' ? await readStdin(ctx.io) : await readFile(options.input, 'utf8');
  } else if (options.fields.length > 0) {
    if (options.method === 'GET' || options.method === 'HEAD') {
      for (const f of options.fields) (fieldQuery[f.key] ??= []).push(f.value);
    } else {
      const object: Record<string, unknown> = {};
      for (const f of options.fields) object[f.key] = f.typed ? await typedValue(f.value) : f.value;
      body = object;
    }
  }
  const client = ctx.apiClient();
  const { path, query } = splitQuery(options.path, fieldQuery);
  const send = async (pageQuery: Record<string, string[]>) => {
    const response = await client.request({ method: options.method, path, query: pageQuery, body, headers: { ...options.headers } });
    if (options.include) await printHead(ctx, response);
    return response.body;
  };

  let answer = await send(query);
  if (options.paginate && isPage(answer)) {
    const pages: Page[] = [answer];
    const asked = new Set<string>();
    for (let next = nextPageQuery(answer); next !== undefined; next = nextPageQuery(pages[pages.length - 1]!)) {
      // A server handing back a cursor or offset it already gave would otherwise loop forever.
      if (asked.has(`${next.key}=${next.value}`))
        throw new CliError('server_error', `--paginate: the server offered ${next.key}=${next.value} twice`);
      asked.add(`${next.key}=${next.value}`);
      const page = await send({ ...query, [next.key]: [next.value] });
      if (!isPage(page)) throw new CliError('server_error', `--paginate: the page at ${next.key}=${next.value} is not a list`);
      pages.push(page);
    }
    answer = mergePages(pages);
  }

  if (answer === null) return;
  if (options.jq !== undefined) {
    if (typeof answer === 'string') throw new CliError('error', '--jq: the answer is not JSON');
    const { applyJq } = await import('./jq.js');
    ctx.io.out(await applyJq(answer, options.jq, ctx.io.stdoutIsTTY));
  } else if (typeof answer === 'string') ctx.io.out(answer.endsWith('\n') ? answer : `${answer}\n`);
  else printJson(ctx.io, answer);
}
