import type { AddressPolicy } from '../../../shared/net/address-policy.js';
import type { SecretResolver } from '../secrets/secret-resolver.js';
import type { GitCache, Remote } from './git-cache.js';
import { remoteCredentials } from './git-credentials.js';
import type { GitRepositoriesRepo, GitRepositoryRow } from './git-repositories-repo.js';
import { checkedRemote } from './remote-address.js';

/**
 * One operation on a repository's remote: the cache held exclusively, the remote's address checked by the
 * outbound guard (`checkedRemote`), credentials resolved for it alone and disposed of afterwards (an SSH
 * key's file removed), whatever happens.
 */
export class GitRemotes {
  constructor(
    readonly cache: GitCache,
    private readonly resolver: SecretResolver,
    private readonly repos: GitRepositoriesRepo,
    private readonly tmpRoot: string,
    private readonly addresses: AddressPolicy,
  ) {}

  async with<T>(repo: GitRepositoryRow, work: (dir: string, remote: Remote) => Promise<T>): Promise<T> {
    return this.cache.exclusive(repo.id, async (dir) => {
      const pin = await checkedRemote(repo.url, this.addresses);
      const credentials = await remoteCredentials(this.resolver, repo, this.tmpRoot, pin.ssh);
      try {
        return await work(dir, { url: repo.url, credentials, config: pin.config });
      } finally {
        await credentials.dispose();
      }
    });
  }

  /** Fetches the branch into the cache; its head commit. */
  async fetch(repo: GitRepositoryRow, branch: string): Promise<{ dir: string; head: string }> {
    const fetched = await this.with(repo, async (dir, remote) => ({ dir, head: await this.cache.fetch(dir, remote, branch) }));
    await this.repos.fetched(repo.id);
    return fetched;
  }
}
