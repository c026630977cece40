import { usageError } from '../../errors.js';
import { ApiClient } from '../../http/client.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printTable } from '../../runtime/table.js';
import { enc, flag, orgOf } from '../shared.js';
import type { SyncPreview as Preview } from '../../../shared/api/idp-mappings.js';

export interface MappingsPreviewOptions {
  readonly org: string;
  readonly user: string;
  /** The claim values the hypothetical login carries (none is a login without the claim's values). */
  readonly groups: string[];
  readonly json: boolean;
}

export function parseMappingsPreviewOptions(raw: Record<string, unknown>): MappingsPreviewOptions {
  const user = flag.string(raw, 'user');
  if (user === undefined) throw usageError('svc idp-mappings preview needs a user', 'pass --user USERNAME');
  return { org: orgOf(raw), user, groups: flag.strings(raw, 'group'), json: flag.json(raw) };
}

/** `GET /orgs/{org_ref}/idp-mappings?preview_user=&groups=…`: what that login would change, writing nothing. */
export async function runMappingsPreview(options: MappingsPreviewOptions, ctx: Context): Promise<void> {
  const query = { preview_user: options.user, ...(options.groups.length > 0 ? { groups: options.groups } : {}) };
  const preview = (await new ApiClient(ctx).request({ method: 'GET', path: `/orgs/${enc(options.org)}/idp-mappings`, query }))
    .body as Preview;
  if (options.json) return printJson(ctx.io, preview);
  ctx.io.err(
    `A login of ${preview.user.username} with ${preview.claim} [${options.groups.join(', ')}] (${preview.authoritative ? 'authoritative' : 'additive'} sync):\n`,
  );
  printTable<Preview['changes'][number]>(
    ctx.io,
    preview.changes,
    [
      { header: 'KIND', value: (c) => c.kind },
      { header: 'ORG', value: (c) => c.org.slug },
      { header: 'ROLE', value: (c) => c.role },
      { header: 'FROM', value: (c) => c.from },
      { header: 'VALUE', value: (c) => c.mapping?.value },
      { header: 'WHY', value: (c) => c.why },
    ],
    'No changes.',
  );
  if (preview.hidden_changes > 0) ctx.io.err(`${preview.hidden_changes} more change(s) in organizations you do not administer.\n`);
}
