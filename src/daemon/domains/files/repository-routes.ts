import {
  connectionReport,
  createFileRepositoryBody,
  deleteFolderQuery,
  FILE_REPOSITORY_KINDS,
  fileRepository,
  fileRepositoryKinds,
  fileRepositoryList,
  fileRepositoryPath,
  folderAnswer,
  folderBody,
  folderList,
  listFileRepositoriesQuery,
  renamedFolder,
  renameFolderBody,
  updateFileRepositoryBody,
} from '../../../shared/api/file-repositories.js';
import { noQuery } from '../../../shared/api/query.js';
import { activeOrg } from '../../http/active-org.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import type { FoldersService } from './folders-service.js';
import type { RepositoriesService } from './repositories-service.js';

const REPOSITORY = { description: 'The file repository', schema: fileRepository };
const NOT_FOUND = { description: 'No such repository in the active organization or the shared one (`resource_not_found`)' };
const SHARED = { description: "The shared organization's repository, read-only here (`shared_read_only`)" };
const BAD_PATH = { description: '`invalid_file_path` (`field`, `reason`), `validation_failed`' };

const KINDS = {
  items: [
    { kind: 'local' as const, description: 'A directory under the daemon data directory (the embedded default).', config_fields: [] },
    {
      kind: 's3' as const,
      description: 'A bucket of any S3-compatible store; credentials as secret references.',
      config_fields: ['endpoint', 'region', 'bucket', 'prefix', 'force_path_style', 'access_key_id_ref', 'secret_access_key_ref'],
    },
  ].filter((k) => FILE_REPOSITORY_KINDS.includes(k.kind)),
};

/** File repositories and their folders (`file_repository:view|manage|test`, folders `file:manage`); docs/files.md. */
export function repositoryRoutes(service: RepositoriesService, folders: FoldersService): DomainRoutes {
  return {
    'GET /file-repositories/kinds': route({
      summary: 'The kinds of repository this daemon can use, with the fields of their `config`.',
      query: noQuery,
      responses: { 200: { description: '`items`', schema: fileRepositoryKinds } },
      handle(ctx) {
        ctx.body = KINDS;
      },
    }),
    'GET /file-repositories': route({
      summary:
        "Repositories of the active organization and the shared one, by name, each with its files' count and bytes. Filters: `kind`, `q` (name contains); `limit`, `offset`.",
      query: listFileRepositoriesQuery,
      responses: { 200: { description: '`items`, `total`, `limit`, `offset`', schema: fileRepositoryList } },
      async handle(ctx, { query }) {
        ctx.body = await service.list(activeOrg(ctx), {
          kind: query.kind,
          q: query.q?.trim() || undefined,
          limit: query.limit,
          offset: query.offset,
        });
      },
    }),
    'POST /file-repositories': route({
      summary:
        "Create a repository: `{kind: 'local'}` or `{kind: 's3', config: {endpoint?, region, bucket, prefix?, force_path_style?, access_key_id_ref, secret_access_key_ref}}`, with `name`, `description?`, `is_default?`. The organization's first repository becomes its default. S3 credentials are secret references that must resolve in the organization.",
      body: createFileRepositoryBody,
      responses: {
        201: REPOSITORY,
        409: { description: 'The name is taken (`conflict`)' },
        422: { description: '`validation_failed`, `secret_reference_unusable` (`field`, `reason`)' },
      },
      async handle(ctx, { body }) {
        const created = await service.create(activeOrg(ctx), body, ctx.state.audit);
        ctx.status = 201;
        ctx.set('Location', `/file-repositories/${created.id}`);
        ctx.body = created;
      },
    }),
    'POST /file-repositories/ensure-default': route({
      summary: "The organization's default repository; one is made (`local`, named `default`) when it has none, answering 201.",
      noBody: true,
      responses: { 200: REPOSITORY, 201: { description: 'Made now', schema: fileRepository } },
      async handle(ctx) {
        const { created, repository } = await service.ensureDefault(activeOrg(ctx), ctx.state.audit);
        ctx.status = created ? 201 : 200;
        ctx.body = repository;
      },
    }),
    'GET /file-repositories/{file_repository_id}': route({
      summary: 'One repository, with its files’ count and bytes.',
      params: fileRepositoryPath,
      query: noQuery,
      responses: { 200: REPOSITORY, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        ctx.body = await service.get(activeOrg(ctx), params.file_repository_id);
      },
    }),
    'PATCH /file-repositories/{file_repository_id}': route({
      summary: 'Change `name`, `description`, or an S3 repository’s whole `config` (its kind is fixed).',
      params: fileRepositoryPath,
      body: updateFileRepositoryBody,
      responses: {
        200: REPOSITORY,
        403: SHARED,
        404: NOT_FOUND,
        409: { description: 'The name is taken (`conflict`)' },
        422: { description: '`validation_failed`, `secret_reference_unusable`' },
      },
      async handle(ctx, { params, body }) {
        ctx.body = await service.update(activeOrg(ctx), params.file_repository_id, body, ctx.state.audit);
      },
    }),
    'DELETE /file-repositories/{file_repository_id}': route({
      summary: 'Delete an empty repository (its folders go with it).',
      params: fileRepositoryPath,
      responses: {
        204: { description: 'Deleted' },
        403: SHARED,
        404: NOT_FOUND,
        409: { description: 'It still holds files (`file_repository_not_empty`)' },
      },
      async handle(ctx, { params }) {
        await service.remove(activeOrg(ctx), params.file_repository_id, ctx.state.audit);
        ctx.status = 204;
      },
    }),
    'POST /file-repositories/{file_repository_id}/set-default': route({
      summary: "Make this the organization's default repository (the previous default stops being one).",
      params: fileRepositoryPath,
      noBody: true,
      responses: { 200: REPOSITORY, 403: SHARED, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        ctx.body = await service.setDefault(activeOrg(ctx), params.file_repository_id, ctx.state.audit);
      },
    }),
    'POST /file-repositories/{file_repository_id}/test-connection': route({
      summary:
        'Check the repository from this daemon: `reach`, `write`, `read`, `delete` of a probe object, each with a coded `reason` when it fails (`unreachable`, `credentials_unresolved`, `access_denied`, `bucket_not_found`, `not_writable`, `not_readable`, `error`).',
      params: fileRepositoryPath,
      noBody: true,
      responses: { 200: { description: '`{ok, checks}`', schema: connectionReport }, 403: SHARED, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        ctx.body = await service.testConnection(activeOrg(ctx), params.file_repository_id);
      },
    }),
    'GET /file-repositories/{file_repository_id}/folders': route({
      summary:
        'Every folder of the repository (made on purpose, or holding files, and those above them), with the files each holds directly.',
      params: fileRepositoryPath,
      query: noQuery,
      responses: { 200: { description: '`items`', schema: folderList }, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        ctx.body = await folders.list(activeOrg(ctx), params.file_repository_id);
      },
    }),
    'POST /file-repositories/{file_repository_id}/folders': route({
      summary: 'Make a folder (`{path}`, such as `images/ios-xe`); kept while empty.',
      params: fileRepositoryPath,
      body: folderBody,
      responses: {
        201: { description: 'Made', schema: folderAnswer },
        403: SHARED,
        404: NOT_FOUND,
        409: { description: '`folder_exists`' },
        422: BAD_PATH,
      },
      async handle(ctx, { params, body }) {
        ctx.status = 201;
        ctx.body = await folders.create(activeOrg(ctx), params.file_repository_id, body.path, ctx.state.audit);
      },
    }),
    'DELETE /file-repositories/{file_repository_id}/folders': route({
      summary:
        'Remove the folder `path`; one holding files or folders needs `force=true`, which deletes those files for good (refused while any is in use).',
      params: fileRepositoryPath,
      query: deleteFolderQuery,
      responses: {
        204: { description: 'Removed' },
        403: SHARED,
        404: { description: 'No such repository or folder (`resource_not_found`)' },
        409: { description: '`folder_not_empty`, `file_in_use`' },
        422: BAD_PATH,
      },
      async handle(ctx, { params, query }) {
        await folders.remove(activeOrg(ctx), params.file_repository_id, query.path, query.force === 'true', ctx.state.audit);
        ctx.status = 204;
      },
    }),
    'POST /file-repositories/{file_repository_id}/folders/rename': route({
      summary: 'Rename or move a folder (`{from, to}`) with everything in it: rows change, no byte is copied.',
      params: fileRepositoryPath,
      body: renameFolderBody,
      responses: {
        200: { description: '`{from, to, files_moved}`', schema: renamedFolder },
        403: SHARED,
        404: { description: 'No such repository or folder (`resource_not_found`)' },
        409: { description: '`to` exists (`folder_exists`)' },
        422: BAD_PATH,
      },
      async handle(ctx, { params, body }) {
        ctx.body = await folders.rename(activeOrg(ctx), params.file_repository_id, body.from, body.to, ctx.state.audit);
      },
    }),
  };
}
