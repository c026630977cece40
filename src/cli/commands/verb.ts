import type { Command } from 'commander';
import type { Context } from '../runtime/context.js';

/** What commander gathered for a verb, and the context it runs in. */
export interface VerbArgs {
  /** Its positional arguments, in order; a variadic one's values each in a place of their own. */
  readonly positionals: string[];
  /** Its flags and its parents' (`svc perms --json` and `svc perms actions --json` both reach the verb), by commander's names. */
  readonly raw: Record<string, unknown>;
  readonly ctx: Context;
}

/** Runs a verb: what main.ts's dispatch calls once commander has parsed the command line. */
export type Runner = (args: VerbArgs) => Promise<void>;

/** Wraps a verb's lazily loaded runner into commander's action (main.ts makes the context there). */
export type Dispatch = (run: () => Promise<Runner>) => (...commanderArgs: unknown[]) => Promise<void>;

/** The arguments of `invoke`: a runner's, and the whole command tree for the verb that lists it (`svc completion`). */
export interface InvokeArgs extends VerbArgs {
  /** The root command with every verb defined. */
  commandTree(): Promise<Command>;
}

export type Invoke = (args: InvokeArgs) => Promise<void>;

/**
 * A verb module (`commands/<noun>/<verb>.ts`) exports these two beside its options type, its parse
 * function (flags only) and its run function (the logic): `define` declares the verb's help,
 * arguments and flags on the command the registry made for it, and `invoke` calls the parse function
 * and then the run function.
 */
export interface Verb {
  define(command: Command): void;
  readonly invoke: Invoke;
}
