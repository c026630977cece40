import { posix } from 'node:path';
import {
  artifact,
  artifactBytes,
  artifactContentType,
  artifactPath,
  artifactUploadQuery,
  createArtifactBody,
} from '../../../shared/api/artifacts.js';
import { internalRunPath } from '../../../shared/api/run-callbacks.js';
import { noQuery, runPath } from '../../../shared/api/runs.js';
import { problems } from '../../../shared/api/problems.js';
import { activeOrg } from '../../http/active-org.js';
import { noneMatchHolds } from '../../http/entity-tag.js';
import { requestHeader } from '../../http/request-header.js';
import { route } from '../../http/route.js';
import type { AppContext, DomainRoutes } from '../../http/types.js';
import { holderOf } from '../run-callbacks/fence.js';
import { attachmentHeader } from '../../http/attachment-header.js';
import { zipOf } from './artifacts-zip.js';
import type { ArtifactsService, Uploaded } from './artifacts-service.js';

const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

const UPLOAD_ANSWERS = {
  200: { description: 'The run already had this name with these very bytes (a retried upload): the stored artifact', schema: artifact },
  201: { description: 'The artifact, stored (an `artifact.created` run event says so)', schema: artifact },
  404: { description: 'No such run (`resource_not_found`)' },
  409: {
    description:
      'The headers name a worker and attempt that do not hold the run (`run_not_held`), the run is neither running nor paused (`invalid_run_state`), or the name is taken by other bytes (`artifact_name_taken`)',
  },
  413: {
    description:
      'Larger than SERVICE_ARTIFACT_MAX_BYTES (`artifact_too_large`), or the run would pass SERVICE_ARTIFACT_RUN_MAX_BYTES (`run_artifacts_too_large`); nothing is stored',
  },
  422: { description: 'Bad name, step id, content type or fencing headers (`validation_failed`)' },
  503: { description: "The file repository keeping the run's artifacts did not answer (`artifact_store_unavailable`); nothing is stored" },
} as const;

/** The upload's media type (`Content-Type`, else application/octet-stream); 422 naming the header when it is not one. */
function uploadContentType(ctx: AppContext): string {
  const sent = requestHeader(ctx, 'content-type').trim();
  if (sent === '') return DEFAULT_CONTENT_TYPE;
  const parsed = artifactContentType.safeParse(sent);
  if (!parsed.success) throw problems.validation([{ path: 'headers.content-type', message: 'a media type such as text/plain' }]);
  return parsed.data;
}

function declaredLength(ctx: AppContext): number | undefined {
  const raw = requestHeader(ctx, 'content-length');
  return /^\d+$/.test(raw) ? Number(raw) : undefined;
}

function answerUpload(ctx: AppContext, uploaded: Uploaded): void {
  ctx.status = uploaded.created ? 201 : 200;
  ctx.body = uploaded.artifact;
}

/** A zip's file name from the run's name, without the path separators a client would take for folders. */
function zipName(runName: string): string {
  return `${runName.replace(/[/\\]/g, '_')}-artifacts.zip`;
}

/**
 * Run artifacts: the worker's uploads (`internal:run_callbacks`, fenced by `X-Worker-Id` / `X-Run-Attempt`
 * as the other callbacks) and the downloads (`run:view`, in the run's organization). docs/artifacts.md.
 */
export function artifactRoutes(service: ArtifactsService): DomainRoutes {
  return {
    'POST /internal/runs/{run_id}/artifacts/upload': route({
      summary:
        'Streams one artifact in: the body is its bytes (any length up to the caps, `Content-Length` or chunked), `Content-Type` its media type (default application/octet-stream), the query its `name` (a relative path, unique in the run) and `step_id`. The body is never buffered: it is counted and hashed (SHA-256) while it is stored, and the artifact exists only once every byte is.',
      params: internalRunPath,
      query: artifactUploadQuery,
      // Streamed into the store by the handler, never read whole by the body parser.
      bodyMode: 'none',
      body: artifactBytes,
      bodyMediaType: 'application/octet-stream',
      responses: UPLOAD_ANSWERS,
      async handle(ctx, { params, query }) {
        const meta = { name: query.name, stepId: query.step_id, contentType: uploadContentType(ctx), declaredBytes: declaredLength(ctx) };
        answerUpload(ctx, await service.upload(params.run_id, holderOf(ctx.req.headers), meta, ctx.req));
      },
    }),
    'POST /internal/runs/{run_id}/artifacts': route({
      summary:
        'A small artifact sent whole in a JSON body (within SERVICE_MAX_BODY_BYTES): `{name, step_id?, content_type?, content}`; a string `content` is kept as its text (default text/plain; charset=utf-8), any other JSON value as JSON (application/json).',
      params: internalRunPath,
      body: createArtifactBody,
      responses: {
        ...UPLOAD_ANSWERS,
        413: { description: `${UPLOAD_ANSWERS[413].description}; a body over SERVICE_MAX_BODY_BYTES (\`payload_too_large\`)` },
      },
      async handle(ctx, { params, body }) {
        answerUpload(ctx, await service.create(params.run_id, holderOf(ctx.req.headers), body));
      },
    }),
    'GET /runs/{run_id}/artifacts/{artifact_id}/download': route({
      summary:
        "One artifact's bytes, streamed: its `Content-Type`, `Content-Length`, `Content-Disposition: attachment` with the name's last segment, and `ETag` its SHA-256 (`If-None-Match` answers 304).",
      params: artifactPath,
      query: noQuery,
      responses: {
        200: { description: "The artifact's bytes", schema: artifactBytes, contentType: DEFAULT_CONTENT_TYPE },
        304: { description: '`If-None-Match` names the artifact as it is' },
        404: { description: 'No such artifact of this run, or no such run in the active organization (`resource_not_found`)' },
        503: { description: "The artifact's bytes cannot be read on this instance or from its repository (`artifact_unavailable`)" },
      },
      async handle(ctx, { params }) {
        const found = await service.find(activeOrg(ctx).id, params.run_id, params.artifact_id);
        const etag = `"${found.sha256}"`;
        ctx.set('ETag', etag);
        // Artifacts never change: a client may keep one and ask again with its tag.
        ctx.set('Cache-Control', 'private, no-cache');
        if (noneMatchHolds(requestHeader(ctx, 'if-none-match'), etag)) {
          ctx.status = 304;
          return;
        }
        ctx.body = await service.open(found);
        ctx.set('Content-Disposition', attachmentHeader(posix.basename(found.name)));
        ctx.set('Content-Type', found.content_type);
        ctx.length = found.size_bytes;
      },
    }),
    'GET /runs/{run_id}/artifacts/download-all': route({
      summary:
        "Every artifact of the run in one zip (entries named by the artifacts' names, oldest first), built while it is sent: no `Content-Length`. A run without artifacts answers an empty zip.",
      params: runPath,
      query: noQuery,
      responses: {
        200: { description: 'The zip', schema: artifactBytes, contentType: 'application/zip' },
        404: { description: 'No such run in the active organization (`resource_not_found`)' },
      },
      async handle(ctx, { params }) {
        const { run, artifacts } = await service.forZip(activeOrg(ctx).id, params.run_id);
        ctx.body = zipOf(artifacts, (row) => service.open(row));
        ctx.set('Content-Disposition', attachmentHeader(zipName(run.name)));
        ctx.set('Content-Type', 'application/zip');
      },
    }),
  };
}
