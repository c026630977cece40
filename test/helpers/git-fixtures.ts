import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** Plain `git` for the tests' own repositories: no user or system configuration, a fixed identity. */
const ENV = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: '/nonexistent',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Erin Editor',
  GIT_AUTHOR_EMAIL: 'erin@example.test',
  GIT_COMMITTER_NAME: 'Erin Editor',
  GIT_COMMITTER_EMAIL: 'erin@example.test',
  GIT_TERMINAL_PROMPT: '0',
};

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'protocol.file.allow=always', ...args], { cwd, env: ENV, encoding: 'utf8' }).trim();
}

/** A bare repository `<root>/<name>.git` with branch `main` holding `files` in one commit. */
export async function bareRepository(root: string, name: string, files: Record<string, string>): Promise<string> {
  const bare = join(root, `${name}.git`);
  git(root, 'init', '--quiet', '--bare', '--initial-branch=main', bare);
  await commitFiles(bare, 'main', files, 'Initial flows');
  return bare;
}

/** Commits `files` on `branch` of the bare repository through a scratch clone, as a person editing it would. */
export async function commitFiles(bare: string, branch: string, files: Record<string, string | Buffer>, message: string): Promise<string> {
  const work = await mkdtemp(join(dirname(bare), 'work-'));
  try {
    git(work, 'init', '--quiet', `--initial-branch=${branch}`);
    git(work, 'fetch', '--quiet', bare, `+refs/heads/*:refs/remotes/origin/*`);
    const has = git(work, 'branch', '-r').includes(`origin/${branch}`);
    if (has) git(work, 'reset', '--quiet', '--hard', `origin/${branch}`);
    for (const [path, content] of Object.entries(files)) {
      await mkdir(dirname(join(work, path)), { recursive: true });
      await writeFile(join(work, path), content);
    }
    git(work, 'add', '--all');
    git(work, 'commit', '--quiet', '-m', message);
    git(work, 'push', '--quiet', bare, `HEAD:refs/heads/${branch}`);
    return git(work, 'rev-parse', 'HEAD');
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** A file of a branch of the bare repository, or undefined. */
export function showFile(bare: string, branch: string, path: string): string | undefined {
  try {
    return execFileSync('git', ['--git-dir', bare, 'show', `${branch}:${path}`], { env: ENV, encoding: 'utf8' });
  } catch {
    return undefined;
  }
}
