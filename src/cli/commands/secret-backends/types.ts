import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printTable } from '../../runtime/table.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import type { SecretBackendTypeView } from './views.js';

export interface SecretBackendsTypesOptions {
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(command.description('The backend types the daemon knows, and whether this build serves each (AVAILABLE).'));
}

export const invoke: Invoke = ({ raw, ctx }) => runSecretBackendsTypes({ json: flag.json(raw) }, ctx);

/** `GET /settings/secret-backend-types`: `TYPE NAME AVAILABLE DESCRIPTION`; `--json` the daemon's `{items}`. */
export async function runSecretBackendsTypes(options: SecretBackendsTypesOptions, ctx: Context): Promise<void> {
  const answer = (await ctx.apiClient().request({ method: 'GET', path: '/settings/secret-backend-types' })).body as {
    items: SecretBackendTypeView[];
  };
  if (options.json) return printJson(ctx.io, answer);
  printTable(
    ctx.io,
    answer.items,
    [
      { header: 'TYPE', value: (t) => t.type },
      { header: 'NAME', value: (t) => t.name },
      { header: 'AVAILABLE', value: (t) => (t.available ? 'yes' : 'no') },
      { header: 'DESCRIPTION', value: (t) => t.description },
    ],
    'No backend types.',
  );
}
