import type { Command } from 'commander';
import { confirmDestructive } from '../../runtime/confirm.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { deviceId } from '../runs/resolve.js';
import { enc, flag, jsonFlag, yesFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { deviceArgument } from './get.js';

export interface DevicesDeleteOptions {
  readonly device: string;
  readonly yes: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  yesFlag(jsonFlag(deviceArgument(command.description('Soft-delete a device (restorable through the API).'))));
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runDevicesDelete({ device: positionals[0]!, yes: flag.yes(raw), json: flag.json(raw) }, ctx);

/** `DELETE /devices/{device_id}` (soft). `--json`: `{id, deleted: true}`. */
export async function runDevicesDelete(options: DevicesDeleteOptions, ctx: Context): Promise<void> {
  await confirmDestructive(ctx.io, `Delete device ${options.device} (restorable)`, options.yes);
  const client = ctx.apiClient();
  const id = await deviceId(client, options.device);
  await client.request({ method: 'DELETE', path: `/devices/${enc(id)}` });
  if (options.json) printJson(ctx.io, { id, deleted: true });
  else ctx.io.err(`Deleted device ${id}; POST /devices/${id}/restore brings it back.\n`);
}
