import { flowPath } from '../../../shared/api/flows.js';
import {
  flowGitLink,
  flowGitLinkBody,
  pushBody,
  syncBody,
  syncEntry,
  syncHistory,
  syncHistoryQuery,
  yamlPreview,
  yamlPreviewQuery,
} from '../../../shared/api/git.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import { flowCaller } from '../flows/caller.js';
import type { FlowGitService } from './flow-git-service.js';

const ENTRY = { description: 'The sync history entry written', schema: syncEntry };
const FLOW_NOT_FOUND = {
  description:
    "No such flow (`resource_not_found`), or the link's branch or file is missing (`git_branch_not_found`, `git_path_not_found`)",
};
const REMOTE = { description: '`git_remote_failed` (`reason`)' };

/** A flow's git link, pull, push, history (`flow_git:*`) and YAML preview (`flow:view`); docs/git.md. */
export function flowGitRoutes(service: FlowGitService): DomainRoutes {
  return {
    'PATCH /flows/{flow_id}/git': route({
      summary:
        'Link the flow to a file on a branch of a repository: `{repo_id, path, branch?, mode?}` (`mode`: what a pull writes, `draft` or `version`).',
      params: flowPath,
      body: flowGitLinkBody,
      responses: {
        200: { description: 'The link', schema: flowGitLink },
        403: { description: '`shared_read_only`' },
        404: { description: 'No such flow or repository' },
      },
      async handle(ctx, { params, body }) {
        ctx.body = await service.link(flowCaller(ctx), params.flow_id, body);
      },
    }),
    'POST /flows/{flow_id}/git/detach': route({
      summary: "Remove the flow's link (its history stays).",
      params: flowPath,
      noBody: true,
      responses: { 204: { description: 'Detached' }, 404: { description: 'No such flow' }, 409: { description: '`flow_not_linked`' } },
      async handle(ctx, { params }) {
        await service.detach(flowCaller(ctx), params.flow_id);
        ctx.status = 204;
      },
    }),
    'POST /flows/{flow_id}/sync-from-git': route({
      summary:
        'Pull: fetch the linked branch and write the file into the draft (or a new version, as the link says). A draft with edits of its own is refused (409 `draft_dirty`) unless `force`; an invalid file is 422 `invalid_flow_yaml` with `line`, `column`, `path`, and nothing changes.',
      params: flowPath,
      body: syncBody,
      responses: {
        200: ENTRY,
        403: { description: '`shared_read_only`, `restricted_option`' },
        404: FLOW_NOT_FOUND,
        409: { description: '`flow_not_linked`, `draft_dirty`' },
        422: { description: '`invalid_flow_yaml`, `git_file_too_large`, `validation_failed`' },
        502: REMOTE,
      },
      async handle(ctx, { params, body }) {
        ctx.body = await service.pull(flowCaller(ctx), params.flow_id, body.force ?? false);
      },
    }),
    'POST /flows/{flow_id}/push-to-git': route({
      summary:
        "Push: the newest committed version as YAML (yaml-preview's), committed on the linked branch with a message naming the version and the actor. The file changed on the remote since the last sync: 409 `non_fast_forward` unless `force`.",
      params: flowPath,
      body: pushBody,
      responses: {
        200: ENTRY,
        400: { description: '`flow_not_committed`' },
        403: { description: '`shared_read_only`' },
        404: FLOW_NOT_FOUND,
        409: {
          description:
            '`flow_not_linked`, `non_fast_forward`, `git_path_conflict` (a folder is at the path, or a file where its folder would be)',
        },
        502: REMOTE,
      },
      async handle(ctx, { params, body }) {
        ctx.body = await service.push(flowCaller(ctx), params.flow_id, { force: body.force ?? false, message: body.message });
      },
    }),
    'GET /flows/{flow_id}/git-sync-history': route({
      summary: "The flow's pulls and pushes, newest first: commit, author, when, who asked, outcome; `limit`, `offset`.",
      params: flowPath,
      query: syncHistoryQuery,
      responses: { 200: { description: '`items`, `total`, `limit`, `offset`', schema: syncHistory }, 404: { description: 'No such flow' } },
      async handle(ctx, { params, query }) {
        ctx.body = await service.flowHistory(flowCaller(ctx), params.flow_id, query);
      },
    }),
    'GET /flows/{flow_id}/yaml-preview': route({
      summary:
        'The flow as the YAML file push writes: `version` (a number or `draft`; the newest version unless given, the draft before any commit).',
      params: flowPath,
      query: yamlPreviewQuery,
      responses: { 200: { description: 'The YAML', schema: yamlPreview }, 404: { description: 'No such flow or version' } },
      async handle(ctx, { params, query }) {
        ctx.body = await service.preview(flowCaller(ctx), params.flow_id, query.version);
      },
    }),
  };
}
