import type { Command } from 'commander';
import { isFinishedRun } from '../../../shared/run-statuses.js';
import type { Context } from '../../runtime/context.js';
import { renderRunWatch } from '../../ui/render.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { endFollowing, followRun, sayReconnecting } from './follow.js';
import { awaitingApprovalNote, progressLine } from './progress.js';
import { getRun, runArgument } from './resolve.js';

export interface RunsWatchOptions {
  readonly run: string;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    runArgument(
      command.description(
        'Follow a run live until it ends (waiting through pauses and approvals): a view in a terminal, else one line per event (--json: one JSON event per line); exit 0 when it succeeded, 7 failed, 8 cancelled. Stopping (q, Ctrl-C) leaves the run going.',
      ),
    ),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runRunsWatch(parseRunsWatchOptions(positionals[0]!, raw), ctx);

export function parseRunsWatchOptions(run: string, raw: Record<string, unknown>): RunsWatchOptions {
  return { run, json: flag.json(raw) };
}

/**
 * Follows a run from its first event to its end. On a terminal (stdout) without `--json`, the Ink view
 * (ui/render.ts, the only path that loads Ink); otherwise the events on stdout, as lines for people or
 * with `--json` as the daemon's event objects, one per line (`jq` reads them as they come).
 */
export async function runRunsWatch(options: RunsWatchOptions, ctx: Context): Promise<void> {
  const run = await getRun(ctx.apiClient(), options.run);
  if (!options.json && ctx.io.stdoutIsTTY) {
    const { ending, stopped } = await renderRunWatch({
      run,
      keys: ctx.io.stdinIsTTY,
      follow: (push, stop) =>
        followRun(
          ctx,
          run.id,
          {
            event: (event) => push({ kind: 'event', event }),
            reconnecting: (item) =>
              push({ kind: 'reconnecting', text: `stream lost (${item.reason}); reconnecting after event ${item.after}` }),
          },
          { signal: stop },
        ),
    });
    if (stopped === 'quit') return void ctx.io.err(`Stopped watching run ${run.id}; the run goes on.\n`);
    return endFollowing(ctx, run.id, ending);
  }
  // A run that had ended is only replayed: its approvals were decided, none is "still waiting".
  const replayOnly = isFinishedRun(run.status);
  const ending = await followRun(ctx, run.id, {
    event: (event) => {
      ctx.io.out(options.json ? `${JSON.stringify(event)}\n` : `${progressLine(event)}\n`);
      const note = replayOnly ? undefined : awaitingApprovalNote(run.id, event);
      if (note !== undefined) ctx.io.err(`${note}\n`);
    },
    reconnecting: sayReconnecting(ctx),
  });
  if (ending !== undefined) ctx.io.err(`Run ${run.id} ${ending}.\n`);
  endFollowing(ctx, run.id, ending);
}
