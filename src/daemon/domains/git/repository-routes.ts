import {
  connectionReport,
  createGitRepositoryBody,
  fileAnswer,
  fileQuery,
  gitRepository,
  gitRepositoryList,
  gitRepositoryPath,
  listGitRepositoriesQuery,
  repositorySyncAnswer,
  syncBody,
  syncHistory,
  syncHistoryQuery,
  testConnectionBody,
  treeAnswer,
  treeQuery,
  updateGitRepositoryBody,
} from '../../../shared/api/git.js';
import { noQuery } from '../../../shared/api/query.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import { flowCaller } from '../flows/caller.js';
import type { FlowGitService } from './flow-git-service.js';
import type { GitRepositoriesService } from './git-repositories-service.js';

const REPOSITORY = { description: 'The repository (its secret reference, never a value)', schema: gitRepository };
const NOT_FOUND = { description: 'No such repository in the active organization (`resource_not_found`)' };
const REMOTE = {
  description: '`git_remote_failed` (`reason`: `authentication_failed`, `unreachable`, `timeout`, `credential_unavailable`, `failed`)',
};
const REFUSED_INPUT = {
  description: '`git_url_refused` (`reason`), `validation_failed` (a secret reference that does not resolve: `auth.secret_ref`)',
};

/** Git repositories of the active organization (`git_repository:view|manage|test|sync`); docs/git.md. */
export function gitRepositoryRoutes(repositories: GitRepositoriesService, flowGit: FlowGitService): DomainRoutes {
  return {
    'GET /git-repositories': route({
      summary: 'Git repositories of the active organization by name; `q` (name contains), `limit` (50, ≤ 500), `offset`.',
      query: listGitRepositoriesQuery,
      responses: { 200: { description: '`items`, `total`, `limit`, `offset`', schema: gitRepositoryList } },
      async handle(ctx, { query }) {
        ctx.body = await repositories.list(flowCaller(ctx), { q: query.q?.trim() || undefined, limit: query.limit, offset: query.offset });
      },
    }),
    'POST /git-repositories': route({
      summary:
        'Add a repository: `{name, url, default_branch?, auth?}`. `auth` is `{type: none}`, `{type: token, username?, secret_ref}` or `{type: ssh_key, secret_ref, known_hosts?}`; the URL may carry no credentials.',
      body: createGitRepositoryBody,
      responses: { 201: REPOSITORY, 409: { description: 'The name is taken (`conflict`)' }, 422: REFUSED_INPUT },
      async handle(ctx, { body }) {
        const created = await repositories.create(flowCaller(ctx), body);
        ctx.status = 201;
        ctx.set('Location', `/git-repositories/${created.id}`);
        ctx.body = created;
      },
    }),
    'GET /git-repositories/{repo_id}': route({
      summary: 'One repository, with how many flows link to it.',
      params: gitRepositoryPath,
      query: noQuery,
      responses: { 200: REPOSITORY, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        ctx.body = await repositories.get(flowCaller(ctx), params.repo_id);
      },
    }),
    'PATCH /git-repositories/{repo_id}': route({
      summary: 'Change any of `name`, `url`, `default_branch`, `auth`.',
      params: gitRepositoryPath,
      body: updateGitRepositoryBody,
      responses: { 200: REPOSITORY, 404: NOT_FOUND, 409: { description: 'The name is taken (`conflict`)' }, 422: REFUSED_INPUT },
      async handle(ctx, { params, body }) {
        ctx.body = await repositories.update(flowCaller(ctx), params.repo_id, body);
      },
    }),
    'DELETE /git-repositories/{repo_id}': route({
      summary: 'Remove a repository and its cache; refused (409 `conflict`) while flows link to it.',
      params: gitRepositoryPath,
      responses: { 204: { description: 'Removed' }, 404: NOT_FOUND, 409: { description: 'Flows link to it (`conflict`)' } },
      async handle(ctx, { params }) {
        await repositories.delete(flowCaller(ctx), params.repo_id);
        ctx.status = 204;
      },
    }),
    'POST /git-repositories/{repo_id}/test-connection': route({
      summary:
        'Ask the remote (`ls-remote`) with the stored credentials: `reason` is `reachable`, `authentication_failed`, `branch_missing`, `unreachable`, `timeout` or `credential_unavailable`. `branch`: the default one unless given.',
      params: gitRepositoryPath,
      body: testConnectionBody,
      responses: { 200: { description: 'The report', schema: connectionReport }, 404: NOT_FOUND },
      async handle(ctx, { params, body }) {
        ctx.body = await repositories.testConnection(flowCaller(ctx), params.repo_id, body.branch);
      },
    }),
    'POST /git-repositories/{repo_id}/sync': route({
      summary:
        "Pull every flow linked to the repository; each flow's outcome (refusals such as `draft_dirty` included) is an entry. `force: true` overwrites dirty drafts.",
      params: gitRepositoryPath,
      body: syncBody,
      responses: { 200: { description: 'One sync entry per linked flow', schema: repositorySyncAnswer }, 404: NOT_FOUND },
      async handle(ctx, { params, body }) {
        ctx.body = await flowGit.syncRepository(flowCaller(ctx), params.repo_id, body.force ?? false);
      },
    }),
    'GET /git-repositories/{repo_id}/tree': route({
      summary: 'A folder of a branch (fetched now): `ref` (the default branch unless given), `path` (the root unless given).',
      params: gitRepositoryPath,
      query: treeQuery,
      responses: {
        200: { description: 'The entries', schema: treeAnswer },
        404: { description: '`resource_not_found`, `git_branch_not_found`, `git_path_not_found`' },
        502: REMOTE,
      },
      async handle(ctx, { params, query }) {
        ctx.body = await repositories.tree(flowCaller(ctx), params.repo_id, query);
      },
    }),
    'GET /git-repositories/{repo_id}/file': route({
      summary:
        'A file of a branch (fetched now): `path`, `ref` (the default branch unless given). `content` is its text when it is UTF-8 (`encoding: utf-8`), else base64 of its bytes (`encoding: base64`).',
      params: gitRepositoryPath,
      query: fileQuery,
      responses: {
        200: { description: 'The file', schema: fileAnswer },
        404: { description: '`resource_not_found`, `git_branch_not_found`, `git_path_not_found`' },
        422: { description: 'Larger than the daemon reads from git, 16 MiB (`git_file_too_large`)' },
        502: REMOTE,
      },
      async handle(ctx, { params, query }) {
        ctx.body = await repositories.file(flowCaller(ctx), params.repo_id, query);
      },
    }),
    'GET /git-repositories/{repo_id}/sync-history': route({
      summary: "The repository's pulls and pushes, newest first; `limit`, `offset`.",
      params: gitRepositoryPath,
      query: syncHistoryQuery,
      responses: { 200: { description: '`items`, `total`, `limit`, `offset`', schema: syncHistory }, 404: NOT_FOUND },
      async handle(ctx, { params, query }) {
        ctx.body = await flowGit.repositoryHistory(flowCaller(ctx), params.repo_id, query);
      },
    }),
  };
}
