import type { DestinationKind } from '../api/notifications.js';

/** What the outbox row (or a test send) carries: the event and a snapshot of its run and approval. */
export interface NotificationPayload {
  readonly event: string;
  readonly occurred_at?: string;
  readonly org_id?: string;
  readonly run?: Record<string, unknown>;
  readonly approval?: Record<string, unknown>;
  /** The `flow.notify` step that sent it. */
  readonly step_id?: string;
  /** A test send's or a `flow.notify` step's own words. */
  readonly title?: string;
  readonly message?: string;
}

const EVENT_WORDS: Record<string, string> = {
  'run.started': 'started',
  'run.succeeded': 'succeeded',
  'run.failed': 'failed',
  'run.cancelled': 'was cancelled',
  'approval.requested': 'waits for an approval',
  'approval.decided': 'had its approval decided',
  'notification.test': 'test',
  'flow.notify': 'has a message',
};

/** A title and a plain-text body for people, from the payload. */
export function describe(payload: NotificationPayload): { title: string; text: string } {
  const run = payload.run ?? {};
  const approval = payload.approval;
  const flow = run.flow_name === undefined ? '' : ` of flow "${String(run.flow_name ?? '')}"`;
  const subject = `Run "${String(run.name ?? run.id ?? '')}"${flow}`;
  const title =
    payload.title ??
    (payload.event === 'notification.test' ? 'Test notification' : `${subject} ${EVENT_WORDS[payload.event] ?? payload.event}`);
  const lines = [payload.message ?? title];
  if (payload.run) lines.push(`Run: ${String(run.id)} (status ${String(run.status ?? '')})`);
  if (approval)
    lines.push(
      `Approval: step ${String(approval.step_id)}, ${String(approval.status)}${approval.message ? `: ${String(approval.message)}` : ''}`,
    );
  if (run.error && typeof run.error === 'object') lines.push(`Error: ${JSON.stringify(run.error).slice(0, 500)}`);
  return { title, text: lines.join('\n') };
}

/** The JSON body each HTTP kind's receiver expects; the generic webhook gets the whole event. */
export function httpBody(
  kind: Exclude<DestinationKind, 'email'>,
  payload: NotificationPayload,
  key: string,
  config: Readonly<Record<string, unknown>>,
): string {
  const { title, text } = describe(payload);
  const channel = typeof config.channel === 'string' ? { channel: config.channel } : {};
  switch (kind) {
    case 'webhook':
      return JSON.stringify({ ...payload, idempotency_key: key, title, text });
    case 'slack':
      return JSON.stringify({
        text: `${title}\n${text}`,
        blocks: [
          { type: 'header', text: { type: 'plain_text', text: title.slice(0, 150) } },
          { type: 'section', text: { type: 'mrkdwn', text: text.slice(0, 3000) } },
        ],
        ...channel,
      });
    case 'mattermost':
      return JSON.stringify({ text: `#### ${title}\n${text}`, ...channel });
    case 'teams':
      return JSON.stringify({
        type: 'message',
        attachments: [
          {
            contentType: 'application/vnd.microsoft.card.adaptive',
            content: {
              $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
              type: 'AdaptiveCard',
              version: '1.4',
              body: [
                { type: 'TextBlock', text: title, weight: 'Bolder', size: 'Medium', wrap: true },
                { type: 'TextBlock', text, wrap: true },
              ],
            },
          },
        ],
      });
  }
}
