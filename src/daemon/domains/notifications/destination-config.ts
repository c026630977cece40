import { DESTINATION_CONFIGS, DESTINATION_KINDS, SECRET_REF_FIELDS, type DestinationKind } from '../../../shared/api/notifications.js';
import { problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { SecretBackendError, SecretReferenceError, type SecretResolver } from '../secrets/secret-resolver.js';
import { secretProblems } from '../secrets/secret-problems.js';

export function isDestinationKind(kind: string): kind is DestinationKind {
  return (DESTINATION_KINDS as readonly string[]).includes(kind);
}

/** The kind, or 422 `notification_kind_unknown` naming those there are. */
export function checkedKind(kind: string): DestinationKind {
  if (!isDestinationKind(kind))
    throw problem('notification_kind_unknown', `No destination kind "${kind}".`, { kinds: [...DESTINATION_KINDS] });
  return kind;
}

/** The kind's settings with their defaults filled in, or 422 `validation_failed` with `config.<field>` paths. */
export function checkedConfig(kind: DestinationKind, config: unknown): Record<string, unknown> {
  const parsed = DESTINATION_CONFIGS[kind].safeParse(config);
  if (parsed.success) return parsed.data as Record<string, unknown>;
  throw problems.validation(parsed.error.issues.map((issue) => ({ path: ['config', ...issue.path].join('.'), message: issue.message })));
}

/** The configured secret references by field. */
export function secretRefsOf(kind: DestinationKind, config: Readonly<Record<string, unknown>>): Record<string, string> {
  const refs: Record<string, string> = {};
  for (const field of SECRET_REF_FIELDS[kind]) if (typeof config[field] === 'string') refs[field] = config[field];
  return refs;
}

/**
 * Resolves every reference of the config in `orgId` (another organization's is refused by the resolver).
 * A reference it refuses is 422 `notification_secret_reference_refused` (`field`, `reason`); a backend that
 * fails is 503 `secret_backend_unavailable`. The values are for sending only: never answered or logged.
 */
export async function resolveSecrets(
  resolver: SecretResolver,
  orgId: string,
  kind: DestinationKind,
  config: Readonly<Record<string, unknown>>,
): Promise<Record<string, string>> {
  const values: Record<string, string> = {};
  for (const [field, reference] of Object.entries(secretRefsOf(kind, config))) {
    try {
      values[field] = await resolver.resolveReference(orgId, reference);
    } catch (error) {
      if (error instanceof SecretReferenceError)
        throw problem('notification_secret_reference_refused', `config.${field}: ${error.message}`, {
          field: `config.${field}`,
          reason: error.problem,
        });
      if (error instanceof SecretBackendError) throw secretProblems.backendUnavailable();
      throw error;
    }
  }
  return values;
}
