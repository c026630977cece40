import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printPage } from '../../runtime/table.js';
import { positiveNumber } from '../runs/inputs.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { backendArgument, backendId, BACKENDS_PATH } from './resolve.js';
import type { SecretBackendItemList } from './views.js';

export interface SecretBackendsItemsOptions {
  /** A backend id or its name. */
  readonly backend: string;
  readonly prefix: string | undefined;
  readonly limit: number | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    backendArgument(
      command.description('The folders a secret backend holds, across organizations, by location: names only, never a value.'),
    )
      .option('--prefix <prefix>', 'only locations starting with this (default orgs/; orgs/<slug>/ for one organization)')
      .option('--limit <n>', 'at most this many (1-500, default 50)'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runSecretBackendsItems(
    {
      backend: positionals[0]!,
      prefix: flag.string(raw, 'prefix'),
      limit: positiveNumber(raw, 'limit', '--limit'),
      json: flag.json(raw),
    },
    ctx,
  );

/** `GET /settings/secrets-backends/{backend_id}/items`: `LOCATION ORG PATH`; `--json` the daemon's page. */
export async function runSecretBackendsItems(options: SecretBackendsItemsOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await backendId(client, options.backend);
  const query = {
    ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
    ...(options.limit === undefined ? {} : { limit: String(options.limit) }),
  };
  const page = (await client.request({ method: 'GET', path: `${BACKENDS_PATH}/${enc(id)}/items`, query })).body as SecretBackendItemList;
  if (options.json) return printJson(ctx.io, page);
  printPage(
    ctx.io,
    page,
    [
      { header: 'LOCATION', value: (i) => i.location },
      { header: 'ORG', value: (i) => i.org_slug },
      { header: 'PATH', value: (i) => i.path },
    ],
    'No items.',
  );
}
