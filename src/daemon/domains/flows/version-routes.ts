import { FIELD_TYPES } from '../../../shared/flows/field-types.js';
import { problems } from '../../../shared/api/problems.js';
import type { AppContext, DomainRoutes } from '../../http/types.js';
import { validate } from '../../http/validate.js';
import { flowCaller, flowId } from './caller.js';
import type { InterfaceService } from './interface-service.js';
import {
  commitBody,
  compareQuery,
  interfaceQuery,
  launchContractQuery,
  noQuery,
  pageQuery,
  parseVersion,
  schema,
  validateBody,
} from './request-schemas.js';
import type { VersionsService } from './versions-service.js';

function versionParam(ctx: AppContext): number {
  const version = parseVersion(ctx.state.params.version);
  if (version === undefined) throw problems.resourceNotFound('Flow version');
  return version;
}

const narrowed = 'Host-access options and egress widening need the platform admin role (403 `restricted_option`).';

/** Committed versions (`flow:commit`, `flow:manage`, `flow:view`) and what a flow asks of a launch. */
export function versionRoutes(versions: VersionsService, iface: InterfaceService): DomainRoutes {
  return {
    'POST /flows/{flow_id}/commit': {
      docs: {
        summary:
          'The draft becomes version N+1 `{message?}`; refused when the draft is invalid (422, every issue with its path) or unchanged since the newest version (409 `nothing_to_commit`).',
        requestSchema: schema(commitBody),
        responses: {
          201: { description: 'The new version' },
          409: { description: '`nothing_to_commit`' },
          422: { description: '`validation_failed`' },
        },
      },
      async handle(ctx) {
        const input = validate(commitBody, ctx.state.body ?? {});
        ctx.status = 201;
        ctx.body = await versions.commit(flowCaller(ctx), flowId(ctx), input.message || null);
      },
    },
    'GET /flows/{flow_id}/versions': {
      docs: {
        summary: 'Committed versions, newest first; `limit`, `offset`.',
        responses: { 200: { description: '`items` (version, message, committed_by, committed_at), `total`, `limit`, `offset`' } },
      },
      async handle(ctx) {
        ctx.body = await versions.list(flowCaller(ctx), flowId(ctx), validate(pageQuery, ctx.query));
      },
    },
    'GET /flows/{flow_id}/versions/{version}': {
      docs: { summary: 'One committed version with its definition.', responses: { 200: { description: 'The version' } } },
      async handle(ctx) {
        validate(noQuery, ctx.query);
        ctx.body = await versions.get(flowCaller(ctx), flowId(ctx), versionParam(ctx));
      },
    },
    'GET /flows/{flow_id}/versions/compare': {
      docs: {
        summary:
          'Structural diff `?from=<n|draft>&to=<n|draft>` (default: newest version to draft): steps added, removed, changed (with config keys), edges, inputs, target roles, network policy.',
        responses: { 200: { description: 'The diff' } },
      },
      async handle(ctx) {
        ctx.body = await versions.compare(flowCaller(ctx), flowId(ctx), validate(compareQuery, ctx.query));
      },
    },
    'GET /flows/{flow_id}/versioning-info': {
      docs: {
        summary: 'Newest version, whether the draft differs from it and whether it is committable.',
        responses: { 200: { description: 'The versioning state' } },
      },
      async handle(ctx) {
        validate(noQuery, ctx.query);
        ctx.body = await versions.info(flowCaller(ctx), flowId(ctx));
      },
    },
    'POST /flows/{flow_id}/revert-draft': {
      docs: {
        summary: `Discard uncommitted edits: the draft becomes the newest version (409 if never committed). ${narrowed}`,
        responses: { 200: { description: 'The flow' } },
      },
      async handle(ctx) {
        ctx.body = await versions.revertDraft(flowCaller(ctx), flowId(ctx));
      },
    },
    'POST /flows/{flow_id}/restore/{version}': {
      docs: { summary: `Copy a version into the draft (not a commit). ${narrowed}`, responses: { 200: { description: 'The flow' } } },
      async handle(ctx) {
        ctx.body = await versions.restoreVersion(flowCaller(ctx), flowId(ctx), versionParam(ctx));
      },
    },
    'GET /flows/{flow_id}/interface': {
      docs: {
        summary: 'Inputs and target roles of `?version=<n|draft>` (default the draft), with a JSON Schema of run params.',
        responses: { 200: { description: 'The interface' } },
      },
      async handle(ctx) {
        const query = validate(interfaceQuery, ctx.query);
        ctx.body = await iface.interface(flowCaller(ctx), flowId(ctx), query.version ?? 'draft');
      },
    },
    'GET /flows/{flow_id}/launch-contract': {
      docs: {
        summary:
          'What a run must supply, from a committed version (`?version=`, default the newest): inputs, target roles with device counts, params JSON Schema, and whether it can be launched.',
        responses: { 200: { description: 'The launch contract' } },
      },
      async handle(ctx) {
        const query = validate(launchContractQuery, ctx.query);
        ctx.body = await iface.launchContract(flowCaller(ctx), flowId(ctx), query.version);
      },
    },
    'POST /flows/{flow_id}/validate': {
      docs: {
        summary:
          'Check `{definition?}` (default: the stored draft) without saving: `{valid, issues}`, each issue with its JSON path and code.',
        requestSchema: schema(validateBody),
        responses: { 200: { description: '`valid`, `issues`' } },
      },
      async handle(ctx) {
        const input = validate(validateBody, ctx.state.body ?? {});
        ctx.body = await iface.validate(flowCaller(ctx), flowId(ctx), input.definition);
      },
    },
    'GET /flow-interface/field-types': {
      docs: {
        summary: 'The input types a flow interface may declare, with the members each takes.',
        responses: { 200: { description: '`items`' } },
      },
      handle(ctx) {
        validate(noQuery, ctx.query);
        ctx.body = { items: FIELD_TYPES };
      },
    },
  };
}
