import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { problem } from '../../../shared/api/problem.js';
import type { Logger } from '../../logging/logger.js';
import { scrubbed, type RemoteCredentials } from './git-credentials.js';
import { MAX_OUTPUT_BYTES, remoteFailure, type GitCommand, type GitOutput } from './git-command.js';

export interface TreeEntry {
  readonly name: string;
  readonly path: string;
  readonly type: 'blob' | 'tree' | 'commit';
  readonly size: number | null;
}

export interface CommitInfo {
  readonly sha: string;
  readonly author: string;
  readonly at: Date;
}

/** A remote as one operation uses it: its URL, the credentials resolved and the address checked for this operation. */
export interface Remote {
  readonly url: string;
  readonly credentials: RemoteCredentials;
  /** `-c` settings pinning git to the address the outbound guard checked (`checkedRemote`). */
  readonly config: readonly string[];
}

/**
 * The bare caches, one per repository under `<SERVICE_DATA_DIR>/git/`, fetched into
 * `refs/remotes/origin/*` and read without a checkout (`ls-tree`, `cat-file`); a commit is made with a
 * private index file (`read-tree`, `update-index`, `write-tree`, `commit-tree`). Operations on one
 * repository queue behind each other within this daemon (`exclusive`).
 */
export class GitCache {
  readonly #queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly git: GitCommand,
    private readonly root: string,
    private readonly log: Logger,
  ) {}

  /** Runs `work` on the repository's cache once every earlier operation on it has finished. */
  async exclusive<T>(repoId: string, work: (dir: string) => Promise<T>): Promise<T> {
    const before = this.#queues.get(repoId) ?? Promise.resolve();
    const run = before.catch(() => undefined).then(async () => work(await this.#ensure(repoId)));
    const tail = run.catch(() => undefined);
    this.#queues.set(repoId, tail);
    try {
      return await run;
    } finally {
      if (this.#queues.get(repoId) === tail) this.#queues.delete(repoId);
    }
  }

  /** Forgets a deleted repository's cache. */
  async remove(repoId: string): Promise<void> {
    await this.exclusive(repoId, (dir) => rm(dir, { recursive: true, force: true }));
  }

  /** Fetches one branch; its head commit. 404 `git_branch_not_found` when the remote has no such branch. */
  async fetch(dir: string, remote: Remote, branch: string): Promise<string> {
    const ref = `refs/remotes/origin/${branch}`;
    const output = await this.git.run({
      gitDir: dir,
      args: ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--prune', '--', remote.url, `+refs/heads/${branch}:${ref}`],
      config: remote.config,
      env: remote.credentials.env,
    });
    if (output.code !== 0) {
      if (remoteFailure(output) === 'branch_missing') {
        await this.git.run({ gitDir: dir, args: ['update-ref', '-d', ref] });
        throw problem('git_branch_not_found', `The remote has no branch "${branch}".`, { branch });
      }
      throw this.#remoteProblem('fetch', output, remote);
    }
    return this.#revParse(dir, ref);
  }

  /** The remote's branches and their heads (`ls-remote`), for test-connection. */
  async branches(remote: Remote): Promise<Map<string, string>> {
    const output = await this.git.run({
      args: ['ls-remote', '--heads', '--', remote.url],
      config: remote.config,
      env: remote.credentials.env,
    });
    if (output.code !== 0) throw this.#remoteProblem('ls-remote', output, remote);
    const heads = new Map<string, string>();
    for (const line of output.stdout.toString('utf8').split('\n')) {
      const [sha, ref] = line.split('\t');
      if (sha && ref?.startsWith('refs/heads/')) heads.set(ref.slice('refs/heads/'.length), sha);
    }
    return heads;
  }

  /** A folder's entries (the root when `path` is empty), or the one entry a file path names; undefined when absent. */
  async tree(dir: string, sha: string, path: string): Promise<TreeEntry[] | undefined> {
    const args = ['ls-tree', '-l', '-z', sha];
    if (path) args.push('--', path, `${path}/`);
    const output = await this.git.run({ gitDir: dir, args });
    if (output.code !== 0) return undefined;
    const entries = output.stdout
      .toString('utf8')
      .split('\0')
      .filter(Boolean)
      .map((record) => {
        const tab = record.indexOf('\t');
        const [, type, , size] = record.slice(0, tab).split(/ +/);
        const full = record.slice(tab + 1);
        return { name: full.split('/').at(-1)!, path: full, type: type as TreeEntry['type'], size: size === '-' ? null : Number(size) };
      });
    if (path && entries.length === 0) return undefined;
    // `path` and `path/` both listed: a folder shows its content, not itself.
    return entries.filter((entry) => !(entry.path === path && entry.type === 'tree'));
  }

  /** A file's bytes at a commit; undefined when no file is there; 422 `git_file_too_large` past what one command may answer. */
  async file(dir: string, sha: string, path: string): Promise<Buffer | undefined> {
    const type = await this.git.run({ gitDir: dir, args: ['cat-file', '-t', `${sha}:${path}`] });
    if (type.code !== 0 || type.stdout.toString('utf8').trim() !== 'blob') return undefined;
    const size = Number((await this.git.run({ gitDir: dir, args: ['cat-file', '-s', `${sha}:${path}`] })).stdout.toString('utf8').trim());
    if (size > MAX_OUTPUT_BYTES)
      throw problem('git_file_too_large', `"${path}" holds ${size} bytes; at most ${MAX_OUTPUT_BYTES} are read.`, {
        path,
        size,
        limit: MAX_OUTPUT_BYTES,
      });
    const output = await this.git.run({ gitDir: dir, args: ['cat-file', 'blob', `${sha}:${path}`] });
    return output.code === 0 ? output.stdout : undefined;
  }

  /** The blob id of a file at a commit (undefined: no file), to tell whether it changed between two commits. */
  async blobId(dir: string, sha: string | null, path: string): Promise<string | undefined> {
    if (!sha) return undefined;
    const output = await this.git.run({ gitDir: dir, args: ['rev-parse', '--verify', '--quiet', `${sha}:${path}`] });
    return output.code === 0 ? output.stdout.toString('utf8').trim() : undefined;
  }

  /** Whether a file cannot be written at `path` of the commit: a folder is there, or a file stands where one of its folders would be. */
  async pathClash(dir: string, sha: string, path: string): Promise<boolean> {
    const parts = path.split('/');
    for (let depth = 1; depth <= parts.length; depth++) {
      const output = await this.git.run({ gitDir: dir, args: ['cat-file', '-t', `${sha}:${parts.slice(0, depth).join('/')}`] });
      if (output.code !== 0) return false;
      const type = output.stdout.toString('utf8').trim();
      if (depth < parts.length ? type !== 'tree' : type === 'tree') return true;
    }
    return false;
  }

  async commitInfo(dir: string, sha: string): Promise<CommitInfo> {
    const output = await this.git.run({ gitDir: dir, args: ['show', '-s', '--format=%H%x00%an <%ae>%x00%aI', sha] });
    const [full, author, at] = output.stdout.toString('utf8').trim().split('\0');
    return { sha: full ?? sha, author: author ?? '', at: new Date(at ?? Date.now()) };
  }

  /**
   * A commit on `parent` (none: a first commit) whose tree is the parent's with `path` holding `content`;
   * undefined when that changes nothing. Made with a private index, the cache never has a work tree.
   */
  async commitFile(
    dir: string,
    input: { parent: string | null; path: string; content: string; message: string; author: { name: string; email: string } },
  ): Promise<string | undefined> {
    const scratch = await mkdtemp(join(this.root, 'index-'));
    const env = {
      GIT_INDEX_FILE: join(scratch, 'index'),
      GIT_AUTHOR_NAME: input.author.name,
      GIT_AUTHOR_EMAIL: input.author.email,
    };
    try {
      await this.#local(dir, input.parent ? ['read-tree', input.parent] : ['read-tree', '--empty'], env);
      const blob = await this.#local(dir, ['hash-object', '-w', '--stdin'], env, input.content);
      await this.#local(dir, ['update-index', '--add', '--cacheinfo', `100644,${blob},${input.path}`], env);
      const tree = await this.#local(dir, ['write-tree'], env);
      if (input.parent && tree === (await this.#local(dir, ['rev-parse', `${input.parent}^{tree}`], env))) return undefined;
      return await this.#local(dir, ['commit-tree', tree, ...(input.parent ? ['-p', input.parent] : []), '-m', input.message], env);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }

  /** Pushes `commit` to the branch as a fast-forward; 409 `non_fast_forward` when the remote moved meanwhile. */
  async push(dir: string, remote: Remote, commit: string, branch: string): Promise<void> {
    const output = await this.git.run({
      gitDir: dir,
      args: ['push', '--quiet', '--no-verify', '--porcelain', '--', remote.url, `${commit}:refs/heads/${branch}`],
      config: remote.config,
      env: remote.credentials.env,
    });
    if (output.code !== 0) {
      if (remoteFailure(output) === 'non_fast_forward' || /\[rejected\]|non-fast-forward|fetch first/.test(output.stdout.toString('utf8')))
        throw problem('non_fast_forward', `The remote branch "${branch}" moved ahead: pull first, or push with force.`, { branch });
      throw this.#remoteProblem('push', output, remote);
    }
    await this.#local(dir, ['update-ref', `refs/remotes/origin/${branch}`, commit], {});
  }

  async #ensure(repoId: string): Promise<string> {
    const dir = join(this.root, `${repoId}.git`);
    const exists = await stat(join(dir, 'HEAD')).then(
      () => true,
      () => false,
    );
    if (!exists) {
      await mkdir(this.root, { recursive: true });
      await this.#local(undefined, ['init', '--quiet', '--bare', dir], {});
    }
    return dir;
  }

  async #revParse(dir: string, ref: string): Promise<string> {
    return this.#local(dir, ['rev-parse', '--verify', `${ref}^{commit}`], {});
  }

  /** A local command that must succeed; its trimmed output. */
  async #local(dir: string | undefined, args: string[], env: Record<string, string>, input?: string): Promise<string> {
    const output = await this.git.run({ ...(dir ? { gitDir: dir } : {}), args, env, ...(input !== undefined ? { input } : {}) });
    if (output.code !== 0) throw new Error(`git ${args[0]} failed (${output.code}): ${output.stderr.slice(0, 500)}`);
    return output.stdout.toString('utf8').trim();
  }

  #remoteProblem(operation: string, output: GitOutput, remote: Remote) {
    const failure = remoteFailure(output);
    const reason = failure === 'branch_missing' || failure === 'non_fast_forward' ? 'failed' : failure;
    this.log.warn(
      { operation, reason, stderr: scrubbed(output.stderr.slice(0, 2000), remote.credentials.secrets) },
      'git remote operation failed',
    );
    return problem('git_remote_failed', REMOTE_DETAILS[reason], { reason });
  }
}

const REMOTE_DETAILS: Record<string, string> = {
  authentication_failed: "The remote refused the repository's credentials.",
  unreachable: 'The remote could not be reached, or has no repository at this URL.',
  timeout: 'The git command ran past SERVICE_GIT_TIMEOUT_SECONDS and was stopped.',
  failed: 'The git command failed.',
};
