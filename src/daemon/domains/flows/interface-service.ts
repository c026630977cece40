import type { FlowDefinition } from '../../../shared/flows/definition.js';
import { parseDefinitionShape } from '../../../shared/flows/definition-schema.js';
import { paramsJsonSchema, targetRequirements } from '../../../shared/flows/launch-contract.js';
import type { FlowAccess, FlowCaller } from './flow-access.js';
import { validation, type Validation } from './flow-view.js';
import type { Revision, VersionsService } from './versions-service.js';

function interfaceOf(definition: FlowDefinition) {
  return { inputs: definition.inputs, target_roles: definition.target_roles, params_schema: paramsJsonSchema(definition.inputs) };
}

/** What a flow asks of whoever launches it, and dry-run validation of a definition. */
export class InterfaceService {
  constructor(
    private readonly access: FlowAccess,
    private readonly versions: VersionsService,
  ) {}

  /** The interface of a revision, the draft by default (what the editor shows). */
  async interface(caller: FlowCaller, id: string, revision: Revision) {
    const { flow, version, definition } = await this.versions.definitionOf(caller, id, revision);
    return { flow_id: flow.id, version, ...interfaceOf(definition!) };
  }

  /**
   * What a run of the flow must supply, from a committed version (the newest by default): runs only
   * ever execute committed versions, so a never-committed flow is reported as not launchable.
   */
  async launchContract(caller: FlowCaller, id: string, version: number | undefined) {
    const { flow, version: chosen, definition } = await this.versions.definitionOf(caller, id, version ?? 'latest');
    const reasons = [...(definition ? [] : ['never_committed']), ...(flow.manual_runs_enabled ? [] : ['manual_runs_disabled'])];
    return {
      flow_id: flow.id,
      name: flow.name,
      version: chosen,
      launchable: definition !== undefined,
      manual_runs_enabled: flow.manual_runs_enabled,
      reasons,
      ...(definition
        ? {
            inputs: definition.inputs,
            target_roles: targetRequirements(definition.target_roles),
            params_schema: paramsJsonSchema(definition.inputs),
          }
        : { inputs: [], target_roles: [], params_schema: null }),
    };
  }

  /** Every issue of `definition` (or of the stored draft when none is sent), shape problems included, without saving; paths are the definition's. */
  async validate(caller: FlowCaller, id: string, definition: unknown): Promise<Validation> {
    const flow = await this.access.readable(caller, id);
    if (definition === undefined) return validation(flow.draft_json);
    const shape = parseDefinitionShape(definition);
    if (!shape.ok) return { valid: false, issues: shape.issues };
    return validation(shape.definition);
  }
}
