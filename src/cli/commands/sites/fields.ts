import type { Command } from 'commander';
import type { ApiClient } from '../../http/client.js';
import { siteId } from '../runs/resolve.js';
import { clearable, collect, flag, replacementTags } from '../shared.js';

/** A site's fields as the flags give them; `parent` is a site's name or id (null: a top-level site). */
export interface SiteFields {
  name?: string;
  description?: string | null;
  parent?: string | null;
  address?: string | null;
  tags?: string[];
}

/** The field flags of `create` and `update`; an empty value clears a field. */
export function siteFieldFlags(command: Command): Command {
  return command
    .option('--description <text>', 'what the site is ("" clears it)')
    .option('--parent <site>', 'the site it is part of, by name or id ("" makes it a top-level site)')
    .option('--address <text>', 'its postal address ("" clears it)')
    .option('--tag <tag>', 'a tag; repeat for more (they replace the site’s tags)', collect)
    .option('--clear-tags', 'remove every tag');
}

export function siteFields(raw: Record<string, unknown>): SiteFields {
  const fields: SiteFields = {};
  const name = flag.string(raw, 'name');
  if (name !== undefined) fields.name = name;
  for (const key of ['description', 'parent', 'address'] as const) {
    const value = clearable(raw, key);
    if (value !== undefined) fields[key] = value;
  }
  const tags = replacementTags(raw);
  if (tags !== undefined) fields.tags = tags;
  return fields;
}

/** The request body of `fields`: the parent named by its id. */
export async function siteBody(client: ApiClient, fields: SiteFields): Promise<Record<string, unknown>> {
  const { parent, ...rest } = fields;
  if (parent === undefined) return rest;
  return { ...rest, parent_id: parent === null ? null : await siteId(client, parent) };
}
