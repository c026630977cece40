import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { deviceId } from '../runs/resolve.js';
import { flag, jsonFlag, yesFlag } from '../shared.js';
import { runSoftDelete, type SoftDeleted } from '../soft-delete.js';
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

const DELETED: SoftDeleted = { noun: 'device', collection: '/devices', idOf: deviceId };

/** `DELETE /devices/{device_id}` (soft). `--json`: `{id, deleted: true}`. */
export function runDevicesDelete(options: DevicesDeleteOptions, ctx: Context): Promise<void> {
  return runSoftDelete(DELETED, { ref: options.device, yes: options.yes, json: options.json }, ctx);
}
