import { NOTIFICATION_EVENTS, type DestinationTypes } from '../../../shared/api/notifications.js';

const field = (name: string, type: string, required: boolean, description: string) => ({
  name,
  type,
  required,
  secret_reference: name.endsWith('_ref'),
  description,
});
const webhookUrlRef = field(
  'webhook_url_ref',
  'secret reference',
  true,
  'The incoming webhook URL (it holds a token), as a secret reference',
);

/** `GET /notifications/destination-types`: the kinds this service sends to (the spec names none; docs/notifications.md). */
export const DESTINATION_TYPES: DestinationTypes = {
  events: [...NOTIFICATION_EVENTS],
  items: [
    {
      kind: 'email',
      title: 'E-mail (SMTP)',
      description: 'A plain-text e-mail through an SMTP server.',
      fields: [
        field('smtp_host', 'string', true, 'SMTP server host'),
        field('smtp_port', 'integer', false, 'SMTP port (587 unless given)'),
        field(
          'smtp_security',
          'starttls | tls | none',
          false,
          '`starttls` (required upgrade, the default), `tls` (from the start), `none`',
        ),
        field('username', 'string', false, 'SMTP user (with password_ref)'),
        field('password_ref', 'secret reference', false, 'SMTP password (with username)'),
        field('from', 'e-mail address', true, 'Sender'),
        field('to', 'array of e-mail addresses', true, 'Recipients (1 to 50)'),
      ],
    },
    {
      kind: 'webhook',
      title: 'Generic webhook',
      description:
        'A JSON POST of the event; signed like the inbound webhooks (X-Service-Timestamp, X-Service-Signature: HMAC-SHA256 of `<timestamp>.<body>`) when a signing secret is given. X-Idempotency-Key is the same on every retry.',
      fields: [
        field('url', 'http(s) URL', false, 'The receiver (give url or url_ref)'),
        field('url_ref', 'secret reference', false, 'The receiver, for a URL that holds a token'),
        field('signing_secret_ref', 'secret reference', false, 'HMAC key'),
      ],
    },
    {
      kind: 'slack',
      title: 'Slack incoming webhook',
      description: 'A message (`text`, `blocks`) to a Slack incoming webhook.',
      fields: [webhookUrlRef, field('channel', 'string', false, 'Channel override, where the webhook allows it')],
    },
    {
      kind: 'mattermost',
      title: 'Mattermost incoming webhook',
      description: 'A Slack-compatible message (`text`) to a Mattermost incoming webhook.',
      fields: [webhookUrlRef, field('channel', 'string', false, 'Channel override')],
    },
    {
      kind: 'teams',
      title: 'Microsoft Teams workflow webhook',
      description: 'An Adaptive Card message to a Teams workflow ("When a Teams webhook request is received").',
      fields: [webhookUrlRef],
    },
  ],
};
