import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { deviceBody, deviceFieldFlags, deviceFields, type DeviceFields } from './fields.js';
import type { Device } from './types.js';

export interface DevicesCreateOptions {
  readonly fields: DeviceFields & { name: string };
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(deviceFieldFlags(command.description('Create a device of the organization.').argument('<name>', 'its name')));
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runDevicesCreate({ fields: { ...deviceFields(raw), name: positionals[0]! }, json: flag.json(raw) }, ctx);

/** `POST /devices`. The new device's id on stdout; `--json` the device. */
export async function runDevicesCreate(options: DevicesCreateOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const body = await deviceBody(client, options.fields);
  const device = (await client.request({ method: 'POST', path: '/devices', body })).body as Device;
  if (options.json) return printJson(ctx.io, device);
  ctx.io.err(`Created device ${device.name}.\n`);
  ctx.io.out(`${device.id}\n`);
}
