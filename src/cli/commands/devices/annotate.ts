import type { Command } from 'commander';
import { usageError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printRecord } from '../../runtime/table.js';
import { deviceId } from '../runs/resolve.js';
import { collect, enc, flag, jsonFlag, oneOf, replacementTags } from '../shared.js';
import type { Invoke } from '../verb.js';
import { deviceArgument } from './get.js';
import { deviceFields, type Device } from './types.js';

export interface DevicesAnnotateOptions {
  readonly device: string;
  /** The overlay's change as `PATCH /devices/{id}/overlay` takes it: null removes a member. */
  readonly overlay: { readonly maintenance?: boolean | null; readonly tags?: readonly string[] | null };
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    deviceArgument(
      command
        .description(
          "Set this organization's local annotations of a device, beside its own data (a provider's device too): the maintenance override and local tags.",
        )
        .option('--maintenance <on|off|unset>', 'put it in maintenance, take it out, or remove the override')
        .option('--tag <tag>', 'its local tags become these (repeatable)', collect)
        .option('--clear-tags', 'remove its local tags'),
    ),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runDevicesAnnotate(parseDevicesAnnotateOptions(positionals[0]!, raw), ctx);

export function parseDevicesAnnotateOptions(device: string, raw: Record<string, unknown>): DevicesAnnotateOptions {
  const maintenance = oneOf(flag.string(raw, 'maintenance'), ['on', 'off', 'unset'], '--maintenance');
  const tags = replacementTags(raw);
  if (maintenance === undefined && tags === undefined) throw usageError('nothing to change', 'pass --maintenance, --tag or --clear-tags');
  return {
    device,
    overlay: {
      ...(maintenance !== undefined ? { maintenance: maintenance === 'unset' ? null : maintenance === 'on' } : {}),
      // The overlay's null, not [], is "no local tags".
      ...(tags !== undefined ? { tags: tags.length === 0 ? null : tags } : {}),
    },
    json: flag.json(raw),
  };
}

/** `PATCH /devices/{device_id}/overlay` (`device:annotate`: operators may). The device on stdout, as `get` prints it. */
export async function runDevicesAnnotate(options: DevicesAnnotateOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await deviceId(client, options.device);
  const device = (await client.request({ method: 'PATCH', path: `/devices/${enc(id)}/overlay`, body: options.overlay })).body as Device;
  if (options.json) return printJson(ctx.io, device);
  ctx.io.err(`Annotated device ${device.name} (${device.id}).\n`);
  printRecord(ctx.io, deviceFields(device));
}
