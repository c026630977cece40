import type { InternalDestination } from '../../shared/api/notifications.js';
import type { AttemptResult } from '../../shared/notifications/attempt-result.js';
import type { NotificationPayload } from '../../shared/notifications/message.js';
import { isRunNotHeld } from '../callbacks.js';
import { DaemonAnswerError } from '../http-client.js';
import { abortableDelay } from '../retry.js';
import { StepFailure, type StepContext, type StepResult } from './types.js';

/** Sends a transient failure gets within the step (the step is the retry unit beyond that: a rerun sends the same key). */
const SEND_ATTEMPTS = 3;
const FIRST_RETRY_MS = 1_000;

/**
 * `flow.notify`: sends the step's `title` and `message` (rendered like any config; empty takes the shared
 * default words) to one destination of the run's organization. The worker reads the destination with its
 * secrets resolved (`GET /internal/notification-destinations/{id}?run_id=…`) and sends itself through the
 * delivery the daemon's outbox sender uses, behind the same outbound guard: a receiver sees the same
 * body, signature and `X-Idempotency-Key`. The key is the run's and the step's, so an attempt that runs
 * the step again (its worker lost) sends a repeat the receiver can drop. A transient failure is tried
 * again twice; not delivered fails the step with `notification_not_delivered` and the receiver's answer.
 */
export async function runFlowNotify(context: StepContext): Promise<StepResult> {
  const { run, step, config, signal, emit, notifications } = context;
  const destinationId = typeof config.destination_id === 'string' ? config.destination_id.trim() : '';
  if (destinationId === '') throw new StepFailure('invalid_config', 'destination_id is required', { field: 'destination_id' });
  const destination = await readDestination(context, destinationId);
  if (!destination.enabled) {
    throw new StepFailure('notification_destination_disabled', `the destination ${destination.name} is disabled`, {
      destination_id: destination.id,
    });
  }

  const key = `flow-notify.${run.run_id}.${step.id}`;
  const payload: NotificationPayload = {
    event: 'flow.notify',
    occurred_at: new Date().toISOString(),
    org_id: run.org_id,
    run: {
      id: run.run_id,
      name: run.name,
      flow_name: run.flow_name,
      workflow_id: run.workflow_id,
      attempt: run.attempt,
      status: 'running',
    },
    step_id: step.id,
    ...words(config),
  };
  let result: AttemptResult | undefined;
  let attempts = 0;
  while (attempts < SEND_ATTEMPTS) {
    if (attempts > 0) await abortableDelay(FIRST_RETRY_MS * 2 ** (attempts - 1), signal);
    attempts += 1;
    result = await notifications.send(destination, payload, key);
    if (result.outcome !== 'transient') break;
    emit('log', { level: 'warn', message: `notification attempt ${attempts} failed (${result.reason ?? 'unknown'})` });
  }
  const outcome = { destination_id: destination.id, kind: destination.kind, status_code: result!.statusCode, attempts };
  if (result!.outcome === 'delivered') {
    return { outputs: { ...outcome, delivered: true, idempotency_key: key }, summary: `sent to ${destination.name}` };
  }
  throw new StepFailure('notification_not_delivered', `the notification to ${destination.name} was not delivered`, {
    ...outcome,
    outcome: result!.outcome,
    reason: result!.reason,
  });
}

/** Only the words the step gives: an empty one leaves the shared default (describe(), src/shared/notifications/message.ts). */
function words(config: Readonly<Record<string, unknown>>): Pick<NotificationPayload, 'title' | 'message'> {
  const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value : undefined);
  const title = text(config.title);
  const message = text(config.message);
  return { ...(title === undefined ? {} : { title }), ...(message === undefined ? {} : { message }) };
}

async function readDestination({ callbacks }: StepContext, destinationId: string): Promise<InternalDestination> {
  try {
    return await callbacks.notificationDestination(destinationId);
  } catch (error) {
    if (!(error instanceof DaemonAnswerError) || isRunNotHeld(error)) throw error;
    const details = { destination_id: destinationId, status: error.status, ...(error.code ? { problem_code: error.code } : {}) };
    if (error.status === 404)
      throw new StepFailure('notification_destination_not_found', `no destination ${destinationId} in the run's organization`, details);
    throw new StepFailure('notification_destination_unreadable', `the destination could not be read (${error.status})`, details);
  }
}
