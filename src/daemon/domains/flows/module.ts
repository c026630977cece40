import type { Services } from '../../services.js';
import type { DomainRoutes } from '../../http/types.js';
import { FlowAccess } from './flow-access.js';
import { flowRoutes } from './flow-routes.js';
import { FlowsRepo } from './flows-repo.js';
import { FlowsService, type FlowDeleteGuard } from './flows-service.js';
import { FlowGitPort } from './git-port.js';
import { InterfaceService } from './interface-service.js';
import { versionRoutes } from './version-routes.js';
import { VersionsService } from './versions-service.js';

export type { FlowDeleteGuard } from './flows-service.js';
export type { FlowGitPort } from './git-port.js';

export interface FlowsModule {
  readonly routes: readonly DomainRoutes[];
  /**
   * Lets another domain refuse a flow's delete and purge (409 `conflict`): webhook endpoints that still
   * trigger the flow register here.
   */
  addDeleteGuard(guard: FlowDeleteGuard): void;
  /** A readable flow's definition at a revision (tenancy as the flow routes'): the flow interface and editor contexts read it. */
  readonly definitions: Pick<VersionsService, 'definitionOf'>;
  /** What git sync reads and writes flows through (the flows domain's access, narrowing, locks and audit). */
  readonly git: FlowGitPort;
}

/** Flows, drafts and committed versions. */
export function flowsModule(services: Services): FlowsModule {
  const repo = new FlowsRepo(services.db.knex, services.triggerConfig.invalidate);
  const access = new FlowAccess(repo, services.orgAccess, services.audit);
  const flows = new FlowsService(repo, access);
  const versions = new VersionsService(repo, access);
  const iface = new InterfaceService(access, versions);
  return {
    routes: [flowRoutes(flows), versionRoutes(versions, iface)],
    addDeleteGuard: (guard) => flows.addDeleteGuard(guard),
    definitions: versions,
    git: new FlowGitPort(repo, access),
  };
}
