import type { InternalDestination } from '../../src/shared/api/notifications.js';
import type { Assignment } from '../../src/shared/api/workers.js';
import { DaemonAnswerError } from '../../src/worker/http-client.js';
import type {
  ApprovalRequest,
  ArtifactMeta,
  ChildRunRequest,
  CreateStepRun,
  PatchRun,
  PatchStepRun,
  RunCallbacks,
  RunOutputs,
  StoredArtifact,
  WorkerEvent,
} from '../../src/worker/callbacks.js';

/** One call the executor made, in order. */
export type RecordedCall =
  | { kind: 'createStepRun'; body: CreateStepRun; id: string }
  | { kind: 'patchStepRun'; id: string; body: PatchStepRun }
  | { kind: 'postEvents'; events: readonly WorkerEvent[] }
  | { kind: 'putRunVars'; runVars: Record<string, unknown> }
  | { kind: 'finishRun'; body: PatchRun }
  | { kind: 'startChildRun'; body: ChildRunRequest; id: string }
  | { kind: 'childOutputs'; id: string }
  | { kind: 'cancelChildRun'; id: string }
  | { kind: 'requestApproval'; body: ApprovalRequest; id: string }
  | { kind: 'uploadArtifact'; meta: ArtifactMeta }
  | { kind: 'notificationDestination'; id: string };

/** RunCallbacks that record every call and answer as a daemon would; child runs answer from `children`. */
export class RecordingCallbacks implements RunCallbacks {
  readonly calls: RecordedCall[] = [];
  readonly children = new Map<string, RunOutputs>();
  /** What `GET /internal/notification-destinations/{id}` answers; another id is 404 `resource_not_found`. */
  readonly destinations = new Map<string, InternalDestination>();
  #next = 0;
  /** Called on each step run's creation: a test may cancel or pause the run at that moment. */
  onStepRun?: (body: CreateStepRun) => void;

  async createStepRun(body: CreateStepRun): Promise<{ id: string }> {
    const id = `sr-${++this.#next}`;
    this.calls.push({ kind: 'createStepRun', body, id });
    this.onStepRun?.(body);
    return { id };
  }
  async patchStepRun(id: string, body: PatchStepRun): Promise<void> {
    this.calls.push({ kind: 'patchStepRun', id, body });
  }
  async postEvents(events: readonly WorkerEvent[]): Promise<void> {
    this.calls.push({ kind: 'postEvents', events });
  }
  async putRunVars(runVars: Record<string, unknown>): Promise<void> {
    this.calls.push({ kind: 'putRunVars', runVars });
  }
  async finishRun(body: PatchRun): Promise<void> {
    this.calls.push({ kind: 'finishRun', body });
  }
  async startChildRun(body: ChildRunRequest): Promise<{ id: string }> {
    const id = `child-${++this.#next}`;
    this.calls.push({ kind: 'startChildRun', body, id });
    this.children.set(id, { run_id: id, status: 'running', outputs: {}, error: null });
    return { id };
  }
  async childOutputs(id: string): Promise<RunOutputs> {
    this.calls.push({ kind: 'childOutputs', id });
    return this.children.get(id)!;
  }
  async cancelChildRun(id: string): Promise<void> {
    this.calls.push({ kind: 'cancelChildRun', id });
  }
  async requestApproval(body: ApprovalRequest): Promise<{ id: string }> {
    const id = `approval-${++this.#next}`;
    this.calls.push({ kind: 'requestApproval', body, id });
    return { id };
  }

  async uploadArtifact(_data: unknown, meta: ArtifactMeta): Promise<StoredArtifact> {
    this.calls.push({ kind: 'uploadArtifact', meta });
    const at = new Date(0).toISOString();
    return {
      id: `a-${++this.#next}`,
      run_id: 'r',
      name: meta.name,
      step_id: meta.stepId ?? null,
      content_type: 'application/octet-stream',
      size_bytes: 0,
      sha256: '',
      attempt: 1,
      created_at: at,
    };
  }

  async notificationDestination(id: string): Promise<InternalDestination> {
    this.calls.push({ kind: 'notificationDestination', id });
    const found = this.destinations.get(id);
    if (!found) throw new DaemonAnswerError('GET', `/internal/notification-destinations/${id}`, 404, 'resource_not_found', {});
    return found;
  }

  of<K extends RecordedCall['kind']>(kind: K): Extract<RecordedCall, { kind: K }>[] {
    return this.calls.filter((call): call is Extract<RecordedCall, { kind: K }> => call.kind === kind);
  }

  events(): WorkerEvent[] {
    return this.of('postEvents').flatMap((call) => [...call.events]);
  }
}

export function assignmentOf(definition: Record<string, unknown>, extra: Partial<Assignment> = {}): Assignment {
  return {
    run_id: '00000000-0000-4000-8000-000000000001',
    attempt: 1,
    workflow_id: 'run-00000000-0000-4000-8000-000000000001',
    org_id: '00000000-0000-4000-8000-0000000000aa',
    flow_id: null,
    flow_version: 1,
    flow_name: 'test flow',
    name: 'test run',
    definition,
    params: {},
    targets: {},
    run_vars: {},
    status: 'running',
    lease_expires_at: new Date(Date.now() + 30_000).toISOString(),
    ...extra,
  };
}
