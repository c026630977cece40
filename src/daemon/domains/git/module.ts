import { join } from 'node:path';
import { AddressPolicy } from '../../../shared/net/address-policy.js';
import type { DomainRoutes } from '../../http/types.js';
import type { Services } from '../../services.js';
import type { FlowGitPort } from '../flows/module.js';
import type { SecretResolver } from '../secrets/secret-resolver.js';
import { flowGitRoutes } from './flow-git-routes.js';
import { FlowGitService } from './flow-git-service.js';
import { GitCache } from './git-cache.js';
import { GitCommand } from './git-command.js';
import { GitRemotes } from './git-remote.js';
import { GitRepositoriesRepo } from './git-repositories-repo.js';
import { GitRepositoriesService } from './git-repositories-service.js';
import { GitSyncRepo } from './git-sync-repo.js';
import { gitRepositoryRoutes } from './repository-routes.js';

export interface GitModule {
  readonly routes: readonly DomainRoutes[];
}

/** Git repositories and flow git sync, with the real `git` over bare caches under `<SERVICE_DATA_DIR>/git/`. */
export function gitModule(services: Services, core: { flows: FlowGitPort; secrets: SecretResolver }): GitModule {
  const { config, db, log } = services;
  const root = join(config.dataDir, 'git');
  const git = new GitCommand({ timeoutMs: config.gitTimeoutSeconds * 1000, allowFile: config.gitAllowFileUrls, home: root });
  const repos = new GitRepositoriesRepo(db.knex);
  const addresses = new AddressPolicy(config.outboundAllowedNetworks);
  const remotes = new GitRemotes(new GitCache(git, root, log), core.secrets, repos, root, addresses);
  const repositories = new GitRepositoriesService(repos, remotes, core.secrets, services.audit, { allowFileUrls: config.gitAllowFileUrls });
  const flowGit = new FlowGitService(core.flows, repositories, remotes, new GitSyncRepo(db.knex), services.audit);
  return { routes: [gitRepositoryRoutes(repositories, flowGit), flowGitRoutes(flowGit)] };
}
