import { Command, CommanderError } from 'commander';
import { SVC_VERSION } from '../shared/version.js';
import type { CommandTree } from './commands/command-tree.js';
import { registerCommands } from './commands/registry.js';
import type { Dispatch } from './commands/verb.js';
import { CliError, EXIT_CODES, exitCodeOf } from './errors.js';
import { parseGlobals } from './runtime/base-context.js';
import { createContext } from './runtime/context.js';
import { processIO, styles, type IO } from './runtime/io.js';

/** The admin CLI's root command and its tree of verbs; `dispatch` wraps each verb's lazily loaded runner. */
export function buildProgram(dispatch: Dispatch): { program: Command; tree: CommandTree } {
  const program = new Command('svc')
    .description('svc admin CLI: drives administration of an svc control plane through its HTTP API.')
    .version(SVC_VERSION, '-V, --version', 'print the version of svc')
    .option('--profile <name>', 'credential profile (env SVC_PROFILE; default "default")')
    .option('--server <url>', "svc server URL (env SVC_SERVER; default: the profile's)")
    .option('--org <org>', 'organization (id or slug), sent as X-Org-Id')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  return { program, tree: registerCommands(program, dispatch) };
}

function report(io: IO, err: unknown): void {
  const s = styles(io.colorErr);
  if (err instanceof CliError) {
    io.err(`${s.red('error')}: ${err.message}\n`);
    const facts = [
      err.code && `code: ${err.code}`,
      err.rule && `rule: ${err.rule}`,
      err.status && `status: ${err.status}`,
      err.requestId && `request id: ${err.requestId}`,
    ].filter(Boolean);
    if (facts.length > 0) io.err(`  ${facts.join('  ')}\n`);
    if (err.hint) io.err(`  ${err.kind === 'auth_required' ? 'to log in, run' : 'hint'}: ${err.hint}\n`);
  } else {
    io.err(`${s.red('error')}: ${err instanceof Error ? err.message : String(err)}\n`);
  }
}

/** Runs svc with the given arguments; resolves with the exit code. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const io = processIO(env);
  const interrupt = new AbortController();
  const onSigint = () => {
    if (interrupt.signal.aborted) process.exit(EXIT_CODES.interrupted);
    interrupt.abort();
    // Whatever does not listen to the signal still ends promptly.
    setTimeout(() => process.exit(EXIT_CODES.interrupted), 2000).unref();
  };
  process.on('SIGINT', onSigint);

  const dispatch: Dispatch =
    (load) =>
    async (...commanderArgs) => {
      const command = commanderArgs[commanderArgs.length - 1] as Command;
      // With the parent's options too: `svc perms --json` and `svc perms actions --json` both reach the verb.
      const raw = command.optsWithGlobals();
      // A variadic argument (`<path...>`) arrives as one array: its values take their places in the list.
      const positionals = commanderArgs
        .slice(0, -2)
        .flat()
        .filter((a): a is string => typeof a === 'string');
      let globals;
      try {
        globals = parseGlobals(command.optsWithGlobals(), env);
      } catch (err) {
        throw new CliError('usage', (err as Error).message);
      }
      const run = await load();
      await run({ positionals, raw, ctx: createContext(io, env, globals, interrupt.signal) });
    };

  try {
    const { program, tree } = buildProgram(dispatch);
    await tree.prepare(argv);
    // `svc` alone asks what there is (as gh and kubectl take it): help on stdout, exit 0.
    if (argv.length === 0) {
      program.outputHelp();
      return EXIT_CODES.ok;
    }
    await program.parseAsync(argv, { from: 'user' });
    return EXIT_CODES.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version are "errors" to commander; commander has already printed its message.
      if (err.exitCode === 0) return EXIT_CODES.ok;
      return EXIT_CODES.usage;
    }
    if (interrupt.signal.aborted) {
      io.err('interrupted\n');
      return EXIT_CODES.interrupted;
    }
    report(io, err);
    return exitCodeOf(err);
  } finally {
    process.off('SIGINT', onSigint);
  }
}

const code = await main(process.argv.slice(2));
process.exitCode = code;
// A handle left open (a keep-alive socket, a browser launcher) must not keep svc waiting.
setTimeout(() => process.exit(code), 500).unref();
