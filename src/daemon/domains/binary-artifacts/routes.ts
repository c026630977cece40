import {
  binaryArtifactList,
  binaryArtifactPath,
  bulkDeleteAnswer,
  bulkDeleteBody,
  bulkDownloadBody,
  deleteBinaryArtifactQuery,
  listBinaryArtifactsQuery,
  zipBytes,
} from '../../../shared/api/binary-artifacts.js';
import { activeOrg } from '../../http/active-org.js';
import { attachmentHeader } from '../../http/attachment-header.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import { zipStream } from '../../storage/zip-stream.js';
import { placeFilterOf } from '../files/file-filter.js';
import type { BinaryArtifactsService } from './binary-artifacts-service.js';

const NOT_FOUND = {
  description:
    'An id is not a binary artifact of the active organization or the shared one (unknown, another’s, or a text file): `resource_not_found`, and nothing is done',
};
const DELETE_REFUSALS = {
  403: { description: "The shared organization's artifact, read-only here (`shared_read_only`); nothing is deleted" },
  404: NOT_FOUND,
  409: {
    description:
      'Flows, unfinished runs or inventory providers use an artifact (`file_in_use`: `flows`, `runs`, `inventory_providers`, and per file `files` in a bulk); nothing is deleted',
  },
} as const;

/** Binary artifacts (`binary_artifact:view|purge`): the binary files of the file repositories; docs/binary-artifacts.md. */
export function binaryArtifactRoutes(service: BinaryArtifactsService): DomainRoutes {
  return {
    'GET /binary-artifacts': route({
      summary:
        "Binary files (OS images, archives, disk images: every recorded content type but text, JSON, YAML and XML) of the active organization's file repositories and the shared organization's, with size, SHA-256, repository and usage. Filters: `repository_id`, `folder` (with `recursive=true` its subfolders too), `q` (name contains), `min_size` (bytes); `limit`, `offset`.",
      query: listBinaryArtifactsQuery,
      responses: {
        200: { description: '`items`, `total`, `limit`, `offset`', schema: binaryArtifactList },
        422: { description: '`invalid_file_path`, `validation_failed`' },
      },
      async handle(ctx, { query }) {
        ctx.body = await service.list(activeOrg(ctx), { ...placeFilterOf(query), minSize: query.min_size });
      },
    }),
    'POST /binary-artifacts/bulk-download': route({
      summary:
        'The artifacts `ids` as one zip, streamed while it is made (no `Content-Length`), entries named `<repository>/<folder>/<name>` (a repeated name gets the id’s first characters), each checked against its SHA-256 on its way (a mismatch cuts the answer short).',
      body: bulkDownloadBody,
      responses: {
        200: { description: 'The zip', schema: zipBytes, contentType: 'application/zip' },
        404: NOT_FOUND,
        413: { description: 'More artifacts or bytes than one zip may carry (`bulk_download_too_large`)' },
      },
      async handle(ctx, { body }) {
        const members = await service.zipMembers(activeOrg(ctx), body.ids);
        ctx.body = zipStream(members);
        ctx.set('Content-Disposition', attachmentHeader('binary-artifacts.zip'));
        ctx.set('Content-Type', 'application/zip');
      },
    }),
    'POST /binary-artifacts/bulk-delete': route({
      summary:
        'Delete the artifacts `ids` for good (no restore), all or none: refused whole when one is unknown (404), the shared organization’s (403) or in use (409, unless `force`). Each deletion is audited.',
      body: bulkDeleteBody,
      responses: {
        200: { description: 'What was deleted: `deleted` (`id`, `path`, `repository_id`, `forced`)', schema: bulkDeleteAnswer },
        ...DELETE_REFUSALS,
      },
      async handle(ctx, { body }) {
        ctx.body = await service.remove(activeOrg(ctx), body.ids, body.force === true, ctx.state.audit);
      },
    }),
    'DELETE /binary-artifacts/{artifact_id}': route({
      summary:
        'Delete one artifact for good (no restore); refused while flows, unfinished runs or inventory providers use it unless `force=true`.',
      params: binaryArtifactPath,
      query: deleteBinaryArtifactQuery,
      responses: { 204: { description: 'Deleted' }, ...DELETE_REFUSALS },
      async handle(ctx, { params, query }) {
        await service.remove(activeOrg(ctx), [params.artifact_id], query.force === 'true', ctx.state.audit);
        ctx.status = 204;
      },
    }),
  };
}
