import type { FlowDefinition } from '../../../shared/flows/definition.js';
import { validateDefinition } from '../../../shared/flows/definition-schema.js';
import { sameJson } from '../../../shared/flows/same-json.js';
import { problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import type { CommitHooks } from './commit-hooks.js';
import { draftSummary, type FlowAccess, type FlowCaller } from './flow-access.js';
import { validation } from './flow-view.js';
import type { FlowRow, FlowsRepo, FlowsTx } from './flows-repo.js';

export type PullOutcome = 'updated' | 'committed' | 'unchanged';

export interface PullWrite {
  readonly definition: FlowDefinition;
  /** `draft`: the definition becomes the draft; `version`: a new committed version (and the draft). */
  readonly mode: 'draft' | 'version';
  readonly force: boolean;
  /** What the last sync left in step with git: a draft equal to it holds no edits of its own. */
  readonly baseline: FlowDefinition | null;
  /** The commit message of a version, and what the audit entry says about the source. */
  readonly message: string;
  readonly source: Record<string, unknown>;
  /** Writes of the caller's that commit with the flow's (the link's sync state, the history row). */
  within(trx: FlowsTx, result: { outcome: PullOutcome; version: number | null; flow: FlowRow }): Promise<void>;
}

const MANAGE = 'flow:manage';
const COMMIT = 'flow:commit';

function emptyDraft(definition: FlowDefinition): boolean {
  return (
    definition.steps.length === 0 && definition.edges.length === 0 && definition.inputs.length === 0 && definition.target_roles.length === 0
  );
}

/**
 * What git sync may do to flows, through the flows domain's own access rules, narrowing, locking and
 * audit: read a flow, lock one of the caller's for a write of the caller's, and write a pulled
 * definition into the draft or as a new committed version.
 */
export class FlowGitPort {
  constructor(
    private readonly repo: FlowsRepo,
    private readonly access: FlowAccess,
    private readonly hooks: CommitHooks,
  ) {}

  readable(caller: FlowCaller, id: string): Promise<FlowRow> {
    return this.access.readable(caller, id);
  }

  async version(flow: FlowRow, version: number): Promise<FlowDefinition | undefined> {
    return (await this.repo.version(undefined, flow.id, version))?.definition_json;
  }

  /** Runs `work` with the caller's own (writable) flow locked, in one transaction. */
  async withWritable<T>(caller: FlowCaller, id: string, work: (trx: FlowsTx, flow: FlowRow) => Promise<T>): Promise<T> {
    const orgIds = await this.access.readableOrgIds(caller);
    return this.repo.transaction(async (trx) => work(trx, await this.access.lockWritable(trx, orgIds, caller, id)));
  }

  /**
   * A pulled definition into the flow. A draft with edits of its own (differing from the newest version,
   * from the last sync and from what is pulled, and not empty) is kept unless `force`: 409 `draft_dirty`.
   */
  async pull(caller: FlowCaller, id: string, write: PullWrite): Promise<{ outcome: PullOutcome; version: number | null; flow: FlowRow }> {
    const orgIds = await this.access.readableOrgIds(caller);
    return this.access.auditingRefusal(caller, MANAGE, id, () =>
      this.repo.transaction(async (trx) => {
        const flow = await this.access.lockWritable(trx, orgIds, caller, id);
        const draft = flow.draft_json;
        const kept =
          flow.draft_dirty &&
          !emptyDraft(draft) &&
          !sameJson(draft, write.definition) &&
          !(write.baseline && sameJson(draft, write.baseline));
        if (kept && !write.force)
          throw problem('draft_dirty', 'The draft has changes that are not committed nor from git: pull with force to overwrite them.');
        this.access.refuseRestricted(caller, draft, write.definition);
        const result =
          write.mode === 'version' ? await this.#commit(trx, caller, flow, write) : await this.#draft(trx, caller, flow, write);
        await write.within(trx, result);
        return result;
      }),
    );
  }

  async #draft(trx: FlowsTx, caller: FlowCaller, flow: FlowRow, write: PullWrite) {
    if (sameJson(flow.draft_json, write.definition)) return { outcome: 'unchanged' as const, version: null, flow };
    const row = await this.repo.update(trx, flow.id, {
      draft_json: write.definition,
      draft_dirty: await this.access.dirty(trx, flow, write.definition),
      updated_by: caller.sub,
    });
    await this.access.record(trx, caller, {
      eventType: 'entity.updated',
      action: MANAGE,
      flow: row,
      details: { changes: ['draft'], git: write.source, draft: draftSummary(write.definition, validation(write.definition).valid) },
    });
    return { outcome: 'updated' as const, version: null, flow: row };
  }

  async #commit(trx: FlowsTx, caller: FlowCaller, flow: FlowRow, write: PullWrite) {
    const issues = validateDefinition(write.definition);
    if (issues.length > 0) throw problems.validation(issues);
    const latest = flow.latest_version > 0 ? await this.repo.version(trx, flow.id, flow.latest_version) : undefined;
    if (latest && sameJson(latest.definition_json, write.definition)) {
      if (sameJson(flow.draft_json, write.definition)) return { outcome: 'unchanged' as const, version: flow.latest_version, flow };
      const row = await this.repo.update(trx, flow.id, { draft_json: write.definition, draft_dirty: false, updated_by: caller.sub });
      await this.access.record(trx, caller, {
        eventType: 'entity.updated',
        action: MANAGE,
        flow: row,
        details: { changes: ['draft'], git: write.source },
      });
      return { outcome: 'updated' as const, version: flow.latest_version, flow: row };
    }
    const version = flow.latest_version + 1;
    const inserted = await this.repo.insertVersion(trx, {
      flow_id: flow.id,
      version,
      definition_json: write.definition,
      message: write.message,
      committed_by: caller.sub,
    });
    await this.hooks.run({ flow, versionId: inserted.id, version, definition: write.definition }, trx);
    const row = await this.repo.update(trx, flow.id, {
      draft_json: write.definition,
      latest_version: version,
      draft_dirty: false,
      updated_by: caller.sub,
    });
    await this.access.record(trx, caller, {
      eventType: 'flow.committed',
      action: COMMIT,
      flow,
      details: { version, message: write.message, git: write.source },
    });
    return { outcome: 'committed' as const, version, flow: row };
  }
}
