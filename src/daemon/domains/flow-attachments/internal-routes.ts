import { attachmentManifest, internalAttachmentsQuery, internalFlowAttachmentsPath } from '../../../shared/api/flow-attachments.js';
import { internalRunPath } from '../../../shared/api/run-callbacks.js';
import { route } from '../../http/route.js';
import type { AppContext, DomainRoutes } from '../../http/types.js';
import { holderOf } from '../run-callbacks/fence.js';
import type { ManifestAnswer, AttachmentManifests } from './manifests.js';
import { sendBytes } from './send-bytes.js';

const ANSWERS = {
  200: {
    description:
      '`{flow_id, org_id, version, run_id, step, items: [{path, size_bytes, sha256, content_type, url}]}`; with `path`, that item’s bytes (`application/octet-stream` or its type, `ETag` its SHA-256)',
    schema: attachmentManifest,
  },
  304: { description: 'With `path`: `If-None-Match` names the bytes as they are' },
  503: { description: 'The file repository cannot give the bytes now (`attachment_unavailable`)' },
} as const;

async function answer(ctx: AppContext, found: ManifestAnswer): Promise<void> {
  if (found.kind === 'manifest') ctx.body = found.manifest;
  else await sendBytes(ctx, found.item, found.open);
}

/**
 * The workers' reads of attachments (`internal:resolve`, `X-Internal-Token`): a manifest, and the bytes
 * of each item through the same route (`?path=`), so a worker needs no other credential (decisions.md).
 */
export function internalAttachmentRoutes(manifests: AttachmentManifests): DomainRoutes {
  return {
    'GET /internal/flows/{flow_id}/attachments': route({
      summary:
        "The flow draft's attachments as they are now (`step`: only what that step's `mounted_files` selects), or one's bytes (`path`).",
      params: internalFlowAttachmentsPath,
      query: internalAttachmentsQuery,
      responses: {
        ...ANSWERS,
        404: { description: 'No such live flow, or no such attachment in the manifest (`resource_not_found`)' },
        422: { description: '`validation_failed`: a `step` the draft does not have; `invalid_file_path`' },
      },
      async handle(ctx, { params, query }) {
        await answer(ctx, await manifests.forFlow(params.flow_id, query));
      },
    }),
    'GET /internal/runs/{run_id}/attachments': route({
      summary:
        "The attachments the run's committed version pinned (headers `X-Worker-Id`, `X-Run-Attempt`: the run's holder): later edits of the draft change nothing here. `step` narrows to that step's `mounted_files`; `path` answers one item's bytes.",
      params: internalRunPath,
      query: internalAttachmentsQuery,
      responses: {
        ...ANSWERS,
        404: { description: 'No such run, its flow purged, or no such attachment in the manifest (`resource_not_found`)' },
        409: { description: '`run_not_held` (another worker or attempt), `invalid_run_state` (not running or paused)' },
        422: { description: '`validation_failed`: a fencing header missing or malformed, a `step` the version does not have' },
      },
      async handle(ctx, { params, query }) {
        await answer(ctx, await manifests.forRun(params.run_id, holderOf(ctx.req.headers), query));
      },
    }),
  };
}
