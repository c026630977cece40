import { CliError, usageError } from '../errors.js';
import { prompt, type IO } from './io.js';

/**
 * Asks before a destructive change. `--yes` skips the question; without a terminal there is nobody to
 * ask, so the command refuses (exit 2) and names `--yes`. Anything but y/yes cancels (exit 1).
 */
export async function confirmDestructive(io: IO, what: string, yes: boolean): Promise<void> {
  if (yes) return;
  if (!io.stdinIsTTY) throw usageError(`${what} needs confirmation and there is no terminal to ask`, 'pass --yes');
  const answer = await prompt(io, `${what}? [y/N] `, '--yes');
  if (!/^y(es)?$/i.test(answer)) throw new CliError('error', 'cancelled; nothing was changed');
}
