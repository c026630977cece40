import { z } from 'zod';
import { stamps } from './stamps.js';
import { allowedSourceIpsSchema } from '../webhooks/allow-list-rules.js';
import { WEBHOOK_AUTH_MODES, webhookNameSchema } from '../webhooks/endpoint-rules.js';
import { pageShape } from './query.js';
import { pathId, uuid } from './id-schemas.js';

/**
 * Wire schemas of the webhook routes: endpoint management (`/webhooks`) and the public trigger
 * (`POST /hooks/{path_token}`). The daemon validates and documents with them; the CLI's types are inferred
 * from them.
 */

const authMode = z.enum(WEBHOOK_AUTH_MODES);

// A plain string: an id that is not a UUID names no endpoint, and is answered 404 by the service.
export const webhookPathParams = z.object({ webhook_id: pathId });

export const listWebhooksQuery = z.object({ include_deleted: z.enum(['true', 'false']).optional() }).strict();
/** `limit` (50 unless given, at most 500) and `offset`. */
export const deliveriesQuery = z.object(pageShape).strict();

const fields = {
  name: webhookNameSchema,
  description: z.string().max(10_000).nullable(),
  enabled: z.boolean(),
  secret_id: uuid.nullable(),
  auth_mode: authMode,
  replay_window_seconds: z.number().int().min(1).max(86_400),
  rate_limit_per_minute: z.number().int().min(1).max(100_000),
  flow_id: uuid,
  flow_version: z.number().int().min(1).nullable(),
  allowed_source_ips: allowedSourceIpsSchema,
  payload_mapping_json: z.record(z.string(), z.unknown()),
};

export const createWebhookBody = z
  .object({
    ...fields,
    description: fields.description.optional(),
    enabled: fields.enabled.optional(),
    secret_id: fields.secret_id.optional(),
    auth_mode: fields.auth_mode.optional(),
    replay_window_seconds: fields.replay_window_seconds.optional(),
    rate_limit_per_minute: fields.rate_limit_per_minute.optional(),
    flow_version: fields.flow_version.optional(),
    allowed_source_ips: fields.allowed_source_ips.optional(),
    payload_mapping_json: fields.payload_mapping_json.optional(),
  })
  .strict();

/** Any create field; `auth_mode` is accepted only unchanged (the service refuses another). */
export const updateWebhookBody = z.object(fields).partial().strict();

/** `path_token` is generated, never accepted: a body naming it is refused by name (before the schemas above). */
export const CLIENT_REFUSED_WEBHOOK_FIELDS = ['path_token'] as const;

export const rotateSecretBody = z.object({ new_secret_id: uuid }).strict();

/** The full read schema: create, read, update, restore and rotate answer it. */
export const webhookEndpoint = z.object({
  id: z.string(),
  org_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  enabled: z.boolean(),
  path_token: z.string(),
  trigger_path: z.string().describe('`/hooks/<path_token>`: where senders post.'),
  secret_id: z.string().nullable(),
  auth_mode: authMode,
  replay_window_seconds: z.number().int(),
  rate_limit_per_minute: z.number().int(),
  flow_id: z.string().nullable().describe('Null when the flow row was removed out of band.'),
  flow_name: z.string().nullable().describe('Null when the flow is gone or soft-deleted.'),
  flow_version: z.number().int().nullable().describe('The pinned committed version; null runs the newest.'),
  allowed_source_ips: z.array(z.string()).nullable(),
  payload_mapping_json: z.record(z.string(), z.unknown()),
  last_triggered_at: z.string().nullable(),
  ...stamps,
});
export type WebhookEndpoint = z.infer<typeof webhookEndpoint>;

/** A list item: the endpoint's label, state and target; the token only in the full read. */
export const webhookListItem = webhookEndpoint.pick({
  id: true,
  name: true,
  description: true,
  enabled: true,
  auth_mode: true,
  flow_id: true,
  flow_name: true,
  flow_version: true,
  secret_id: true,
  rate_limit_per_minute: true,
  last_triggered_at: true,
  created_at: true,
  deleted_at: true,
});
export type WebhookListItem = z.infer<typeof webhookListItem>;

export const webhookList = z.array(webhookListItem);

/** One journal row: never the body, only its hash. */
export const webhookDelivery = z.object({
  id: z.string(),
  webhook_endpoint_id: z.string(),
  idempotency_key: z.string().nullable(),
  signature_valid: z.boolean(),
  source_ip: z.string().nullable(),
  request_body_hash: z.string().nullable(),
  response_status: z.number().int(),
  error_detail: z.string().nullable(),
  run_ids: z.array(z.string()),
  processing_duration_ms: z.number().int().nullable(),
  created_at: z.string(),
});
export type WebhookDelivery = z.infer<typeof webhookDelivery>;

export const webhookDeliveryList = z.array(webhookDelivery);

/** The configuration as a trigger would find it; `errors` name what would refuse one. */
export const webhookTestResult = z.object({
  valid: z.boolean(),
  checks: z.object({
    secret_resolvable: z.boolean(),
    flow_exists: z.boolean(),
    flow_version_available: z.boolean(),
    enabled: z.boolean(),
  }),
  errors: z.array(z.object({ code: z.string(), message: z.string() })),
});
export type WebhookTestResult = z.infer<typeof webhookTestResult>;

const deviceReference = z.union([
  z.guid().describe('A device of the organization, or of the shared organization'),
  z
    .object({ provider_id: z.string().min(1).max(255), external_id: z.string().min(1).max(255) })
    .strict()
    .describe("A device of the endpoint's organization named by its inventory provider; `external_id` is text"),
]);

/**
 * The trigger's body as senders write it (spec "Body rules"). It documents the route only: the trigger reads
 * and checks the body itself (src/shared/webhooks/trigger-body.ts), after its signature and the ingress limits.
 */
export const triggerBody = z
  .object({
    params: z.record(z.string(), z.unknown()).optional().describe("The run's parameters"),
    related_targets: z
      .record(z.string(), z.array(deviceReference))
      .optional()
      .describe('Target role -> device references (at most 100 provider references in all)'),
  })
  .catchall(z.unknown())
  .describe(
    "A JSON object. With neither `params` nor `related_targets`, the whole object is the run's `params`; with either, only those two are read.",
  );

/** The trigger response envelope: one run per delivery. */
export const triggerEnvelope = z.object({
  delivery_id: z.string(),
  triggered_runs: z.array(
    z.object({
      target_type: z.literal('flow'),
      target_id: z.string(),
      flow_id: z.string(),
      target_name: z.string(),
      flow_name: z.string(),
      run_id: z.string(),
      workflow_id: z.string(),
    }),
  ),
});
export type TriggerEnvelope = z.infer<typeof triggerEnvelope>;
