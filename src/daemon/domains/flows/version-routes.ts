import {
  commitBody,
  compareQuery,
  definitionValidation,
  fieldTypes,
  flowComparison,
  flowInterface,
  flowPath,
  flowVersion,
  flowVersionList,
  flowVersionPath,
  interfaceQuery,
  launchContract,
  launchContractQuery,
  noQuery,
  validateBody,
  versioningInfo,
  versionPageQuery,
} from '../../../shared/api/flows.js';
import { FIELD_TYPES } from '../../../shared/flows/field-types.js';
import { problems } from '../../../shared/api/problems.js';
import { answerTagged, ifMatchOf } from '../../http/entity-tag.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import { flowCaller } from './caller.js';
import type { InterfaceService } from './interface-service.js';
import { ifMatchNote, narrowed, STALE, TAGGED } from './route-notes.js';
import type { VersionsService } from './versions-service.js';

/** A `{version}` path segment as a number; anything else is no version at all (404, like a malformed id). */
function versionNumber(segment: string): number {
  if (!/^[1-9]\d{0,8}$/.test(segment)) throw problems.resourceNotFound('Flow version');
  return Number(segment);
}

/** Committed versions (`flow:commit`, `flow:manage`, `flow:view`) and what a flow asks of a launch. */
export function versionRoutes(versions: VersionsService, iface: InterfaceService): DomainRoutes {
  return {
    'POST /flows/{flow_id}/commit': route({
      summary:
        'The draft becomes version N+1 `{message?}`; refused when the draft is invalid (422, every issue with its path) or unchanged since the newest version (409 `nothing_to_commit`). With `If-Match` (the `ETag` of the read or save the committer saw) a draft saved since is 412 `precondition_failed`, not committed unseen.',
      params: flowPath,
      body: commitBody,
      responses: {
        201: { description: 'The new version', schema: flowVersion },
        409: { description: '`nothing_to_commit`' },
        412: {
          description:
            '`If-Match` names a version of the flow saved over since (`precondition_failed`, `etag` the current one); nothing committed',
        },
        422: { description: '`validation_failed`' },
      },
      async handle(ctx, { params, body }) {
        ctx.status = 201;
        ctx.body = await versions.commit(flowCaller(ctx), params.flow_id, body.message || null, ifMatchOf(ctx));
      },
    }),
    'GET /flows/{flow_id}/versions': route({
      summary: 'Committed versions, newest first; `limit`, `offset`.',
      params: flowPath,
      query: versionPageQuery,
      responses: {
        200: { description: '`items` (version, message, committed_by, committed_at), `total`, `limit`, `offset`', schema: flowVersionList },
      },
      async handle(ctx, { params, query }) {
        ctx.body = await versions.list(flowCaller(ctx), params.flow_id, query);
      },
    }),
    'GET /flows/{flow_id}/versions/{version}': route({
      summary: 'One committed version with its definition.',
      params: flowVersionPath,
      query: noQuery,
      responses: { 200: { description: 'The version', schema: flowVersion } },
      async handle(ctx, { params }) {
        ctx.body = await versions.get(flowCaller(ctx), params.flow_id, versionNumber(params.version));
      },
    }),
    'GET /flows/{flow_id}/versions/compare': route({
      summary:
        'Structural diff `?from=<n|draft>&to=<n|draft>` (default: newest version to draft): steps added, removed, changed (with config keys), edges, inputs, target roles, network policy.',
      params: flowPath,
      query: compareQuery,
      responses: { 200: { description: 'The diff', schema: flowComparison } },
      async handle(ctx, { params, query }) {
        ctx.body = await versions.compare(flowCaller(ctx), params.flow_id, query);
      },
    }),
    'GET /flows/{flow_id}/versioning-info': route({
      summary: 'Newest version, whether the draft differs from it and whether it is committable.',
      params: flowPath,
      query: noQuery,
      responses: { 200: { description: 'The versioning state', schema: versioningInfo } },
      async handle(ctx, { params }) {
        ctx.body = await versions.info(flowCaller(ctx), params.flow_id);
      },
    }),
    'POST /flows/{flow_id}/revert-draft': route({
      summary: `Discard uncommitted edits: the draft becomes the newest version (409 if never committed). ${narrowed} ${ifMatchNote}`,
      params: flowPath,
      noBody: true,
      responses: { 200: TAGGED, 412: STALE },
      async handle(ctx, { params }) {
        answerTagged(ctx, await versions.revertDraft(flowCaller(ctx), params.flow_id, ifMatchOf(ctx)));
      },
    }),
    'POST /flows/{flow_id}/restore/{version}': route({
      summary: `Copy a version into the draft (not a commit). ${narrowed} ${ifMatchNote}`,
      params: flowVersionPath,
      noBody: true,
      responses: { 200: TAGGED, 412: STALE },
      async handle(ctx, { params }) {
        answerTagged(ctx, await versions.restoreVersion(flowCaller(ctx), params.flow_id, versionNumber(params.version), ifMatchOf(ctx)));
      },
    }),
    'GET /flows/{flow_id}/interface': route({
      summary: 'Inputs and target roles of `?version=<n|draft>` (default the draft), with a JSON Schema of run params.',
      params: flowPath,
      query: interfaceQuery,
      responses: { 200: { description: 'The interface', schema: flowInterface } },
      async handle(ctx, { params, query }) {
        ctx.body = await iface.interface(flowCaller(ctx), params.flow_id, query.version ?? 'draft');
      },
    }),
    'GET /flows/{flow_id}/launch-contract': route({
      summary:
        'What a run must supply, from a committed version (`?version=`, default the newest): inputs, target roles with device counts, params JSON Schema, and whether it can be launched.',
      params: flowPath,
      query: launchContractQuery,
      responses: { 200: { description: 'The launch contract', schema: launchContract } },
      async handle(ctx, { params, query }) {
        ctx.body = await iface.launchContract(flowCaller(ctx), params.flow_id, query.version);
      },
    }),
    'POST /flows/{flow_id}/validate': route({
      summary:
        'Check `{definition?}` (default: the stored draft) without saving: `{valid, issues}`, each issue with its JSON path and code.',
      params: flowPath,
      body: validateBody,
      responses: { 200: { description: '`valid`, `issues`', schema: definitionValidation } },
      async handle(ctx, { params, body }) {
        ctx.body = await iface.validate(flowCaller(ctx), params.flow_id, body.definition);
      },
    }),
    'GET /flow-interface/field-types': route({
      summary: 'The input types a flow interface may declare, with the members each takes.',
      query: noQuery,
      responses: { 200: { description: '`items`', schema: fieldTypes } },
      handle(ctx) {
        ctx.body = { items: FIELD_TYPES };
      },
    }),
  };
}
