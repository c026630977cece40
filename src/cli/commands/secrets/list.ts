import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printPage } from '../../runtime/table.js';
import { positiveNumber } from '../runs/inputs.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { SECRET_COLUMNS, type SecretList } from './types.js';

export interface SecretsListOptions {
  readonly limit: number | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description("The organization's secrets, by name: where each is kept and the reference flows write. Never a value.")
      .option('--limit <n>', 'at most this many (1-500, default 50)'),
  );
}

export const invoke: Invoke = ({ raw, ctx }) => runSecretsList(parseSecretsListOptions(raw), ctx);

export function parseSecretsListOptions(raw: Record<string, unknown>): SecretsListOptions {
  return {
    limit: positiveNumber(raw, 'limit', '--limit'),
    json: flag.json(raw),
  };
}

/** `GET /secrets`. `--json`: the daemon's page `{items, total, limit, offset}`. */
export async function runSecretsList(options: SecretsListOptions, ctx: Context): Promise<void> {
  const query: Record<string, string> = {};
  if (options.limit !== undefined) query.limit = String(options.limit);
  const page = (await ctx.apiClient().request({ method: 'GET', path: '/secrets', query })).body as SecretList;
  if (options.json) return printJson(ctx.io, page);
  printPage(ctx.io, page, SECRET_COLUMNS, 'No secrets.');
}
