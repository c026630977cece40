import { z } from 'zod';

/** Wire schema of `GET /settings/environment-variables` (`environment_variable:view`). */

/** What a secret setting's value shows when it is set: never the value, nor its length. */
export const MASKED_VALUE = '********';

export const environmentVariable = z.object({
  /** The variable's name (`SERVICE_PORT`, …). */
  name: z.string(),
  /** The effective value as the environment would write it; a secret's is masked; null when unset. */
  value: z.string().nullable(),
  /** The default as the environment would write it; null when the setting has none. */
  default: z.string().nullable(),
  /** Whether the effective value is the default's. */
  is_default: z.boolean(),
  /** Whether the value is a secret (masked here, never logged). */
  secret: z.boolean(),
  /** What the setting does, as the README's configuration table says. */
  description: z.string(),
});

export const environmentVariablesAnswer = z.object({
  /** Every setting of the daemon, in the order they are defined (src/daemon/config/settings.ts). */
  items: z.array(environmentVariable),
});

export type EnvironmentVariable = z.infer<typeof environmentVariable>;
export type EnvironmentVariablesAnswer = z.infer<typeof environmentVariablesAnswer>;
