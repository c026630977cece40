import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerCommands } from '../src/cli/commands/registry.js';
import { runSvc } from './helpers/cli.js';

let configHome: string;
beforeAll(async () => {
  configHome = await mkdtemp(join(tmpdir(), 'svc-cli-completion-'));
});
afterAll(async () => {
  if (configHome) await rm(configHome, { recursive: true, force: true });
});

const svc = (args: string[]) => runSvc(args, { configHome });
const hasShell = (shell: string) => spawnSync(shell, ['-c', 'exit 0']).status === 0;

/** Every command path of the registry (`auth status`), read from commander as the CLI registers it. */
function commandPaths(): string[] {
  const program = new Command('svc');
  registerCommands(program, () => async () => {});
  const walk = (c: Command, prefix: string[]): string[][] =>
    c.commands.flatMap((s) => [[...prefix, s.name()], ...walk(s, [...prefix, s.name()])]);
  return walk(program, []).map((p) => p.join(' '));
}

/** What the bash script offers for the words typed so far (the last one being completed). */
function bashComplete(script: string, words: string[]): string[] {
  const run = spawnSync(
    'bash',
    [
      '-c',
      `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _svc; printf '%s\\n' "\${COMPREPLY[@]}"`,
    ],
    { encoding: 'utf8' },
  );
  expect(run.stderr).toBe('');
  return run.stdout.split('\n').filter(Boolean);
}

describe('svc completion', () => {
  it('prints a bash script that bash accepts, naming every command of the registry, and completes commands and flags', async () => {
    const { code, stdout } = await svc(['completion', 'bash']);
    expect(code).toBe(0);
    expect(spawnSync('bash', ['-n'], { input: stdout }).status).toBe(0);
    for (const path of commandPaths()) expect(stdout).toContain(`'/${path.replace(/ /g, '/')}'`);
    expect(bashComplete(stdout, ['svc', 'auth', 'st'])).toEqual(['status']);
    expect(bashComplete(stdout, ['svc', '--org', 'acme', 'api', 'GET', '/runs', '--pa'])).toEqual(['--paginate']);
    expect(bashComplete(stdout, ['svc', 'webhooks', ''])).toEqual(expect.arrayContaining(['create', 'deliveries', 'send', '--help']));
  });

  it('prints zsh and fish scripts with every command and its description', async () => {
    for (const shell of ['zsh', 'fish']) {
      const { code, stdout } = await svc(['completion', shell]);
      expect(code).toBe(0);
      for (const path of commandPaths()) expect(stdout).toContain(`'/${path.replace(/ /g, '/')}'`);
      expect(stdout).toContain('Call the API and print the JSON answer');
      expect(stdout).toContain('paginate');
    }
  });

  it.skipIf(!hasShell('zsh'))('zsh accepts its script', async () => {
    const { stdout } = await svc(['completion', 'zsh']);
    const file = join(configHome, '_svc');
    await writeFile(file, stdout);
    expect(spawnSync('zsh', ['-n', file]).status).toBe(0);
  });

  it.skipIf(!hasShell('fish'))('fish accepts its script', async () => {
    const { stdout } = await svc(['completion', 'fish']);
    const file = join(configHome, 'svc.fish');
    await writeFile(file, stdout);
    expect(spawnSync('fish', ['--no-execute', file]).status).toBe(0);
  });

  it('exits 2 for a shell it does not know, printing nothing', async () => {
    const { code, stdout } = await svc(['completion', 'tcsh']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
  });
});
