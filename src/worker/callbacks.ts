import type { z } from 'zod';
import type { createApprovalBody } from '../shared/api/approvals.js';
import {
  RUN_ATTEMPT_HEADER,
  WORKER_ID_HEADER,
  type childRunBody,
  type createStepRunBody,
  type patchInternalRunBody,
  type patchStepRunBody,
  type runOutputs,
  type workerEvent,
} from '../shared/api/run-callbacks.js';
import type { Readable } from 'node:stream';
import type { Artifact } from '../shared/api/artifacts.js';
import type { AttachmentManifest } from '../shared/api/flow-attachments.js';
import type { InternalDestination } from '../shared/api/notifications.js';
import type { InternalVariables } from '../shared/api/variables.js';
import { DaemonAnswerError, type InternalHttp } from './http-client.js';

export type WorkerEvent = z.input<typeof workerEvent>;
export type CreateStepRun = z.input<typeof createStepRunBody>;
export type PatchStepRun = z.input<typeof patchStepRunBody>;
export type PatchRun = z.input<typeof patchInternalRunBody>;
export type ChildRunRequest = z.input<typeof childRunBody>;
export type RunOutputs = z.infer<typeof runOutputs>;
export type ApprovalRequest = z.input<typeof createApprovalBody>;
export type StoredArtifact = Artifact;

/** An artifact's name (a relative path, unique in the run), the step that made it, and its media type. */
export interface ArtifactMeta {
  readonly name: string;
  readonly stepId?: string;
  /** Default application/octet-stream. */
  readonly contentType?: string;
}

/**
 * What executing one attempt of one run says to the daemon. The HTTP implementation below fences every
 * mutating call with the worker and attempt; a test of the executor hands in its own.
 */
export interface RunCallbacks {
  createStepRun(body: CreateStepRun): Promise<{ id: string }>;
  patchStepRun(stepRunId: string, body: PatchStepRun): Promise<void>;
  postEvents(events: readonly WorkerEvent[]): Promise<void>;
  putRunVars(runVars: Record<string, unknown>): Promise<void>;
  finishRun(body: PatchRun): Promise<void>;
  /** `flow.run`: a child run, admitted as the parent's (fenced with the parent's headers). */
  startChildRun(body: ChildRunRequest): Promise<{ id: string }>;
  childOutputs(childRunId: string, signal?: AbortSignal): Promise<RunOutputs>;
  cancelChildRun(childRunId: string, reason: string): Promise<void>;
  /**
   * A step's approval gate: the daemon records the approval, moves the run to `awaiting_approval` and
   * ends this attempt's lease. A retry finds the approval the first request made (200 with it).
   */
  requestApproval(body: ApprovalRequest): Promise<{ id: string }>;

  /** Keeps a file of the run: a stream is sent as it is read (not retried), a buffer whole (retried). */
  uploadArtifact(data: Readable | Buffer, meta: ArtifactMeta): Promise<StoredArtifact>;

  /**
   * `flow.notify`: a destination of the run's organization with its secret references resolved there
   * (`GET /internal/notification-destinations/{id}?run_id=…`); 404 `resource_not_found` for none.
   */
  notificationDestination(destinationId: string): Promise<InternalDestination>;

  /**
   * The run's variables (`GET /internal/variables`), for `{{ variables.<name> }}`; asked only by a run whose
   * steps name one. Absent in a test's callbacks that have none to give.
   */
  runVariables?(): Promise<InternalVariables>;

  /**
   * The attachments the run's committed version pinned (`GET /internal/runs/{id}/attachments`), for
   * `{{ attachments.… }}`; asked only by a run whose steps name them.
   */
  runAttachments?(): Promise<AttachmentManifest>;
}

/** 409 `run_not_held`: the run is not this worker's attempt any more; stop working on it at once. */
export function isRunNotHeld(error: unknown): boolean {
  return error instanceof DaemonAnswerError && error.status === 409 && error.code === 'run_not_held';
}

/** 409 `invalid_run_state`: the run moved (a user cancelled it) between our last heartbeat and this call. */
export function isInvalidRunState(error: unknown): boolean {
  return error instanceof DaemonAnswerError && error.status === 409 && error.code === 'invalid_run_state';
}

/** The headers that fence a worker's mutating call: its id and the attempt of the run it holds. */
export function fenceHeaders(workerId: string, attempt: number): Readonly<Record<string, string>> {
  return { [WORKER_ID_HEADER]: workerId, [RUN_ATTEMPT_HEADER]: String(attempt) };
}

export class HttpRunCallbacks implements RunCallbacks {
  readonly #fence: Readonly<Record<string, string>>;

  constructor(
    private readonly http: InternalHttp,
    private readonly runId: string,
    workerId: string,
    attempt: number,
  ) {
    this.#fence = fenceHeaders(workerId, attempt);
  }

  async createStepRun(body: CreateStepRun): Promise<{ id: string }> {
    return idOf(await this.#mutate('POST', `/internal/runs/${this.runId}/step-runs`, body));
  }

  async patchStepRun(stepRunId: string, body: PatchStepRun): Promise<void> {
    await landed(
      this.#mutate('PATCH', `/internal/step-runs/${encodeURIComponent(stepRunId)}`, body),
      'invalid_step_run_state',
      body.status,
    );
  }

  async postEvents(events: readonly WorkerEvent[]): Promise<void> {
    await this.#mutate('POST', `/internal/runs/${this.runId}/events`, { events });
  }

  async putRunVars(runVars: Record<string, unknown>): Promise<void> {
    await this.#mutate('PUT', `/internal/runs/${this.runId}/run-vars`, { run_vars: runVars });
  }

  async finishRun(body: PatchRun): Promise<void> {
    await landed(this.#mutate('PATCH', `/internal/runs/${this.runId}`, body), 'invalid_run_state', body.status);
  }

  async startChildRun(body: ChildRunRequest): Promise<{ id: string }> {
    return idOf(await this.#mutate('POST', '/internal/runs', body));
  }

  async childOutputs(childRunId: string, signal?: AbortSignal): Promise<RunOutputs> {
    return this.http.call<RunOutputs>('GET', `/internal/runs/${encodeURIComponent(childRunId)}/outputs`, {
      headers: this.#fence,
      ...(signal ? { signal } : {}),
    });
  }

  async cancelChildRun(childRunId: string, reason: string): Promise<void> {
    await this.#mutate('POST', `/internal/runs/${encodeURIComponent(childRunId)}/cancel`, { reason });
  }

  async requestApproval(body: ApprovalRequest): Promise<{ id: string }> {
    return idOf(await this.#mutate('POST', `/internal/runs/${this.runId}/approvals`, body));
  }

  async uploadArtifact(data: Readable | Buffer, meta: ArtifactMeta): Promise<StoredArtifact> {
    const query = new URLSearchParams({ name: meta.name, ...(meta.stepId ? { step_id: meta.stepId } : {}) });
    return this.http.call<StoredArtifact>('POST', `/internal/runs/${this.runId}/artifacts/upload?${query.toString()}`, {
      raw: { data, contentType: meta.contentType ?? 'application/octet-stream' },
      headers: this.#fence,
    });
  }

  async notificationDestination(destinationId: string): Promise<InternalDestination> {
    const query = new URLSearchParams({ run_id: this.runId });
    return this.http.call<InternalDestination>(
      'GET',
      `/internal/notification-destinations/${encodeURIComponent(destinationId)}?${query.toString()}`,
    );
  }

  async runVariables(): Promise<InternalVariables> {
    return this.http.call<InternalVariables>('GET', `/internal/variables?run_id=${encodeURIComponent(this.runId)}`, {
      headers: this.#fence,
    });
  }

  async runAttachments(): Promise<AttachmentManifest> {
    return this.http.call<AttachmentManifest>('GET', `/internal/runs/${this.runId}/attachments`, { headers: this.#fence });
  }

  #mutate(method: string, path: string, body: unknown): Promise<unknown> {
    return this.http.call(method, path, { body, headers: this.#fence });
  }
}

function idOf(answer: unknown): { id: string } {
  const id = typeof answer === 'object' && answer !== null ? (answer as { id?: unknown }).id : undefined;
  if (typeof id !== 'string') throw new Error('the daemon answered without an id');
  return { id };
}

/**
 * A PATCH retried after its answer was lost finds the move already made: the daemon refuses the repeat
 * with 409 and its `current_status`. When that status is the one asked for, the first attempt landed.
 */
async function landed(call: Promise<unknown>, code: string, status: string): Promise<void> {
  try {
    await call;
  } catch (error) {
    const already =
      error instanceof DaemonAnswerError &&
      error.status === 409 &&
      error.code === code &&
      (error.body as { current_status?: unknown } | undefined)?.current_status === status;
    if (!already) throw error;
  }
}
