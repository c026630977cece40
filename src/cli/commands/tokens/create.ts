import type { Command } from 'commander';
import { usageError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';
import { printJson, styles } from '../../runtime/io.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import type { CreatedToken } from './types.js';

export interface TokensCreateOptions {
  readonly name: string;
  readonly user: string | undefined;
  readonly org: string | undefined;
  readonly expiresInDays: number | undefined;
  readonly expiresAt: string | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description('Issue a token (for --user, default you, in --org, default the default organization); the plaintext is printed once.')
      .argument('<name>', 'a name to tell it apart'),
  )
    .option('--user <username>', 'whose token (default: you)')
    .option('--expires-in-days <n>', 'lifetime in days (1-366; default: no expiry)')
    .option('--expires-at <time>', 'expiry as ISO 8601');
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runTokensCreate(parseTokensCreateOptions(positionals[0]!, raw), ctx);

export function parseTokensCreateOptions(name: string, raw: Record<string, unknown>): TokensCreateOptions {
  const days = flag.string(raw, 'expiresInDays');
  if (days !== undefined && !/^\d+$/.test(days)) throw usageError(`--expires-in-days must be a whole number, not "${days}"`);
  const expiresAt = flag.string(raw, 'expiresAt');
  if (days !== undefined && expiresAt !== undefined) throw usageError('give --expires-in-days or --expires-at, not both');
  return {
    name,
    user: flag.string(raw, 'user'),
    org: flag.string(raw, 'org'),
    expiresInDays: days === undefined ? undefined : Number(days),
    expiresAt,
    json: flag.json(raw),
  };
}

/**
 * `POST /api-tokens`. The plaintext exists only in this answer: it goes to stdout (alone, or in the
 * `--json` record as `token`), and stderr says it will not be shown again.
 */
export async function runTokensCreate(options: TokensCreateOptions, ctx: Context): Promise<void> {
  const body = {
    name: options.name,
    ...(options.user === undefined ? {} : { username: options.user }),
    ...(options.org === undefined ? {} : { org: options.org }),
    ...(options.expiresInDays === undefined ? {} : { expires_in_days: options.expiresInDays }),
    ...(options.expiresAt === undefined ? {} : { expires_at: options.expiresAt }),
  };
  const created = (await ctx.apiClient().request({ method: 'POST', path: '/api-tokens', body })).body as CreatedToken;
  const s = styles(ctx.io.colorErr);
  ctx.io.err(
    `Created token ${created.name} (${created.id}) for ${created.user.username} in ${created.org.slug}, expires ${created.expires_at ?? 'never'}.\n`,
  );
  ctx.io.err(`${s.yellow('warning')}: copy the token now; it will not be shown again.\n`);
  if (options.json) printJson(ctx.io, created);
  else ctx.io.out(`${created.token}\n`);
}
