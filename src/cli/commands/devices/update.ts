import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { deviceId } from '../runs/resolve.js';
import { enc, flag, jsonFlag, someChange } from '../shared.js';
import type { Invoke } from '../verb.js';
import { deviceBody, deviceFieldFlags, deviceFields, type DeviceFields } from './fields.js';
import { deviceArgument } from './get.js';
import type { Device } from './types.js';

export interface DevicesUpdateOptions {
  readonly device: string;
  /** Only what was given; the rest is kept as the device has it. */
  readonly changes: DeviceFields;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    deviceFieldFlags(
      deviceArgument(command.description("Change a device's own fields: only those given, the others kept.")).option(
        '--name <name>',
        'a new name',
      ),
    ),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runDevicesUpdate(parseDevicesUpdateOptions(positionals[0]!, raw), ctx);

export function parseDevicesUpdateOptions(device: string, raw: Record<string, unknown>): DevicesUpdateOptions {
  const changes = someChange(
    deviceFields(raw),
    '--name, --hostname, --platform, --role, --serial, --site, --tag/--clear-tags or --attributes-json (svc devices annotate sets the local tags and maintenance)',
  );
  return { device, changes, json: flag.json(raw) };
}

/**
 * `GET` then `PUT /devices/{device_id}`: the route replaces every field, so the device's own are sent back
 * with the changes over them, `If-Match` the version read: a change someone made in between is 412
 * `precondition_failed` (exit 1, nothing written), not overwritten. A provider's device refuses (409
 * `provider_managed`).
 */
export async function runDevicesUpdate(options: DevicesUpdateOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await deviceId(client, options.device);
  const path = `/devices/${enc(id)}`;
  const read = await client.request({ method: 'GET', path });
  const body = await deviceBody(client, options.changes, read.body as Device);
  const etag = read.headers.get('etag');
  const headers = etag === null ? undefined : { 'if-match': etag };
  const device = (await client.request({ method: 'PUT', path, body, headers })).body as Device;
  if (options.json) return printJson(ctx.io, device);
  ctx.io.err(`Updated device ${device.name} (${device.id}): ${Object.keys(options.changes).sort().join(', ')}.\n`);
}
