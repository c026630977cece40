import { z } from 'zod';
import { pageShape } from './query.js';
import { stamps } from './stamps.js';
import { pathId } from './id-schemas.js';

/**
 * Wire schemas of the notification routes (`/notifications…`, a flow's subscriptions, and the internal
 * routes the `flow.notify` step reads). The kinds' own settings (`config`) are checked by
 * `DESTINATION_CONFIGS` once the kind is known, so an unknown kind has a code of its own.
 */

export const DESTINATION_KINDS = ['email', 'webhook', 'slack', 'mattermost', 'teams'] as const;
export type DestinationKind = (typeof DESTINATION_KINDS)[number];

export const NOTIFICATION_EVENTS = [
  'run.started',
  'run.succeeded',
  'run.failed',
  'run.cancelled',
  'approval.requested',
  'approval.decided',
] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

const events = z.array(z.enum(NOTIFICATION_EVENTS)).max(NOTIFICATION_EVENTS.length);

/** A secret reference (`{{ secret('<name>') }}` or `<scheme>://orgs/<org>/secrets/<path>[#key]`), never a value. */
const secretRef = z.string().trim().min(1).max(1024).describe('A secret reference; the value is read when a message is sent');
/** A receiver's URL in plain sight (answers, audit): credentials in it are refused, they go in `url_ref`. */
const httpUrl = z
  .string()
  .max(2048)
  .refine((text) => URL.canParse(text) && ['http:', 'https:'].includes(new URL(text).protocol), { message: 'an http(s) URL' })
  .refine((text) => !URL.canParse(text) || (new URL(text).username === '' && new URL(text).password === ''), {
    message: 'credentials in the URL are refused: give the whole URL as url_ref',
  });
const address = z.email().max(320);

/** Each kind's `config`; fields ending `_ref` are secret references. */
export const DESTINATION_CONFIGS = {
  email: z
    .object({
      smtp_host: z.string().trim().min(1).max(255),
      smtp_port: z.number().int().min(1).max(65535).default(587),
      smtp_security: z
        .enum(['starttls', 'tls', 'none'])
        .default('starttls')
        .describe('`tls`: TLS from the start (465); `starttls`: upgrade required'),
      username: z.string().trim().min(1).max(255).optional(),
      password_ref: secretRef.optional(),
      from: address,
      to: z.array(address).min(1).max(50),
    })
    .strict()
    // SMTP AUTH takes both: one alone would send unauthenticated, or with an empty password, unnoticed.
    .refine((c) => (c.username === undefined) === (c.password_ref === undefined), {
      message: 'give username and password_ref together, or neither',
      path: ['password_ref'],
    }),
  webhook: z
    .object({
      url: httpUrl.optional().describe('The receiver; give `url` or `url_ref`'),
      url_ref: secretRef.optional().describe('The receiver as a secret reference, for a URL that holds a token'),
      signing_secret_ref: secretRef
        .optional()
        .describe('Signs `<timestamp>.<body>` (HMAC-SHA256, X-Service-Timestamp / X-Service-Signature), as the inbound webhooks verify'),
    })
    .strict()
    .refine((c) => (c.url === undefined) !== (c.url_ref === undefined), { message: 'give exactly one of url or url_ref', path: ['url'] }),
  slack: z.object({ webhook_url_ref: secretRef, channel: z.string().max(255).optional() }).strict(),
  mattermost: z.object({ webhook_url_ref: secretRef, channel: z.string().max(255).optional() }).strict(),
  teams: z.object({ webhook_url_ref: secretRef }).strict(),
} as const satisfies Record<DestinationKind, z.ZodType>;

/** The fields of each kind that hold secret references. */
export const SECRET_REF_FIELDS: Record<DestinationKind, readonly string[]> = {
  email: ['password_ref'],
  webhook: ['url_ref', 'signing_secret_ref'],
  slack: ['webhook_url_ref'],
  mattermost: ['webhook_url_ref'],
  teams: ['webhook_url_ref'],
};

export const destinationPath = z.object({ destination_id: pathId });
export const flowPath = z.object({ flow_id: pathId });
export const subscriptionPath = z.object({ flow_id: pathId, subscription_id: pathId });

const name = z.string().trim().min(1).max(255);
const description = z.string().max(10_000).nullable();
/** Its kind's settings, checked against `DESTINATION_CONFIGS[kind]` by the service. */
const config = z.record(z.string(), z.unknown()).describe("The kind's settings (`GET /notifications/destination-types`)");

export const createDestinationBody = z
  .object({
    name,
    description: description.optional(),
    kind: z
      .string()
      .max(40)
      .describe(`One of ${DESTINATION_KINDS.join(', ')}`),
    config,
    enabled: z.boolean().optional(),
    default_events: events.optional().describe('Flow defaults: events every flow sends here unless it has its own subscription'),
  })
  .strict();
export type CreateDestinationBody = z.infer<typeof createDestinationBody>;

/** `config` replaces the stored one whole; the kind cannot change. */
export const updateDestinationBody = z
  .object({ name, description, config, enabled: z.boolean(), default_events: events })
  .partial()
  .strict();
export type UpdateDestinationBody = z.infer<typeof updateDestinationBody>;

export const duplicateDestinationBody = z.object({ name: name.optional() }).strict();

const bool = z.enum(['true', 'false']);
export const listDestinationsQuery = z
  .object({
    kind: z.enum(DESTINATION_KINDS).optional(),
    enabled: bool.optional(),
    q: z.string().max(255).optional().describe('Name contains'),
    include_deleted: bool.optional(),
    ...pageShape,
  })
  .strict();

export const destination = z.object({
  id: z.string(),
  org_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  kind: z.enum(DESTINATION_KINDS),
  config: z.record(z.string(), z.unknown()).describe('Settings as stored: credentials only as secret references'),
  enabled: z.boolean(),
  default_events: z.array(z.enum(NOTIFICATION_EVENTS)),
  ...stamps,
});
export type Destination = z.infer<typeof destination>;

export const destinationList = z.object({
  items: z.array(destination),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});
export type DestinationList = z.infer<typeof destinationList>;

const typeField = z.object({
  name: z.string(),
  type: z.string(),
  required: z.boolean(),
  secret_reference: z.boolean(),
  description: z.string(),
});
export const destinationTypes = z.object({
  items: z.array(z.object({ kind: z.enum(DESTINATION_KINDS), title: z.string(), description: z.string(), fields: z.array(typeField) })),
  events: z.array(z.enum(NOTIFICATION_EVENTS)),
});
export type DestinationTypes = z.infer<typeof destinationTypes>;

export const flowDefaults = z.object({
  items: z.array(
    z.object({
      destination_id: z.string(),
      name: z.string(),
      kind: z.enum(DESTINATION_KINDS),
      events: z.array(z.enum(NOTIFICATION_EVENTS)),
      enabled: z.boolean().describe('A disabled destination keeps its defaults but is sent nothing'),
    }),
  ),
});
export type FlowDefaults = z.infer<typeof flowDefaults>;

/** What a test send got back from the receiver. */
export const testAnswer = z.object({
  delivered: z.boolean(),
  outcome: z.enum(['delivered', 'transient', 'permanent']),
  status_code: z.number().int().nullable().describe("The receiver's HTTP status or SMTP reply code; null when none was reached"),
  reason: z
    .string()
    .nullable()
    .describe('Why it failed: `http_status`, `smtp_reply`, an outbound refusal (`address_not_allowed`...), `secret_reference`'),
  detail: z.string().nullable(),
  idempotency_key: z.string(),
});
export type TestAnswer = z.infer<typeof testAnswer>;

export const testDestinationBody = z.object({ title: z.string().max(255).optional(), message: z.string().max(10_000).optional() }).strict();

export const createSubscriptionBody = z
  .object({ destination_id: z.guid(), events: events.min(1), enabled: z.boolean().optional() })
  .strict();
export type CreateSubscriptionBody = z.infer<typeof createSubscriptionBody>;

export const updateSubscriptionBody = z
  .object({ events: events.min(1), enabled: z.boolean() })
  .partial()
  .strict();
export type UpdateSubscriptionBody = z.infer<typeof updateSubscriptionBody>;

export const subscription = z.object({
  id: z.string(),
  org_id: z.string(),
  flow_id: z.string(),
  destination_id: z.string(),
  destination_name: z.string(),
  destination_kind: z.enum(DESTINATION_KINDS),
  events: z.array(z.enum(NOTIFICATION_EVENTS)),
  enabled: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
  created_by: z.string().nullable(),
  updated_by: z.string().nullable(),
});
export type Subscription = z.infer<typeof subscription>;

export const subscriptionList = z.object({ items: z.array(subscription) });
export type SubscriptionList = z.infer<typeof subscriptionList>;

/** What the flow's runs in an organization send, and where: its subscriptions, then the flow defaults it has none for. */
export const internalSubscriptionsQuery = z
  .object({ org_id: z.guid().optional().describe("The running organization; the flow's own unless given") })
  .strict();
export const internalSubscriptions = z.object({
  flow_id: z.string(),
  org_id: z.string(),
  items: z.array(
    z.object({
      destination_id: z.string(),
      kind: z.enum(DESTINATION_KINDS),
      events: z.array(z.enum(NOTIFICATION_EVENTS)),
      source: z.enum(['subscription', 'default']),
    }),
  ),
});

export const internalDestinationQuery = z.object({ run_id: z.guid().describe('The run whose `flow.notify` step sends') }).strict();
export const internalDestination = z.object({
  id: z.string(),
  org_id: z.string(),
  name: z.string(),
  kind: z.enum(DESTINATION_KINDS),
  enabled: z.boolean(),
  config: z.record(z.string(), z.unknown()),
  credentials: z
    .record(z.string(), z.string())
    .describe("The secret references' values by field, resolved in the run's organization, for the step to send with"),
});
export type InternalDestination = z.infer<typeof internalDestination>;
