import type { Readable } from 'node:stream';
import type { AttachmentManifest, ManifestItem } from '../../../shared/api/flow-attachments.js';
import { problems } from '../../../shared/api/problems.js';
import { attachmentIssues, mountedFilesOf, selectMounted } from '../../../shared/flows/attachment-selection.js';
import type { FlowDefinition } from '../../../shared/flows/definition.js';
import { isUuid } from '../../../shared/ids.js';
import type { FlowCommitHook } from '../flows/module.js';
import { fence, isHeldBy, runNotFound, type Holder } from '../run-callbacks/fence.js';
import type { AttachmentBytes } from './attachment-bytes.js';
import { attachmentPath } from './attachment-paths.js';
import type { AttachmentsRepo, PinRow } from './attachments-repo.js';

/** A run's attachments are read while its worker executes it (paused: it may resume and read them again). */
const READABLE_WHILE = ['running', 'paused'] as const;

/** What the workers' routes ask: the manifest, narrowed to a step's `mounted_files`, or one item's bytes. */
export interface ManifestQuery {
  readonly step?: string | undefined;
  readonly path?: string | undefined;
}

/** An entry with where its bytes are, before it is answered: a pin, or a draft's attachment. */
type Located = PinRow;

export type ManifestAnswer =
  | { readonly kind: 'manifest'; readonly manifest: AttachmentManifest }
  | { readonly kind: 'bytes'; readonly item: ManifestItem; readonly open: () => Promise<Readable> };

const flowNotFound = () => problems.resourceNotFound('Flow');

/**
 * Committed versions pin their attachments, and workers read them: the commit hook checks that the
 * definition names only attachments the draft has and records the draft's set as the version's pins (rows
 * pointing to the same blobs: no byte copied); the internal routes answer a draft's set or the set a
 * run's version pinned, as a manifest (path, size, SHA-256, type, URL) or one item's bytes.
 */
export class AttachmentManifests {
  constructor(
    private readonly repo: AttachmentsRepo,
    private readonly bytes: AttachmentBytes,
  ) {}

  /** Run inside every commit (the commit route and git sync), with the flow row locked. */
  readonly pinOnCommit: FlowCommitHook = async ({ flow, versionId, definition }, trx) => {
    const rows = await this.repo.allOf(flow.id, trx);
    const issues = attachmentIssues(
      definition,
      rows.map((row) => row.path),
    );
    // Paths are those of the definition, as the draft's other commit issues give them.
    if (issues.length > 0) throw problems.validation(issues);
    await this.repo.pin(trx, flow.id, versionId);
  };

  async forFlow(flowId: string, query: ManifestQuery): Promise<ManifestAnswer> {
    const flow = isUuid(flowId) ? await this.repo.liveFlow(flowId) : undefined;
    if (!flow) throw flowNotFound();
    const rows = await this.repo.allOf(flow.id);
    const base = { flow_id: flow.id, org_id: flow.org_id, version: 'draft' as const, run_id: null };
    return this.#answer(base, flow.draft_json as FlowDefinition, rows, query, `/internal/flows/${flow.id}/attachments`);
  }

  async forRun(runId: string, holder: Holder, query: ManifestQuery): Promise<ManifestAnswer> {
    if (!isUuid(runId)) throw runNotFound();
    const run = fence(await this.repo.run(runId), (r) => isHeldBy(r, holder), holder, READABLE_WHILE, 'read');
    // A purged flow took its versions and their pins with it.
    const version = run.flow_id ? await this.repo.version(run.flow_id, run.flow_version) : undefined;
    if (!version) throw problems.resourceNotFound('Flow version');
    const rows = await this.repo.pinsOf(version.id);
    const base = { flow_id: run.flow_id!, org_id: run.org_id, version: run.flow_version, run_id: run.id };
    return this.#answer(base, parsed(version.definition_json), rows, query, `/internal/runs/${run.id}/attachments`);
  }

  #answer(
    base: Omit<AttachmentManifest, 'items' | 'step'>,
    definition: FlowDefinition,
    rows: readonly Located[],
    query: ManifestQuery,
    self: string,
  ): ManifestAnswer {
    let selected = rows;
    if (query.step !== undefined) {
      const step = parsed<FlowDefinition>(definition).steps.find((s) => s.id === query.step);
      if (!step) throw problems.validation([{ path: 'step', message: `the flow has no step ${query.step}` }]);
      selected = selectMounted(rows, mountedFilesOf(step.config));
    }
    const item = (row: Located): ManifestItem => ({
      path: row.path,
      size_bytes: Number(row.size_bytes),
      sha256: row.sha256,
      content_type: row.content_type,
      url: `${self}?path=${encodeURIComponent(row.path)}`,
    });
    if (query.path !== undefined) {
      const path = attachmentPath(query.path);
      const row = selected.find((r) => r.path === path);
      if (!row) throw problems.resourceNotFound('Flow attachment');
      return { kind: 'bytes', item: item(row), open: () => this.bytes.open(row) };
    }
    return { kind: 'manifest', manifest: { ...base, step: query.step ?? null, items: selected.map(item) } };
  }
}

/** jsonb comes back parsed from pg; parse it here too should a driver hand back text. */
function parsed<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}
