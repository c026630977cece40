import type { Command } from 'commander';
import { confirmDestructive } from '../../runtime/confirm.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { enc, flag, jsonFlag, yesFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { stateArgument, type IacState } from './types.js';

export interface IacStatesUnlockOptions {
  readonly state: string;
  readonly yes: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  yesFlag(
    jsonFlag(
      stateArgument(
        command.description(
          "Force the state's lock off, whoever holds it, as `terraform force-unlock` does, and end a run's hold on it (admins; audited with what was removed).",
        ),
      ),
    ),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runIacStatesUnlock({ state: positionals[0]!, yes: flag.yes(raw), json: flag.json(raw) }, ctx);

/** `POST /iac-states/{name}/force-unlock`. `--json`: the state, unlocked. */
export async function runIacStatesUnlock(options: IacStatesUnlockOptions, ctx: Context): Promise<void> {
  await confirmDestructive(
    ctx.io,
    `Force the lock of state ${options.state} off (an apply still running would write unlocked)`,
    options.yes,
  );
  const path = `/iac-states/${enc(options.state)}/force-unlock`;
  const state = (await ctx.apiClient().request({ method: 'POST', path })).body as IacState;
  if (options.json) return printJson(ctx.io, state);
  ctx.io.err(`State ${state.name} is unlocked.\n`);
}
