import { describe, expect, it } from 'vitest';
import { CliError } from '../src/cli/errors.js';
import { providerChanges } from '../src/cli/commands/inventory-providers/update.js';
import { destinationChanges } from '../src/cli/commands/notifications/update.js';
import { parsePlatformSyncUpdateOptions } from '../src/cli/commands/platform-sync/update.js';
import { parseSchedulesUpdateOptions } from '../src/cli/commands/schedules/update.js';
import { enabledOf, exclusive, someChange } from '../src/cli/commands/shared.js';
import type { Context } from '../src/cli/runtime/context.js';

/** The kind of the CliError `run` throws (exit 2 is `usage`), or 'none'. */
async function refusal(run: () => unknown): Promise<string> {
  try {
    await run();
    return 'none';
  } catch (error) {
    if (error instanceof CliError) return error.kind;
    throw error;
  }
}

// No verb below reads its context unless --config is given, which none is.
const noContext = {} as Context;

describe("update verbs' shared flag rules", () => {
  it('exclusive refuses two contradicting flags given together, and nothing else', async () => {
    expect(await refusal(() => exclusive({ a: true, b: 'x' }, ['a', '--a'], ['b', '--b']))).toBe('usage');
    expect(await refusal(() => exclusive({ a: true, b: false }, ['a', '--a'], ['b', '--b']))).toBe('none');
    expect(await refusal(() => exclusive({ b: [] }, ['a', '--a'], ['b', '--b']))).toBe('none');
  });

  it('enabledOf maps --enable and --disable to the switch, neither to no change, both to a usage error', async () => {
    expect(enabledOf({ enable: true })).toBe(true);
    expect(enabledOf({ disable: true })).toBe(false);
    expect(enabledOf({})).toBeUndefined();
    expect(await refusal(() => enabledOf({ enable: true, disable: true }))).toBe('usage');
  });

  it('someChange refuses an update whose every field is absent, and passes a cleared one', async () => {
    expect(await refusal(() => someChange({}, '--x'))).toBe('usage');
    expect(await refusal(() => someChange({ name: undefined, enabled: undefined }, '--x'))).toBe('usage');
    expect(someChange({ name: undefined, description: null }, '--x')).toEqual({ description: null });
    expect(someChange({ enabled: false }, '--x')).toEqual({ enabled: false });
  });

  it('each update verb refuses contradicting flags and an empty change with a usage error (exit 2)', async () => {
    expect(await refusal(() => destinationChanges({ event: ['run.failed'], clearEvents: true }, noContext))).toBe('usage');
    expect(await refusal(() => destinationChanges({ enable: true, disable: true }, noContext))).toBe('usage');
    expect(await refusal(() => destinationChanges({}, noContext))).toBe('usage');
    expect(await destinationChanges({ clearEvents: true, disable: true }, noContext)).toEqual({ default_events: [], enabled: false });
    expect(await refusal(() => providerChanges({ enable: true, disable: true }, noContext))).toBe('usage');
    expect(await refusal(() => providerChanges({}, noContext))).toBe('usage');
    expect(await providerChanges({ enable: true, credential: '' }, noContext)).toEqual({ enabled: true, credential_ref: null });
    expect(await refusal(() => parseSchedulesUpdateOptions('nightly', { flowVersion: '2', unpin: true }))).toBe('usage');
    expect(parseSchedulesUpdateOptions('nightly', { unpin: true }).changes).toEqual({ flow_version: null });
    expect(await refusal(() => parsePlatformSyncUpdateOptions('p1', { family: ['flows'], allFamilies: true }))).toBe('usage');
    expect(await refusal(() => parsePlatformSyncUpdateOptions('p1', {}))).toBe('usage');
  });
});
