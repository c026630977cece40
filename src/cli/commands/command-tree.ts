import type { Command, Option } from 'commander';
import type { Dispatch, Verb } from './verb.js';

/** A verb of the registry: its command path (`orgs list`) and how to load its module. */
export interface VerbEntry {
  readonly path: string;
  readonly load: () => Promise<Verb>;
}

export interface CommandTree {
  /**
   * Defines, before commander parses `argv`, the verbs it names and those whose help it may show;
   * any other command commander reaches is defined (with its subcommands) before it parses.
   */
  prepare(argv: readonly string[]): Promise<void>;
}

/**
 * Makes every command of `verbs` under `program` by name only (groups from `groups`, by their
 * description) and defines a verb, by loading its module, when it is needed: to parse it, to show a
 * help that lists it, or to list the whole tree (`commandTree`). So `svc whoami` loads one verb module
 * and `svc --help` the top-level ones, and a verb's flags live in its own module.
 */
export function buildCommandTree(
  program: Command,
  verbs: readonly VerbEntry[],
  groups: Readonly<Record<string, string>>,
  dispatch: Dispatch,
): CommandTree {
  const loaders = new Map<Command, () => Promise<Verb>>();
  const definitions = new Map<Command, Promise<Verb | undefined>>();
  const define = (command: Command): Promise<Verb | undefined> => {
    let definition = definitions.get(command);
    if (definition === undefined) {
      const load = loaders.get(command);
      definition =
        load === undefined
          ? Promise.resolve(undefined)
          : load().then((verb) => {
              verb.define(command);
              return verb;
            });
      definitions.set(command, definition);
    }
    return definition;
  };
  const defineAll = async (command: Command): Promise<void> => {
    await Promise.all([define(command), ...command.commands.map(defineAll)]);
  };
  const commandTree = async () => {
    await defineAll(program);
    return program;
  };

  for (const { path, load } of verbs) {
    const names = path.split(' ');
    let parent = program;
    for (const name of names.slice(0, -1))
      parent = childNamed(parent, name) ?? parent.command(name).description(groupDescription(groups, name));
    const command = parent.command(names.at(-1)!);
    loaders.set(command, load);
    command.action(
      dispatch(async () => {
        const verb = (await define(command))!;
        return (args) => verb.invoke({ ...args, commandTree });
      }),
    );
  }

  return {
    async prepare(argv) {
      const path = commandsNamed(program, argv);
      if (path === undefined) return;
      const last = path.at(-1)!;
      await Promise.all([...path.map(define), ...last.commands.map(define)]);
      // Should commander reach a command argv was not read to name, it is defined (with its subcommands, for its help) first.
      const defineWithSubcommands = async (command: Command) =>
        void (await Promise.all([define(command), ...command.commands.map(define)]));
      for (const group of groupsOf(program))
        group.hook('preSubcommand', (_parent, command) => (path.includes(command) ? undefined : defineWithSubcommands(command)));
    },
  };
}

const childNamed = (command: Command, name: string) => command.commands.find((c) => c.name() === name);

function groupDescription(groups: Readonly<Record<string, string>>, name: string): string {
  const description = groups[name];
  if (description === undefined) throw new TypeError(`command group ${name} has no description in the registry`);
  return description;
}

const groupsOf = (command: Command): Command[] => (command.commands.length === 0 ? [] : [command, ...command.commands.flatMap(groupsOf)]);

/**
 * The commands `argv` names, the root first, read as commander reads it: a word naming a subcommand
 * descends; a flag of a command on the way (the root's global options) is stepped over with its value;
 * `help WORD` names WORD (whose help is shown); anything else ends the walk where it is, since
 * commander then runs that command or shows its help. Undefined for `--version`, which commander
 * answers while reading it.
 */
function commandsNamed(program: Command, argv: readonly string[]): Command[] | undefined {
  const path = [program];
  let helpOf = false;
  for (let i = 0; i < argv.length; i += 1) {
    const token = argv[i]!;
    const current = path.at(-1)!;
    if (token.length > 1 && token.startsWith('-')) {
      const option = knownOption(path, token);
      if (option === undefined || helpOf) break;
      if (option.long === '--version') return undefined;
      if ((option.required || option.optional) && !token.includes('=')) i += 1;
      continue;
    }
    if (token === 'help' && !helpOf && current.commands.length > 0) {
      helpOf = true;
      continue;
    }
    const child = childNamed(current, token);
    if (child === undefined) break;
    path.push(child);
    if (helpOf) break;
  }
  return path;
}

function knownOption(path: readonly Command[], token: string): Option | undefined {
  const flag = token.startsWith('--') ? token.split('=')[0]! : token;
  return path.flatMap((c) => c.options).find((o) => o.long === flag || o.short === flag);
}
