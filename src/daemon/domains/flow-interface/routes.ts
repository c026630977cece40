import { flowPath, noQuery } from '../../../shared/api/flows.js';
import {
  interfaceOptions,
  interfaceOptionsBody,
  launchInputsBody,
  launchPreview,
  launchValidation,
  optionSources,
} from '../../../shared/api/flow-interface.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import { flowCaller } from '../flows/caller.js';
import type { LaunchFormService } from './launch-form-service.js';

const NO_FLOW = { description: 'No such flow readable here, or no such version (`resource_not_found`)' };
const NOT_COMMITTED = { description: '`flow_not_committed`: no committed version, and the draft was not asked for' };

/** The flow interface's launch-form routes (`flow:view`); docs/flow-interface.md. */
export function launchFormRoutes(service: LaunchFormService): DomainRoutes {
  return {
    'GET /flow-interface/option-sources': route({
      summary:
        "The option sources a launch form may draw an input's (or a target role's) choices from, with their filters and whether this build resolves them.",
      query: noQuery,
      responses: { 200: { description: '`items`', schema: optionSources } },
      handle(ctx) {
        ctx.body = service.sourceList();
      },
    }),
    'POST /flows/{flow_id}/interface/options': route({
      summary:
        "Choices for one input (`input`; source `static`, its own options, unless `source` names another) or one target role (`target_role`; source `devices`), from the organization's and the shared organization's live rows: `q`, `limit`, `offset`, `version`.",
      params: flowPath,
      body: interfaceOptionsBody,
      responses: {
        200: { description: '`items` of `{value, label, description}`, `total`', schema: interfaceOptions },
        400: NOT_COMMITTED,
        404: NO_FLOW,
        422: {
          description: '`validation_failed` (`input`, `target_role`, `source.kind`, `source.filter.<name>`), `option_source_unavailable`',
        },
      },
      async handle(ctx, { params, body }) {
        ctx.body = await service.options(flowCaller(ctx), params.flow_id, body);
      },
    }),
    'POST /flows/{flow_id}/interface/validate': route({
      summary:
        'Check a launch `{params?, targets?, version?}` as run admission would, without starting anything: `{valid, issues}`, every issue with its path, JSON Path and code (devices looked up too).',
      params: flowPath,
      body: launchInputsBody,
      responses: { 200: { description: '`{valid, issues}`', schema: launchValidation }, 400: NOT_COMMITTED, 404: NO_FLOW },
      async handle(ctx, { params, body }) {
        ctx.body = await service.validate(flowCaller(ctx), params.flow_id, body);
      },
    }),
    'POST /flows/{flow_id}/interface/preview-resolve': route({
      summary:
        "How a launch `{params?, targets?, version?}` resolves: each input's value and whether given or defaulted, and every step template naming inputs or targets rendered with them (what only the run knows left pending).",
      params: flowPath,
      body: launchInputsBody,
      responses: { 200: { description: 'The preview', schema: launchPreview }, 400: NOT_COMMITTED, 404: NO_FLOW },
      async handle(ctx, { params, body }) {
        ctx.body = await service.preview(flowCaller(ctx), params.flow_id, body);
      },
    }),
  };
}
