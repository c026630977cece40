import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printRecord } from '../../runtime/table.js';
import { deviceId } from '../runs/resolve.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { deviceFields, type Device } from './types.js';

export interface DevicesGetOptions {
  readonly device: string;
  readonly json: boolean;
}

/** DEVICE, the argument of the verbs that act on one device. */
export const deviceArgument = (command: Command) => command.argument('<device>', 'device name, or its id');

export function define(command: Command): void {
  jsonFlag(
    deviceArgument(command.description('One device: its own fields, its local tags and maintenance override, where it comes from.')),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runDevicesGet({ device: positionals[0]!, json: flag.json(raw) }, ctx);

/** `GET /devices/{device_id}`. */
export async function runDevicesGet(options: DevicesGetOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await deviceId(client, options.device);
  const device = (await client.request({ method: 'GET', path: `/devices/${enc(id)}` })).body as Device;
  if (options.json) return printJson(ctx.io, device);
  printRecord(ctx.io, deviceFields(device));
}
