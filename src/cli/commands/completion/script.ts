import type { Command } from 'commander';
import { usageError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';
import type { Invoke } from '../verb.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

export function define(command: Command): void {
  command
    .description('Print the shell completion script (bash, zsh or fish) for every command and flag.')
    .argument('<shell>', 'bash, zsh or fish')
    .addHelpText(
      'after',
      '\nbash: source <(svc completion bash)   zsh: source <(svc completion zsh)   fish: svc completion fish > ~/.config/fish/completions/svc.fish',
    );
}

export const invoke: Invoke = async ({ positionals, ctx, commandTree }) =>
  runCompletion(parseCompletionShell(positionals[0]), await commandTree(), ctx);

export function parseCompletionShell(shell: string | undefined): Shell {
  if ((SHELLS as readonly (string | undefined)[]).includes(shell)) return shell as Shell;
  throw usageError(`svc completion takes one of ${SHELLS.join(', ')}, not "${shell ?? ''}"`);
}

interface Word {
  readonly word: string;
  readonly description: string;
}

/** One command of the tree: its path (`/auth/status`, the root is ``), subcommands and flags. */
interface Node {
  readonly path: string;
  readonly commands: Word[];
  readonly flags: Word[];
}

/** The command tree as commander holds it, so the scripts never drift from the registry. */
function nodesOf(command: Command, path = ''): Node[] {
  const visible = command.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
  const flags: Word[] = [];
  for (const option of command.options.filter((o) => !o.hidden)) {
    for (const flag of [option.long, option.short]) if (flag) flags.push({ word: flag, description: option.description });
  }
  flags.push({ word: '--help', description: 'display help' });
  const node = { path, commands: visible.map((c) => ({ word: c.name(), description: c.description() })), flags };
  return [node, ...visible.flatMap((c) => nodesOf(c, `${path}/${c.name()}`))];
}

const subcommandPaths = (nodes: Node[]) => nodes.filter((n) => n.path !== '').map((n) => n.path);

// The scripts find the command path by walking the typed words: a word that names a subcommand of the
// path so far extends it; anything else (a flag, its value, a positional) leaves it as it is.

/** That walk in bash and zsh alike, over the shell's array of typed words from `first` to before `before`. */
function walkCommandPath(nodes: Node[], words: { first: number; before: string; words: string }): string {
  return `  for ((i = ${words.first}; i < ${words.before}; i++)); do
    word="\${${words.words}[i]}"
    case "$cmdpath/$word" in
      ${subcommandPaths(nodes)
        .map((p) => `'${p}'`)
        .join('|')}) cmdpath="$cmdpath/$word" ;;
    esac
  done`;
}

function bash(nodes: Node[]): string {
  const cases = nodes.map((n) => `    '${n.path}') words='${[...n.commands, ...n.flags].map((w) => w.word).join(' ')}' ;;`);
  return `# svc completion for bash: source <(svc completion bash)
_svc() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" cmdpath='' word words='' i
${walkCommandPath(nodes, { first: 1, before: 'COMP_CWORD', words: 'COMP_WORDS' })}
  case "$cmdpath" in
${cases.join('\n')}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _svc svc
`;
}

// _describe splits word from description at the first unescaped colon.
const zshQuote = (w: Word) => `'${w.word}:${w.description.replace(/\\/g, '\\\\').replace(/:/g, '\\:').replace(/'/g, `'\\''`)}'`;

function zsh(nodes: Node[]): string {
  const cases = nodes.map(
    (n) =>
      `    '${n.path}')\n      subcommands=(${n.commands.map(zshQuote).join(' ')})\n      flags=(${n.flags.map(zshQuote).join(' ')}) ;;`,
  );
  return `#compdef svc
# svc completion for zsh: source <(svc completion zsh), or save as _svc in a directory of $fpath
_svc() {
  local cmdpath='' word i
  local -a subcommands flags
${walkCommandPath(nodes, { first: 2, before: 'CURRENT', words: 'words' })}
  case "$cmdpath" in
${cases.join('\n')}
  esac
  if [[ "\${words[CURRENT]}" == -* ]]; then
    _describe -t flags 'svc flag' flags
  else
    _describe -t commands 'svc command' subcommands || _files
  fi
}
if [[ "\${funcstack[1]}" == _svc ]]; then
  _svc "$@"
else
  compdef _svc svc
fi
`;
}

const fishQuote = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

function fish(nodes: Node[]): string {
  const lines: string[] = [];
  for (const n of nodes) {
    const at = `-n ${fishQuote(`__svc_at '${n.path}'`)}`;
    for (const c of n.commands) lines.push(`complete -c svc ${at} -f -a ${fishQuote(c.word)} -d ${fishQuote(c.description)}`);
    for (const f of n.flags)
      lines.push(
        `complete -c svc ${at} ${f.word.startsWith('--') ? `-l ${f.word.slice(2)}` : `-s ${f.word.slice(1)}`} -d ${fishQuote(f.description)}`,
      );
  }
  return `# svc completion for fish: svc completion fish > ~/.config/fish/completions/svc.fish
function __svc_at
    set -l cmdpath ''
    for word in (commandline -opc)[2..-1]
        switch "$cmdpath/$word"
            case ${subcommandPaths(nodes)
              .map((p) => `'${p}'`)
              .join(' ')}
                set cmdpath "$cmdpath/$word"
        end
    end
    test "$cmdpath" = "$argv[1]"
end
${lines.join('\n')}
`;
}

export function completionScript(shell: Shell, program: Command): string {
  const nodes = nodesOf(program);
  return shell === 'bash' ? bash(nodes) : shell === 'zsh' ? zsh(nodes) : fish(nodes);
}

/** Prints the completion script of `shell` for every command and flag `program` has. */
export function runCompletion(shell: Shell, program: Command, ctx: Context): void {
  ctx.io.out(completionScript(shell, program));
}
