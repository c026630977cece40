import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { boundedMemo } from '../../../shared/bounded-memo.js';
import { compilePattern, validateParams } from '../../../shared/flows/params.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import { type Problem, problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { isUuid } from '../../../shared/ids.js';
import { unknownReferencesMessage } from '../../../shared/webhooks/trigger-body.js';
import type { AdmissionRepo } from './admission-repo.js';
import type { AdmissionCompanion } from './admission-companion.js';
import {
  AdmissionGateClosed,
  type AdmissionFacts,
  type AdmissionRequest,
  type AdmittedRun,
  type RunAdmission,
  type TriggerSource,
  type VettedRun,
} from './run-admission.js';
import { RUN_CALLBACKS_ACTION } from './run-end-audit.js';
import { runView } from './run-view.js';
import { checkTargets, countTargets } from './targets.js';

/** The action a `run.started` entry names when the trigger path does not say. */
const TRIGGER_ACTIONS: Record<TriggerSource, string> = {
  manual: 'run:trigger',
  schedule: 'schedule:trigger',
  webhook: 'webhook:receive',
  flow: RUN_CALLBACKS_ACTION,
};

/** Patterns come from flow definitions: bounded. */
const PATTERNS_KEPT = 512;

/** How many unknown devices a refusal names; the rest are only counted. */
const MISSING_SHOWN = 100;

export interface AdmissionSettings {
  /** SERVICE_INVENTORY_MAX_RUN_TARGETS. */
  readonly maxTargets: number;
}

/**
 * The one run admission (see `RunAdmission` for the refusals). The flow with its version comes from
 * AdmissionRepo's cache when it can; the run, its `run.started` entry and a companion's rows are one
 * statement that also checks the target devices, so an admitted run costs one round trip, and a refused
 * or failed admission leaves nothing behind. Only a refusal for unknown devices reads them, to name them.
 */
export class RunAdmissionService implements RunAdmission {
  /** Input patterns compiled once each: admissions check the same few flows' inputs again and again. */
  readonly #patterns = boundedMemo(compilePattern, PATTERNS_KEPT);

  constructor(
    private readonly repo: AdmissionRepo,
    private readonly audit: AuditWriter,
    private readonly settings: AdmissionSettings,
  ) {}

  async admit(
    trx: Knex | Knex.Transaction,
    request: AdmissionRequest,
    companion?: (run: AdmissionFacts) => AdmissionCompanion,
  ): Promise<AdmittedRun> {
    const { flow, params, targets, devices } = await this.#check(trx, request);
    const source = request.trigger.source;
    const id = randomUUID();
    const workflowId = `run-${id}`;
    const createdBy = request.createdBy !== undefined ? request.createdBy : (request.actor?.sub ?? request.audit?.subject ?? null);
    const entry = this.audit.entry(request.audit, {
      eventType: 'run.started',
      action: request.action ?? TRIGGER_ACTIONS[source],
      resourceType: 'run',
      resourceId: id,
      outcome: 'success',
      orgId: request.orgId,
      ...(request.actor ? { actor: request.actor } : {}),
      details: {
        trigger_source: source,
        flow_id: flow.id,
        flow_name: flow.name,
        flow_version: flow.version,
        workflow_id: workflowId,
        ...(request.trigger.details ? { trigger: request.trigger.details } : {}),
        ...(source === 'manual' && !flow.manual_runs_enabled ? { forced: true } : {}),
      },
    });
    const written = await this.repo.insert(
      trx,
      {
        id,
        org_id: request.orgId,
        flow_id: flow.id,
        flow_version: flow.version,
        flow_name: flow.name,
        name: [...(request.name?.trim() || flow.name)].slice(0, 255).join(''),
        params,
        targets,
        trigger_source: source,
        trigger_details: { ...request.trigger.details },
        workflow_id: workflowId,
        created_by: createdBy,
      },
      devices,
      entry,
      companion?.({ id, flow_id: flow.id, flow_version: flow.version }),
    );
    if (written === 'gone') throw flowNotFound();
    if (written === 'not_admitted') {
      // Nothing was written: a target device is not live, or the companion's gate stayed shut.
      await this.refuseUnknownDevices(trx, request, targets, devices.ids);
      if (companion) throw new AdmissionGateClosed();
      throw problems.conflict('The run could not be admitted; retry.');
    }
    return {
      id,
      org_id: request.orgId,
      flow_id: flow.id,
      flow_name: flow.name,
      flow_version: flow.version,
      workflow_id: workflowId,
      status: 'queued',
      // Made when asked for: POST /runs answers it, a webhook's envelope does not.
      get run() {
        return runView(written);
      },
    };
  }

  async vet(db: Knex | Knex.Transaction, request: AdmissionRequest): Promise<VettedRun> {
    const { flow, params, targets, devices } = await this.#check(db, request);
    // The hot path leaves the devices to its statement; a check that writes nothing reads them.
    if (devices.ids.length > 0) await this.refuseUnknownDevices(db, request, targets, devices.ids);
    return { flow_id: flow.id, flow_name: flow.name, flow_version: flow.version!, params, targets };
  }

  /** Every refusal but the devices' liveness, which the insert checks itself: the flow, its version, params and targets. */
  async #check(trx: Knex | Knex.Transaction, request: AdmissionRequest) {
    const count = countTargets(request.targets);
    if (count > this.settings.maxTargets) {
      throw problem('too_many_targets', `The run names ${count} targets; at most ${this.settings.maxTargets} are allowed.`, {
        limit: this.settings.maxTargets,
        count,
      });
    }
    const source = request.trigger.source;
    const flow = isUuid(request.flowId) ? await this.repo.flowWithVersion(trx, request.orgId, request.flowId, request.version) : undefined;
    if (!flow) throw flowNotFound();
    if (source === 'manual' && !flow.manual_runs_enabled && !request.forceManual) {
      throw problem('manual_runs_disabled', 'Manual runs of this flow are switched off.', { flow_id: flow.id });
    }
    if (request.version === null && flow.latest_version === 0) {
      throw problem('flow_not_committed', 'The flow has no committed version to run.', { flow_id: flow.id });
    }
    if (flow.version === null || flow.definition_json === null) {
      throw problem('flow_version_not_found', `The flow has no version ${request.version ?? flow.latest_version}.`, {
        flow_id: flow.id,
        version: request.version ?? flow.latest_version,
      });
    }

    const definition = flow.definition_json;
    const params = validateParams(definition.inputs ?? [], request.params, this.#patterns);
    const targets = checkTargets(definition.target_roles ?? [], request.targets);
    const issues = [...(params.ok ? [] : params.issues), ...(targets.ok ? [] : targets.issues)];
    if (!params.ok || !targets.ok) throw problems.validation(issues.map((i) => ({ path: i.path, message: i.message })));

    // Devices are judged only once params and targets are valid; the insert checks them itself.
    const named = Object.values(targets.targets).flat();
    const devices = { orgId: request.orgId, ids: [...new Set(named.filter(isUuid).map((id) => id.toLowerCase()))] };
    if (!named.every(isUuid)) await this.refuseUnknownDevices(trx, request, targets.targets, devices.ids);
    return { flow: { ...flow, version: flow.version }, params: params.params, targets: targets.targets, devices };
  }

  /** Refuses the targets that are not live devices, reading which are (a refusal's path, not the hot one). */
  private async refuseUnknownDevices(
    trx: Knex | Knex.Transaction,
    request: AdmissionRequest,
    targets: Record<string, string[]>,
    uuids: readonly string[],
  ): Promise<void> {
    refuseMissing(targets, await this.repo.liveDevices(trx, request.orgId, uuids), request.trigger.source);
  }
}

function flowNotFound(): Problem {
  return problem('flow_not_found', 'No live flow with this id in the organization or the shared one.');
}

/** 400 naming each target that is not a live device of the organization or the shared one (from `live`), if any. */
function refuseMissing(targets: Record<string, string[]>, live: ReadonlySet<string>, source: TriggerSource): void {
  const missing = Object.entries(targets).flatMap(([role, ids]) =>
    ids.filter((id) => !live.has(id.toLowerCase())).map((id) => ({ role, device_id: id })),
  );
  if (missing.length === 0) return;
  const named = missing
    .slice(0, 10)
    .map((m) => `${m.role}: ${m.device_id}`)
    .join(', ');
  // A webhook's caller named the devices in `related_targets`: the spec's wording for that refusal.
  const message =
    source === 'webhook'
      ? unknownReferencesMessage(missing)
      : `targets name devices not in this organization's inventory: ${named}${missing.length > 10 ? `, and ${missing.length - 10} more` : ''}`;
  throw problem('unknown_device_reference', message, { missing: missing.slice(0, MISSING_SHOWN), missing_count: missing.length });
}
