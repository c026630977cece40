import type {
  InterfaceOptions,
  InterfaceOptionsBody,
  LaunchInputsBody,
  LaunchPreview,
  LaunchValidation,
  OptionSources,
} from '../../../shared/api/flow-interface.js';
import { problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import type { FlowDefinition } from '../../../shared/flows/definition.js';
import type { OrgAccessRepo } from '../../authz/org-access-repo.js';
import type { FlowCaller } from '../flows/flow-access.js';
import type { FlowsModule } from '../flows/module.js';
import { checkLaunch } from './launch-check.js';
import { previewReferences } from './launch-preview.js';
import type { OptionSourceRegistry } from './option-sources.js';
import type { OptionsRepo } from './options-repo.js';

type Revision = number | 'draft';

function invalid(path: string, message: string) {
  return problems.validation([{ path, message }]);
}

/**
 * What a launch form needs of a flow (`flow:view`): the options of an input or a target role from the
 * registered sources, the launch checked as run admission checks it (every issue, with its JSON path),
 * and the preview of what the steps would get. The definition is the newest committed version unless
 * the request names one (or the draft); the flow is read through the flows' own tenancy.
 */
export class LaunchFormService {
  constructor(
    private readonly flows: FlowsModule['definitions'],
    private readonly access: OrgAccessRepo,
    private readonly repo: OptionsRepo,
    private readonly sources: OptionSourceRegistry,
  ) {}

  sourceList(): OptionSources {
    return {
      items: this.sources.list().map(({ kind, label, description, value, filters, fits, resolve }) => ({
        kind,
        label,
        description,
        value,
        filters: filters.map((f) => ({ ...f })),
        fits: [...fits],
        available: resolve !== undefined,
      })),
    };
  }

  async options(caller: FlowCaller, flowId: string, body: InterfaceOptionsBody): Promise<InterfaceOptions> {
    const { version, definition } = await this.#definition(caller, flowId, body.version);
    const input = body.input === undefined ? undefined : definition.inputs.find((i) => i.name === body.input);
    if (body.input !== undefined && !input) throw invalid('input', 'the flow declares no input of this name');
    if (body.target_role !== undefined && !definition.target_roles.some((r) => r.name === body.target_role))
      throw invalid('target_role', 'the flow declares no target role of this name');
    const kind = body.source?.kind ?? (input ? 'static' : 'devices');
    const source = this.sources.get(kind);
    if (!source) throw invalid('source.kind', 'no option source of this kind (GET /flow-interface/option-sources lists them)');
    const fit = input ? input.type : 'target_role';
    if (!source.fits.includes(fit))
      throw invalid('source.kind', `the ${kind} source does not feed a ${fit === 'target_role' ? 'target role' : `${fit} input`}`);
    const filter = body.source?.filter ?? {};
    for (const name of Object.keys(filter)) {
      if (!source.filters.some((f) => f.name === name)) throw invalid(`source.filter.${name}`, `the ${kind} source has no such filter`);
    }
    if (!source.resolve) throw problem('option_source_unavailable', `The ${kind} option source is not available in this build.`, { kind });
    const orgIds = await this.access.readableOrgIds(caller.org.id);
    const { rows, total } = await source.resolve({
      orgIds,
      input,
      filter,
      q: body.q?.trim() || undefined,
      limit: body.limit,
      offset: body.offset,
    });
    return { flow_id: flowId, version, source: kind, items: rows, total, limit: body.limit, offset: body.offset };
  }

  async validate(caller: FlowCaller, flowId: string, body: LaunchInputsBody): Promise<LaunchValidation> {
    const { version, definition } = await this.#definition(caller, flowId, body.version);
    const checked = await checkLaunch(this.repo, await this.access.readableOrgIds(caller.org.id), definition, body.params, body.targets);
    return { flow_id: flowId, version, valid: checked.issues.length === 0, issues: checked.issues };
  }

  async preview(caller: FlowCaller, flowId: string, body: LaunchInputsBody): Promise<LaunchPreview> {
    const { version, definition } = await this.#definition(caller, flowId, body.version);
    const checked = await checkLaunch(this.repo, await this.access.readableOrgIds(caller.org.id), definition, body.params, body.targets);
    const given = typeof body.params === 'object' && body.params !== null ? (body.params as Record<string, unknown>) : {};
    const inputs = definition.inputs.map((input) => {
      const origin = Object.hasOwn(checked.params, input.name)
        ? Object.hasOwn(given, input.name) && given[input.name] !== null
          ? 'given'
          : 'default'
        : 'absent';
      return { name: input.name, type: input.type, origin, value: checked.params[input.name] ?? null } as const;
    });
    return {
      flow_id: flowId,
      version,
      valid: checked.issues.length === 0,
      issues: checked.issues,
      params: checked.params,
      inputs,
      targets: checked.targets,
      references: previewReferences(definition, checked.params, checked.targets),
    };
  }

  async #definition(
    caller: FlowCaller,
    flowId: string,
    asked: Revision | undefined,
  ): Promise<{ version: Revision; definition: FlowDefinition }> {
    const { version, definition } = await this.flows.definitionOf(caller, flowId, asked ?? 'latest');
    if (!definition || version === null)
      throw problem('flow_not_committed', 'The flow has no committed version: name `version: "draft"` to use the draft.');
    return { version, definition };
  }
}
