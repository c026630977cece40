import { z } from 'zod';

/** Wire schema of `GET /platform/health` (`platform:health`, platform admins only). */

export const HEALTH_STATUSES = ['ok', 'degraded', 'down', 'not_configured'] as const;
export type HealthStatus = (typeof HEALTH_STATUSES)[number];

export const healthCheck = z.object({
  /** `database`, `identity_provider`, `secret_backends`, `workers`, `scheduler`, `maintenance`, `registry`, `file_repositories`. */
  name: z.string(),
  status: z.enum(HEALTH_STATUSES),
  /** How long the check took; the overall limit when it timed out. */
  latency_ms: z.number().int().min(0),
  /** What was found: counts, the reason (`timeout`, `unreachable`, …) and per-item results where the check has items. */
  detail: z.record(z.string(), z.unknown()),
});

export const platformHealthAnswer = z.object({
  /** The worst of the checks' statuses (`not_configured` counts as ok). */
  status: z.enum(['ok', 'degraded', 'down']),
  checked_at: z.string(),
  /** Whether this report is one made within the last few seconds, served again (docs/platform-health.md). */
  cached: z.boolean(),
  checks: z.array(healthCheck),
});

export type HealthCheck = z.infer<typeof healthCheck>;
export type PlatformHealthAnswer = z.infer<typeof platformHealthAnswer>;
