import { Problem, problem } from '../../../shared/api/problem.js';
import type { CommitInfo } from './git-cache.js';
import type { GitRemotes } from './git-remote.js';
import type { GitRepositoryRow } from './git-repositories-repo.js';
import type { FlowGitLinkRow } from './git-sync-repo.js';

export interface PushInput {
  readonly yaml: string;
  readonly force: boolean;
  readonly message: string;
  readonly author: { readonly name: string; readonly email: string };
}

/**
 * Commits the flow's YAML on the fetched head of the linked branch and pushes it as a fast-forward.
 * The remote "moved ahead" when the file there is no longer what the last sync saw (and not already
 * this YAML): 409 `non_fast_forward` unless `force`, which then commits over it. Commits to other files
 * of the branch (other flows) are not a conflict, and history is never rewritten. A push that loses a
 * race with another pusher is refused by the remote itself: 409 as well.
 */
export async function pushToRemote(
  remotes: GitRemotes,
  repo: GitRepositoryRow,
  link: FlowGitLinkRow,
  input: PushInput,
): Promise<{ commit: CommitInfo; changed: boolean }> {
  const { cache } = remotes;
  const pushed = await remotes.with(repo, async (dir, remote) => {
    const head = await cache.fetch(dir, remote, link.branch).catch((error: unknown) => {
      // A branch that does not exist yet is made by the push.
      if (error instanceof Problem && error.code === 'git_branch_not_found') return null;
      throw error;
    });
    if (head && (await cache.pathClash(dir, head, link.path))) {
      throw problem(
        'git_path_conflict',
        `"${link.path}" on "${link.branch}" is a folder, or inside a file: a flow's file cannot go there.`,
        {
          branch: link.branch,
          commit_sha: head,
          path: link.path,
        },
      );
    }
    if (!input.force && head) {
      const [now, then] = await Promise.all([cache.blobId(dir, head, link.path), cache.blobId(dir, link.last_synced_sha, link.path)]);
      if (now !== then && (await cache.file(dir, head, link.path))?.toString('utf8') !== input.yaml) {
        throw problem(
          'non_fast_forward',
          `"${link.path}" on "${link.branch}" changed since the last sync: pull first, or push with force.`,
          {
            branch: link.branch,
            commit_sha: head,
          },
        );
      }
    }
    const commit = await cache.commitFile(dir, {
      parent: head,
      path: link.path,
      content: input.yaml,
      message: input.message,
      author: input.author,
    });
    if (commit) await cache.push(dir, remote, commit, link.branch);
    return { dir, sha: commit ?? head!, changed: commit !== undefined };
  });
  return { commit: await cache.commitInfo(pushed.dir, pushed.sha), changed: pushed.changed };
}
