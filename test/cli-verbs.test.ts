import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerCommands } from '../src/cli/commands/registry.js';

/**
 * The registry's tree as main.ts builds it (the root's global options and version), with a dispatch
 * that records each verb run with its flags (its parents' too, as main.ts reads them) instead of running it.
 */
function svcTree() {
  const program = new Command('svc')
    .version('0.0.0', '-V, --version')
    .option('--profile <name>')
    .option('--server <url>')
    .option('--org <org>')
    .exitOverride()
    .configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
  const ran: { path: string; flags: Record<string, unknown> }[] = [];
  const tree = registerCommands(program, () => async (...commanderArgs) => {
    const command = commanderArgs.at(-1) as Command;
    const path: string[] = [];
    for (let c: Command | null = command; c?.parent; c = c.parent) path.unshift(c.name());
    ran.push({ path: path.join(' '), flags: command.optsWithGlobals() });
  });
  /** Every verb defined so far (a defined verb has its help's description; one only named has none). */
  const defined = () => {
    const walk = (c: Command, prefix: string[]): string[] =>
      c.commands.flatMap((s) => [...(s.description() === '' ? [] : [[...prefix, s.name()].join(' ')]), ...walk(s, [...prefix, s.name()])]);
    return walk(program, []).filter(
      (path) =>
        ![
          ...['auth', 'orgs', 'members', 'idp-mappings', 'tokens', 'webhooks', 'runs', 'approvals', 'schedules'],
          ...['variables', 'secrets', 'audit', 'sites', 'devices', 'iac-states', 'workers', 'images', 'flows', 'git-repos'],
          ...['notifications', 'notifications destinations', 'inventory-providers', 'config'],
          ...['files', 'attachments', 'file-repos', 'platform-sync', 'registry-credentials', 'secret-backends'],
        ].includes(path),
    );
  };
  const run = async (argv: string[]) => {
    await tree.prepare(argv);
    await program.parseAsync(argv, { from: 'user' }).catch(() => undefined);
  };
  return { tree, defined, ran, run };
}

const TOP_LEVEL = ['login', 'logout', 'whoami', 'api', 'perms', 'health', 'completion'];
const ORGS = ['orgs list', 'orgs get', 'orgs create', 'orgs update', 'orgs delete'];

describe('the command registry: verbs defined from their modules when a command line needs them', () => {
  it('defines only the verb a command line runs, before commander reads its flags', async () => {
    const svc = svcTree();
    await svc.run(['--org', 'acme', 'orgs', 'list', '--limit', '5', '--json']);
    expect(svc.defined()).toEqual(['orgs list']);
    expect(svc.ran).toEqual([{ path: 'orgs list', flags: { org: 'acme', limit: '5', json: true } }]);

    const whoami = svcTree();
    await whoami.run(['whoami', '--json']);
    expect(whoami.defined()).toEqual(['whoami']);
  });

  it('defines a group verb and its subcommand for `perms actions`', async () => {
    const svc = svcTree();
    await svc.run(['perms', 'actions', '--json']);
    expect(svc.defined()).toEqual(['perms', 'perms actions']);
    expect(svc.ran).toEqual([{ path: 'perms actions', flags: { json: true } }]);
  });

  it('defines the verbs a help lists: the top-level ones for svc alone or --help, a group for its help', async () => {
    for (const argv of [[], ['--help'], ['--org', 'acme'], ['help']]) {
      const svc = svcTree();
      await svc.tree.prepare(argv);
      expect({ argv, defined: svc.defined() }).toEqual({ argv, defined: TOP_LEVEL });
    }
    for (const argv of [['orgs'], ['orgs', '--help'], ['help', 'orgs'], ['orgs', 'no-such-verb']]) {
      const svc = svcTree();
      await svc.tree.prepare(argv);
      expect({ argv, defined: svc.defined() }).toEqual({ argv, defined: ORGS });
    }
  });

  it('defines nothing for --version', async () => {
    const svc = svcTree();
    await svc.tree.prepare(['--version']);
    expect(svc.defined()).toEqual([]);
  });

  it('defines a command commander reaches that the command line was not read to name, before it parses', async () => {
    // After `--` every word is an operand: commander still dispatches to `orgs list`, the walk stops at `--`.
    const svc = svcTree();
    await svc.run(['--', 'orgs', 'list']);
    expect(svc.defined()).toEqual(expect.arrayContaining(['orgs list']));
    expect(svc.ran.map((r) => r.path)).toEqual(['orgs list']);
  });
});
