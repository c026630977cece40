import {
  attachmentArchive,
  attachmentBytes,
  bulkRenameBody,
  bulkRenameResult,
  bulkUploadQuery,
  bulkUploadResult,
  flowAttachment,
  flowAttachmentList,
  flowAttachmentPath,
  flowAttachmentsPath,
  listAttachmentsQuery,
  moveAttachmentBody,
  uploadAttachmentQuery,
} from '../../../shared/api/flow-attachments.js';
import { noQuery } from '../../../shared/api/query.js';
import { requestHeader } from '../../http/request-header.js';
import { route } from '../../http/route.js';
import type { AppContext, DomainRoutes } from '../../http/types.js';
import { flowCaller } from '../flows/caller.js';
import type { AttachmentsService } from './attachments-service.js';
import type { BulkService } from './bulk-service.js';
import { sendBytes } from './send-bytes.js';

const OCTETS = 'application/octet-stream';
const ATTACHMENT = { description: 'The attachment', schema: flowAttachment };
const STORE_DOWN = {
  description: "The default file repository's store cannot take the bytes now (`file_store_unavailable`); nothing is kept",
};
const NOT_FOUND = { description: 'No such flow readable here, or no such attachment of it (`resource_not_found`)' };
const SHARED = { description: "The shared organization's flow, read-only here (`shared_read_only`)" };
const TAKEN = { description: 'A path is taken, or a file would stand where a folder is (or the reverse) (`attachment_exists`, `paths`)' };
const BAD_PATH = { description: '`invalid_file_path` (`field`, `reason`: traversal, absolute, ...), `validation_failed`' };
const TOO_LARGE = {
  description: 'Over SERVICE_ATTACHMENT_MAX_BYTES, or a bulk limit (`attachment_too_large`, `limit`, `what`); nothing is kept',
};

function declaredLength(ctx: AppContext): number | undefined {
  const raw = requestHeader(ctx, 'content-length');
  return /^\d+$/.test(raw) ? Number(raw) : undefined;
}

/** A flow's attachments (`flow_attachment:view|manage`); docs/flow-attachments.md. */
export function attachmentRoutes(service: AttachmentsService, bulk: BulkService): DomainRoutes {
  return {
    'GET /flows/{flow_id}/attachments': route({
      summary:
        "The flow draft's attachments by path: `folder` (everything under it), `q` (path contains), `limit`, `offset`. Each with its size, SHA-256 and sniffed content type.",
      params: flowAttachmentsPath,
      query: listAttachmentsQuery,
      responses: { 200: { description: '`items`, `total`, `limit`, `offset`', schema: flowAttachmentList }, 404: NOT_FOUND, 422: BAD_PATH },
      async handle(ctx, { params, query }) {
        ctx.body = await service.list(flowCaller(ctx), params.flow_id, {
          folder: query.folder,
          q: query.q?.trim().normalize('NFC') || undefined,
          limit: query.limit,
          offset: query.offset,
        });
      },
    }),
    'POST /flows/{flow_id}/attachments': route({
      summary:
        'Streams one file in as an attachment of the draft: the body is its bytes (`Content-Length` or chunked, never buffered), `path` where it goes (`roles/ntp/tasks/main.yml`), `overwrite` to replace the bytes at a taken path. Kept in the organization’s default file repository, content-addressed: a commit pins it without copying.',
      params: flowAttachmentsPath,
      query: uploadAttachmentQuery,
      bodyMode: 'none',
      body: attachmentBytes,
      bodyMediaType: OCTETS,
      responses: {
        200: { description: 'Replaced the bytes at this path (`overwrite`): the attachment', schema: flowAttachment },
        201: ATTACHMENT,
        403: SHARED,
        404: NOT_FOUND,
        409: TAKEN,
        413: TOO_LARGE,
        422: BAD_PATH,
        503: STORE_DOWN,
      },
      async handle(ctx, { params, query }) {
        const declared = requestHeader(ctx, 'content-type').split(';')[0]!.trim();
        const { created, attachment } = await service.upload(
          flowCaller(ctx),
          params.flow_id,
          {
            path: query.path,
            overwrite: query.overwrite === 'true',
            declaredType: declared === '' || declared === OCTETS ? undefined : declared,
            declaredBytes: declaredLength(ctx),
          },
          ctx.req,
        );
        ctx.status = created ? 201 : 200;
        ctx.body = attachment;
      },
    }),
    'POST /flows/{flow_id}/attachments/bulk': route({
      summary:
        'A folder tree in one request: the body is a zip archive (`zip -r - roles site.yml`), its files land under `folder` with their paths. All or nothing: every path checked, limits SERVICE_ATTACHMENT_BULK_MAX_FILES and SERVICE_ATTACHMENT_BULK_MAX_BYTES (413), a taken path 409 unless `overwrite=true`.',
      params: flowAttachmentsPath,
      query: bulkUploadQuery,
      bodyMode: 'none',
      body: attachmentArchive,
      bodyMediaType: 'application/zip',
      responses: {
        201: { description: '`{items, created, replaced}`: the attachments the archive made or replaced', schema: bulkUploadResult },
        403: SHARED,
        404: NOT_FOUND,
        409: TAKEN,
        413: TOO_LARGE,
        422: { description: '`attachment_archive_invalid` (`reason`), `invalid_file_path` (field `entry`), `validation_failed`' },
        503: STORE_DOWN,
      },
      async handle(ctx, { params, query }) {
        ctx.status = 201;
        ctx.body = await bulk.upload(
          flowCaller(ctx),
          params.flow_id,
          { folder: query.folder, overwrite: query.overwrite === 'true', declaredBytes: declaredLength(ctx) },
          ctx.req,
        );
      },
    }),
    'POST /flows/{flow_id}/attachments/bulk-rename': route({
      summary:
        '`{renames: [{from, to}]}`: files, or folders when `from` ends in `/` (everything under it moves). Applied together or not at all; rows change, bytes stay.',
      params: flowAttachmentsPath,
      body: bulkRenameBody,
      responses: {
        200: { description: '`{items, moved}`: the attachments moved, at their new paths', schema: bulkRenameResult },
        403: SHARED,
        404: NOT_FOUND,
        409: TAKEN,
        422: { description: '`validation_failed` (a `from` naming nothing, at `renames[i].from`), `invalid_file_path`' },
      },
      async handle(ctx, { params, body }) {
        ctx.body = await bulk.rename(flowCaller(ctx), params.flow_id, body.renames);
      },
    }),
    'GET /flows/{flow_id}/attachments/{attachment_id}': route({
      summary: 'One attachment: path, content type, size, SHA-256.',
      params: flowAttachmentPath,
      query: noQuery,
      responses: { 200: ATTACHMENT, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        ctx.body = await service.get(flowCaller(ctx), params.flow_id, params.attachment_id);
      },
    }),
    'GET /flows/{flow_id}/attachments/{attachment_id}/download': route({
      summary:
        "The attachment's bytes, streamed, with `Content-Type`, `Content-Length`, `Content-Disposition` and `ETag` (its SHA-256; `If-None-Match` answers 304).",
      params: flowAttachmentPath,
      query: noQuery,
      responses: {
        200: { description: "The attachment's bytes", schema: attachmentBytes, contentType: OCTETS },
        304: { description: '`If-None-Match` names the bytes as they are' },
        404: NOT_FOUND,
        503: { description: 'The file repository cannot give the bytes now (`attachment_unavailable`)' },
      },
      async handle(ctx, { params }) {
        const { row, open } = await service.download(flowCaller(ctx), params.flow_id, params.attachment_id);
        await sendBytes(ctx, row, open);
      },
    }),
    'PATCH /flows/{flow_id}/attachments/{attachment_id}': route({
      summary: 'Rename or move one attachment (`{path}`): its row changes, its bytes stay.',
      params: flowAttachmentPath,
      body: moveAttachmentBody,
      responses: { 200: ATTACHMENT, 403: SHARED, 404: NOT_FOUND, 409: TAKEN, 422: BAD_PATH },
      async handle(ctx, { params, body }) {
        ctx.body = await service.move(flowCaller(ctx), params.flow_id, params.attachment_id, body.path);
      },
    }),
    'DELETE /flows/{flow_id}/attachments/{attachment_id}': route({
      summary: 'Remove an attachment from the draft; committed versions keep what they pinned.',
      params: flowAttachmentPath,
      responses: { 204: { description: 'Removed' }, 403: SHARED, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        await service.remove(flowCaller(ctx), params.flow_id, params.attachment_id);
        ctx.status = 204;
      },
    }),
  };
}
