import type { Services } from '../../services.js';
import type { DomainRoutes } from '../../http/types.js';
import { CommitHooks, type FlowCommitHook } from './commit-hooks.js';
import { FlowAccess } from './flow-access.js';
import { flowRoutes } from './flow-routes.js';
import { FlowsRepo } from './flows-repo.js';
import { FlowsService, type FlowDeleteGuard, type FlowDuplicateHook } from './flows-service.js';
import { FlowGitPort } from './git-port.js';
import { InterfaceService } from './interface-service.js';
import { versionRoutes } from './version-routes.js';
import { VersionsService } from './versions-service.js';

export type { FlowDeleteGuard, FlowDuplicateHook } from './flows-service.js';
export type { CommitHooks, CommittingVersion, FlowCommitHook } from './commit-hooks.js';
export type { FlowCaller } from './flow-access.js';
export type { FlowGitPort } from './git-port.js';

export interface FlowsModule {
  readonly routes: readonly DomainRoutes[];
  /**
   * Lets another domain refuse a flow's delete and purge (409 `conflict`): webhook endpoints that still
   * trigger the flow register here.
   */
  addDeleteGuard(guard: FlowDeleteGuard): void;
  /** Lets another domain copy what it keeps under a flow into the flow's duplicate, in its transaction (attachments). */
  addDuplicateHook(hook: FlowDuplicateHook): void;
  /** Lets another domain add to every commit, in its transaction (flow attachments pin their contents), or refuse it. */
  addCommitHook(hook: FlowCommitHook): void;
  /** Tenancy of flows (reads, locked writes), for domains whose resources live under a flow (attachments). */
  readonly access: Pick<FlowAccess, 'readable' | 'readableOrgIds' | 'lockWritable'>;
  /** A readable flow's definition at a revision (tenancy as the flow routes'): the flow interface and editor contexts read it. */
  readonly definitions: Pick<VersionsService, 'definitionOf'>;
  /** What git sync reads and writes flows through (the flows domain's access, narrowing, locks and audit). */
  readonly git: FlowGitPort;
  /** The hooks every commit runs: configuration exchange commits a bundle's version through them, in its own transaction. */
  readonly commitHooks: Pick<CommitHooks, 'run'>;
}

/** Flows, drafts and committed versions. */
export function flowsModule(services: Services): FlowsModule {
  const repo = new FlowsRepo(services.db.knex, services.triggerConfig.invalidate);
  const access = new FlowAccess(repo, services.orgAccess, services.audit);
  const flows = new FlowsService(repo, access);
  const hooks = new CommitHooks();
  const versions = new VersionsService(repo, access, hooks);
  const iface = new InterfaceService(access, versions);
  return {
    routes: [flowRoutes(flows), versionRoutes(versions, iface)],
    addDeleteGuard: (guard) => flows.addDeleteGuard(guard),
    addDuplicateHook: (hook) => flows.addDuplicateHook(hook),
    addCommitHook: (hook) => hooks.add(hook),
    access,
    definitions: versions,
    git: new FlowGitPort(repo, access, hooks),
    commitHooks: hooks,
  };
}
