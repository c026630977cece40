import type { Command } from 'commander';
import { usageError } from '../../errors.js';
import type { ApiClient } from '../../http/client.js';
import { siteId } from '../runs/resolve.js';
import { clearable, collect, flag, replacementTags } from '../shared.js';
import type { Device } from './types.js';

const TEXT_FIELDS = ['hostname', 'platform', 'role', 'serial'] as const;

/** A device's own fields as the flags give them; `site` is a site's name or id (null: no site). */
export interface DeviceFields {
  name?: string;
  hostname?: string | null;
  platform?: string | null;
  role?: string | null;
  serial?: string | null;
  site?: string | null;
  tags?: string[];
  attributes?: Record<string, unknown>;
}

/** The field flags of `create` and `update`; an empty value clears a field. */
export function deviceFieldFlags(command: Command): Command {
  return command
    .option('--hostname <host>', 'the address a worker reaches it at: a host name or IP ("" clears it)')
    .option('--platform <platform>', 'e.g. eos, junos, iosxr ("" clears it)')
    .option('--role <role>', 'e.g. core, edge ("" clears it)')
    .option('--serial <serial>', 'its serial number ("" clears it)')
    .option('--site <site>', 'the site it is at, by name or id ("" clears it)')
    .option('--tag <tag>', 'a tag; repeat for more (they replace the device’s own tags)', collect)
    .option('--clear-tags', 'remove every own tag')
    .option('--attributes-json <json>', 'its attributes, a JSON object (replaces them)');
}

export function deviceFields(raw: Record<string, unknown>): DeviceFields {
  const fields: DeviceFields = {};
  const name = flag.string(raw, 'name');
  if (name !== undefined) fields.name = name;
  for (const key of [...TEXT_FIELDS, 'site'] as const) {
    const value = clearable(raw, key);
    if (value !== undefined) fields[key] = value;
  }
  const tags = replacementTags(raw);
  if (tags !== undefined) fields.tags = tags;
  const attributes = flag.string(raw, 'attributesJson');
  if (attributes !== undefined) fields.attributes = jsonObject(attributes);
  return fields;
}

function jsonObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw usageError('--attributes-json is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw usageError('--attributes-json takes a JSON object');
  return value as Record<string, unknown>;
}

/**
 * The body of `POST` or `PUT /devices…` (both replace every editable field): `current`'s own fields (none
 * for a new device) with `fields` over them, the site named by its id.
 */
export async function deviceBody(client: ApiClient, fields: DeviceFields, current?: Device): Promise<Record<string, unknown>> {
  const { site, ...rest } = fields;
  const kept = current && {
    name: current.name,
    hostname: current.hostname,
    platform: current.platform,
    role: current.role,
    serial: current.serial,
    site_id: current.site_id,
    tags: current.tags,
    attributes: current.attributes,
  };
  const body: Record<string, unknown> = { ...kept, ...rest };
  if (site !== undefined) body.site_id = site === null ? null : await siteId(client, site);
  return body;
}
