import { diffDefinitions, type DefinitionDiff } from '../../../shared/flows/definition-diff.js';
import { validateDefinition } from '../../../shared/flows/definition-schema.js';
import type { FlowDefinition } from '../../../shared/flows/definition.js';
import { sameJson } from '../../../shared/flows/same-json.js';
import { problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { refuseIfChanged } from '../../http/entity-tag.js';
import type { CommitHooks } from './commit-hooks.js';
import { draftSummary, type FlowAccess, type FlowCaller } from './flow-access.js';
import {
  flowView,
  validation,
  versionSummaryView,
  versionView,
  type FlowVersionSummaryView,
  type FlowVersionView,
  type FlowView,
} from './flow-view.js';
import type { FlowRow, FlowsRepo, FlowsTx } from './flows-repo.js';

/** A side of a comparison: a committed version number, or the draft. */
export type Revision = number | 'draft';

const MANAGE = 'flow:manage';
const COMMIT = 'flow:commit';

const versionNotFound = () => problems.resourceNotFound('Flow version');

/** Committed versions: commit, list, read, compare, and copying a version back into the draft. */
export class VersionsService {
  constructor(
    private readonly repo: FlowsRepo,
    private readonly access: FlowAccess,
    private readonly hooks: CommitHooks,
  ) {}

  /**
   * The draft becomes version N+1. The flow row is locked first, so concurrent commits queue: the
   * second sees the first's version and either commits N+2 (the draft changed in between) or finds
   * nothing to commit. The unique (flow_id, version) index is the backstop.
   */
  /** `ifMatch`: the flow as the committer read it (its `ETag`): a draft saved since is 412, not committed unseen. */
  async commit(caller: FlowCaller, id: string, message: string | null, ifMatch?: string): Promise<FlowVersionView> {
    const orgIds = await this.access.readableOrgIds(caller);
    return this.repo.transaction(async (trx) => {
      const flow = await this.access.lockWritable(trx, orgIds, caller, id);
      refuseIfChanged(ifMatch, () => flowView(flow, caller.org.id), 'flow');
      if (flow.latest_version > 0 && !(await this.access.dirty(trx, flow, flow.draft_json))) {
        throw problem('nothing_to_commit', `The draft is the same as version ${flow.latest_version}.`, {
          latest_version: flow.latest_version,
        });
      }
      const issues = validateDefinition(flow.draft_json);
      // Paths are those of the definition, as the draft's `validation.issues` give them.
      if (issues.length > 0) throw problems.validation(issues);
      const version = flow.latest_version + 1;
      const row = await this.repo.insertVersion(trx, {
        flow_id: flow.id,
        version,
        definition_json: flow.draft_json,
        message,
        committed_by: caller.sub,
      });
      await this.hooks.run({ flow, versionId: row.id, version, definition: flow.draft_json }, trx);
      await this.repo.update(trx, flow.id, { latest_version: version, draft_dirty: false, updated_by: caller.sub });
      await this.access.record(trx, caller, { eventType: 'flow.committed', action: COMMIT, flow, details: { version, message } });
      return versionView(row);
    });
  }

  async list(
    caller: FlowCaller,
    id: string,
    page: { limit: number; offset: number },
  ): Promise<{ items: FlowVersionSummaryView[]; total: number; limit: number; offset: number }> {
    const flow = await this.access.readable(caller, id);
    const { rows, total } = await this.repo.versions(flow.id, page);
    return { items: rows.map(versionSummaryView), total, ...page };
  }

  async get(caller: FlowCaller, id: string, version: number): Promise<FlowVersionView> {
    const flow = await this.access.readable(caller, id);
    const row = await this.repo.version(undefined, flow.id, version);
    if (!row) throw versionNotFound();
    return versionView(row);
  }

  /** `from` defaults to the newest version, `to` to the draft. */
  async compare(
    caller: FlowCaller,
    id: string,
    query: { from?: Revision | undefined; to?: Revision | undefined },
  ): Promise<{ from: Revision; to: Revision } & DefinitionDiff> {
    const flow = await this.access.readable(caller, id);
    if (query.from === undefined && flow.latest_version === 0)
      throw problems.conflict('The flow has no committed version to compare with: give `from`.');
    const from = query.from ?? flow.latest_version;
    const to = query.to ?? 'draft';
    const [a, b] = await Promise.all([this.#definition(flow, from), this.#definition(flow, to)]);
    return { from, to, ...diffDefinitions(a, b) };
  }

  async info(caller: FlowCaller, id: string) {
    const flow = await this.access.readable(caller, id);
    const latest = flow.latest_version > 0 ? await this.repo.version(undefined, flow.id, flow.latest_version) : undefined;
    const draft = validation(flow.draft_json);
    return {
      flow_id: flow.id,
      latest_version: flow.latest_version,
      // Versions are numbered 1..N with none ever removed, so the count is the newest number.
      version_count: flow.latest_version,
      latest: latest ? versionSummaryView(latest) : null,
      draft_dirty: flow.draft_dirty,
      draft_valid: draft.valid,
      committable: draft.valid && (flow.latest_version === 0 || flow.draft_dirty),
      updated_at: new Date(flow.updated_at).toISOString(),
      updated_by: flow.updated_by,
    };
  }

  /** The definition of a revision of a readable flow (used by the interface routes too). */
  async definitionOf(
    caller: FlowCaller,
    id: string,
    revision: Revision | 'latest',
  ): Promise<{ flow: FlowRow; version: number | 'draft' | null; definition: FlowDefinition | undefined }> {
    const flow = await this.access.readable(caller, id);
    if (revision === 'latest') {
      if (flow.latest_version === 0) return { flow, version: null, definition: undefined };
      return { flow, version: flow.latest_version, definition: await this.#definition(flow, flow.latest_version) };
    }
    return { flow, version: revision, definition: await this.#definition(flow, revision) };
  }

  /** The draft becomes the newest version again (discarding uncommitted edits). */
  async revertDraft(caller: FlowCaller, id: string, ifMatch?: string): Promise<FlowView> {
    const orgIds = await this.access.readableOrgIds(caller);
    return this.access.auditingRefusal(caller, MANAGE, id, () =>
      this.repo.transaction(async (trx) => {
        const flow = await this.access.lockWritable(trx, orgIds, caller, id);
        refuseIfChanged(ifMatch, () => flowView(flow, caller.org.id), 'flow');
        if (flow.latest_version === 0) throw problems.conflict('The flow has never been committed: there is no version to revert to.');
        const latest = await this.repo.version(trx, flow.id, flow.latest_version);
        return this.#replaceDraft(trx, caller, flow, latest!.definition_json, { reverted_to: flow.latest_version });
      }),
    );
  }

  /** A version copied into the draft (not a commit: commit afterwards to make it the newest version). */
  async restoreVersion(caller: FlowCaller, id: string, version: number, ifMatch?: string): Promise<FlowView> {
    const orgIds = await this.access.readableOrgIds(caller);
    return this.access.auditingRefusal(caller, MANAGE, id, () =>
      this.repo.transaction(async (trx) => {
        const flow = await this.access.lockWritable(trx, orgIds, caller, id);
        refuseIfChanged(ifMatch, () => flowView(flow, caller.org.id), 'flow');
        const row = await this.repo.version(trx, flow.id, version);
        if (!row) throw versionNotFound();
        return this.#replaceDraft(trx, caller, flow, row.definition_json, { restored_from: version });
      }),
    );
  }

  async #replaceDraft(
    trx: FlowsTx,
    caller: FlowCaller,
    flow: FlowRow,
    definition: FlowDefinition,
    why: Record<string, unknown>,
  ): Promise<FlowView> {
    if (sameJson(definition, flow.draft_json)) return flowView(flow, caller.org.id);
    this.access.refuseRestricted(caller, flow.draft_json, definition);
    const row = await this.repo.update(trx, flow.id, {
      draft_json: definition,
      draft_dirty: await this.access.dirty(trx, flow, definition),
      updated_by: caller.sub,
    });
    await this.access.record(trx, caller, {
      eventType: 'entity.updated',
      action: MANAGE,
      flow: row,
      details: { changes: ['draft'], ...why, draft: draftSummary(definition, validation(definition).valid) },
    });
    return flowView(row, caller.org.id);
  }

  async #definition(flow: FlowRow, revision: Revision): Promise<FlowDefinition> {
    if (revision === 'draft') return flow.draft_json;
    const row = await this.repo.version(undefined, flow.id, revision);
    if (!row) throw versionNotFound();
    return row.definition_json;
  }
}
