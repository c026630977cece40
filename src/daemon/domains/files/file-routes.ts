import { pipeline } from 'node:stream';
import {
  deleteFileQuery,
  downloadUrlBody,
  file,
  fileBytes,
  fileList,
  filePath,
  fileUsage,
  importFileBody,
  listFilesQuery,
  moveFileBody,
  namedFilePath,
  signedUrl,
  signedUrlQuery,
  uploadFileQuery,
} from '../../../shared/api/files.js';
import { fileRepositoryPath } from '../../../shared/api/file-repositories.js';
import { noQuery } from '../../../shared/api/query.js';
import { activeOrg } from '../../http/active-org.js';
import { attachmentHeader } from '../../http/attachment-header.js';
import { noneMatchHolds } from '../../http/entity-tag.js';
import { requestHeader } from '../../http/request-header.js';
import { route } from '../../http/route.js';
import type { AppContext, DomainRoutes } from '../../http/types.js';
import { verifying } from '../../storage/verify-stream.js';
import { placeFilterOf } from './file-filter.js';
import type { FileImporter } from './file-import.js';
import type { FileLinks } from './file-links.js';
import type { FileRow } from './files-repo.js';
import type { FilesService } from './files-service.js';

const OCTETS = 'application/octet-stream';
const FILE = { description: 'The file', schema: file };
const NOT_FOUND = { description: 'No such file in the active organization or the shared one (`resource_not_found`)' };
const SHARED = { description: "The shared organization's file, read-only here (`shared_read_only`)" };
const BYTES = {
  200: { description: "The file's bytes", schema: fileBytes, contentType: OCTETS },
  304: { description: '`If-None-Match` names the file as it is' },
  503: { description: 'The repository cannot give the bytes now (`file_unavailable`)' },
};
const STORED = {
  200: { description: 'Replaced the bytes of the file at this path (`overwrite`): the file', schema: file },
  201: FILE,
  403: { description: "The shared organization's repository (`shared_read_only`)" },
  404: { description: 'No such repository (`resource_not_found`)' },
  409: { description: 'A file of this name is in the folder (`file_exists`)' },
  413: { description: 'Larger than SERVICE_FILE_MAX_BYTES (`file_too_large`); nothing is stored' },
  503: { description: "The repository's store cannot take the bytes now (`file_store_unavailable`); nothing is stored" },
} as const;

/** The address the caller used to reach this daemon (a presigned URL starts with it). */
function originOf(ctx: AppContext): string {
  const encrypted = (ctx.req.socket as { encrypted?: boolean }).encrypted === true;
  return `${encrypted ? 'https' : 'http'}://${ctx.req.headers.host ?? 'localhost'}`;
}

function declaredLength(ctx: AppContext): number | undefined {
  const raw = requestHeader(ctx, 'content-length');
  return /^\d+$/.test(raw) ? Number(raw) : undefined;
}

/** Streams a file: its type, length, name, `ETag` (its SHA-256); the bytes are checked against it on their way. */
async function sendFile(ctx: AppContext, service: FilesService, row: FileRow): Promise<void> {
  const etag = `"${row.sha256}"`;
  ctx.set('ETag', etag);
  ctx.set('Cache-Control', 'private, no-cache');
  if (noneMatchHolds(requestHeader(ctx, 'if-none-match'), etag)) {
    ctx.status = 304;
    return;
  }
  const bytes = await service.open(row);
  ctx.body = pipeline(bytes, verifying(row.sha256, Number(row.size_bytes)), () => undefined);
  ctx.set('Content-Disposition', attachmentHeader(row.name));
  ctx.set('Content-Type', row.content_type);
  ctx.length = Number(row.size_bytes);
}

/** Files (`file:view|manage`) and the workers' device URL (`internal:resolve`); docs/files.md. */
export function fileRoutes(service: FilesService, links: FileLinks, importer: FileImporter): DomainRoutes {
  return {
    'GET /files': route({
      summary:
        'Files of the active organization and the shared one, by folder and name. Filters: `repository_id`, `folder` (exactly; with `recursive=true` its subfolders too), `q` (name contains), `content_type`; `limit`, `offset`.',
      query: listFilesQuery,
      responses: {
        200: { description: '`items`, `total`, `limit`, `offset`', schema: fileList },
        422: { description: '`invalid_file_path`, `validation_failed`' },
      },
      async handle(ctx, { query }) {
        ctx.body = await service.list(activeOrg(ctx), { ...placeFilterOf(query), contentType: query.content_type });
      },
    }),
    'POST /file-repositories/{file_repository_id}/files/upload': route({
      summary:
        'Streams one file in: the body is its bytes (`Content-Length` or chunked, never buffered), the query its `name` (may carry folders: `configs/r1.cfg`), `folder`, `sha256` (checked) and `overwrite`. Its content type is sniffed from its first bytes (`Content-Type` only where they say nothing), its SHA-256 recorded; names are normalised (NFC) and traversal refused.',
      params: fileRepositoryPath,
      query: uploadFileQuery,
      bodyMode: 'none',
      body: fileBytes,
      bodyMediaType: OCTETS,
      responses: { ...STORED, 422: { description: '`invalid_file_path` (`field`, `reason`), `checksum_mismatch`, `validation_failed`' } },
      async handle(ctx, { params, query }) {
        const declared = requestHeader(ctx, 'content-type').split(';')[0]!.trim();
        const { created, file: stored } = await service.upload(
          activeOrg(ctx),
          params.file_repository_id,
          {
            name: query.name,
            folder: query.folder,
            sha256: query.sha256,
            overwrite: query.overwrite === 'true',
            declaredType: declared === '' || declared === OCTETS ? undefined : declared,
            declaredBytes: declaredLength(ctx),
          },
          ctx.req,
          ctx.state.audit,
        );
        ctx.status = created ? 201 : 200;
        ctx.body = stored;
      },
    }),
    'POST /file-repositories/{file_repository_id}/files/import': route({
      summary:
        'The daemon fetches `url` into the repository (`name` defaults to its last path segment): http(s) only, through the outbound guard (no private, loopback or link-local address at any hop unless SERVICE_OUTBOUND_ALLOWED_NETWORKS allows it), within SERVICE_FILE_IMPORT_TIMEOUT_MS and SERVICE_FILE_MAX_BYTES, `sha256` checked when given.',
      params: fileRepositoryPath,
      body: importFileBody,
      responses: {
        ...STORED,
        422: { description: '`import_refused` (`reason`), `invalid_file_path`, `checksum_mismatch`, `validation_failed`' },
        502: { description: 'The URL could not be fetched (`import_failed`, `reason`)' },
      },
      async handle(ctx, { params, body }) {
        const { created, file: stored } = await importer.import(activeOrg(ctx), params.file_repository_id, body, ctx.state.audit);
        ctx.status = created ? 201 : 200;
        ctx.body = stored;
      },
    }),
    'GET /files/{file_id}': route({
      summary: "One file's metadata: repository, folder, name, content type, size, SHA-256, revision.",
      params: filePath,
      query: noQuery,
      responses: { 200: FILE, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        ctx.body = await service.get(activeOrg(ctx), params.file_id);
      },
    }),
    'GET /files/{file_id}/download': route({
      summary:
        "The file's bytes, streamed, with `Content-Type`, `Content-Length`, `Content-Disposition` and `ETag` (its SHA-256; `If-None-Match` answers 304). Bytes that no longer hash to it end the answer short.",
      params: filePath,
      query: noQuery,
      responses: { ...BYTES, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        await sendFile(ctx, service, await service.readable(activeOrg(ctx), params.file_id));
      },
    }),
    'GET /files/{file_id}/{filename}': route({
      summary:
        'The file’s bytes by a presigned URL (`expires`, `signature` from `download-url` or `device-download-url`): no credential needed while it has not expired and the file has the bytes it was made for. Without `signature`, as `GET /files/{file_id}/download` for a caller who may read files.',
      params: namedFilePath,
      query: signedUrlQuery,
      responses: { ...BYTES, 403: { description: '`signed_url_invalid`, `signed_url_expired`' }, 404: NOT_FOUND },
      async handle(ctx, { params, query }) {
        const row = ctx.state.auth?.signedUrl
          ? await links.redeem(params.file_id, params.filename, query.expires, query.signature)
          : await service.readable(activeOrg(ctx), params.file_id);
        await sendFile(ctx, service, row);
      },
    }),
    'POST /files/{file_id}/download-url': route({
      summary:
        'A presigned URL of the file for anyone holding it: `GET`, until `expires_at` (`expires_in` seconds, default SERVICE_FILE_URL_TTL_SECONDS), and only while the file keeps its present bytes.',
      params: filePath,
      body: downloadUrlBody,
      responses: { 200: { description: '`{url, method, expires_at}`', schema: signedUrl }, 404: NOT_FOUND },
      async handle(ctx, { params, body }) {
        ctx.body = await links.forUser(activeOrg(ctx), params.file_id, originOf(ctx), body.expires_in);
      },
    }),
    'POST /files/{file_id}/device-download-url': route({
      summary:
        'For a worker: a presigned URL of the file that a network device can fetch (an upgrade image), based on SERVICE_DEVICE_DOWNLOAD_BASE_URL (else the address the worker called), valid `expires_in` seconds (default SERVICE_FILE_DEVICE_URL_TTL_SECONDS).',
      params: filePath,
      body: downloadUrlBody,
      responses: {
        200: { description: '`{url, method, expires_at}`', schema: signedUrl },
        404: { description: 'No such file (`resource_not_found`)' },
      },
      async handle(ctx, { params, body }) {
        ctx.body = await links.forDevice(params.file_id, originOf(ctx), body.expires_in);
      },
    }),
    'GET /files/{file_id}/usage': route({
      summary: 'Which flows (draft or committed versions naming the file’s id) and unfinished runs of those versions use the file.',
      params: filePath,
      query: noQuery,
      responses: { 200: { description: '`{file_id, in_use, flows, runs, inventory_providers}`', schema: fileUsage }, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        ctx.body = await service.usage(activeOrg(ctx), params.file_id);
      },
    }),
    'POST /files/{file_id}/move': route({
      summary:
        'Move and/or rename a file within its repository (`{folder?, name?}`): its row changes, its bytes stay (no copy on any backend).',
      params: filePath,
      body: moveFileBody,
      responses: {
        200: FILE,
        403: SHARED,
        404: NOT_FOUND,
        409: { description: '`file_exists`' },
        422: { description: '`invalid_file_path`, `validation_failed`' },
      },
      async handle(ctx, { params, body }) {
        ctx.body = await service.move(activeOrg(ctx), params.file_id, body, ctx.state.audit);
      },
    }),
    'DELETE /files/{file_id}': route({
      summary:
        'Delete a file for good, row and bytes; refused while flows, unfinished runs or inventory providers use it (`file_in_use`) unless `force=true`.',
      params: filePath,
      query: deleteFileQuery,
      responses: {
        204: { description: 'Deleted' },
        403: SHARED,
        404: NOT_FOUND,
        409: { description: '`file_in_use` (`flows`, `runs`, `inventory_providers`)' },
      },
      async handle(ctx, { params, query }) {
        await service.remove(activeOrg(ctx), params.file_id, query.force === 'true', ctx.state.audit);
        ctx.status = 204;
      },
    }),
  };
}
