import type { DomainRoutes } from '../../http/types.js';
import type { Services } from '../../services.js';
import type { RepositoryBlobs } from '../files/repository-blobs.js';
import type { FlowsModule } from '../flows/module.js';
import type { MaintenanceJob } from '../maintenance/job.js';
import { AttachmentBytes } from './attachment-bytes.js';
import { AttachmentsRepo } from './attachments-repo.js';
import { AttachmentsService } from './attachments-service.js';
import { BulkService } from './bulk-service.js';
import { DraftCopies } from './draft-copies.js';
import { FlowGate } from './flow-gate.js';
import { internalAttachmentRoutes } from './internal-routes.js';
import { AttachmentManifests } from './manifests.js';
import { attachmentRoutes } from './routes.js';

export interface FlowAttachmentsModule {
  readonly routes: readonly DomainRoutes[];
  readonly maintenanceJobs: readonly MaintenanceJob[];
}

/**
 * Flow attachments (docs/flow-attachments.md): a draft's files kept in the organization's default file
 * repository, pinned by each committed version (a commit hook on the flows module), read by workers.
 */
export function flowAttachmentsModule(services: Services, core: { flows: FlowsModule; blobs: RepositoryBlobs }): FlowAttachmentsModule {
  const { config, db, audit } = services;
  const repo = new AttachmentsRepo(db.knex);
  const bytes = new AttachmentBytes(core.blobs, repo);
  const gate = new FlowGate(core.flows.access, audit);
  const manifests = new AttachmentManifests(repo, bytes);
  core.flows.addCommitHook(manifests.pinOnCommit);
  const service = new AttachmentsService(repo, gate, bytes, config.attachmentMaxBytes);
  const bulk = new BulkService(repo, gate, bytes, {
    fileBytes: config.attachmentMaxBytes,
    files: config.attachmentBulkMaxFiles,
    bytes: config.attachmentBulkMaxBytes,
  });
  core.flows.addDuplicateHook(new DraftCopies(repo, bytes, bulk).onDuplicate);
  return {
    routes: [attachmentRoutes(service, bulk), internalAttachmentRoutes(manifests)],
    // Blobs left by a flow's purge (its rows went by cascade) or a write that stopped half-way.
    maintenanceJobs: [{ name: 'flow_attachments.sweep_blobs', run: async () => ({ removed: await bytes.release('any') }) }],
  };
}
