import { z } from 'zod';
import { IAC_STATE_NAME } from '../iac/state-name.js';
import { pageShape } from './query.js';

/**
 * Wire schemas of the managed IaC states (`/iac-states…`): a Terraform/OpenTofu `http` backend
 * (`GET`/`POST …/state`, `POST`/`DELETE …/lock`) and the routes that list, read, import, roll back,
 * force-unlock and delete states. State documents travel as Terraform writes them (raw JSON); listings
 * never carry one.
 */

export const iacStatePath = z.object({ name: z.string().regex(IAC_STATE_NAME) });
export const iacStateVersionPath = z.object({
  name: z.string().regex(IAC_STATE_NAME),
  version: z
    .string()
    .regex(/^[1-9]\d{0,8}$/)
    .transform(Number),
});

/** A write names the lock it holds: `?ID=<lock id>` (Terraform sends it when it locked). */
export const stateWriteQuery = z.object({ ID: z.string().min(1).max(255).optional() }).strict();

/**
 * Terraform's lock info (`LOCK`/`UNLOCK` bodies): `ID` is the lock; the rest is kept and answered back
 * as sent, to a competing locker (423) and in the state's view.
 */
export const lockInfo = z
  .object({
    ID: z.string().min(1).max(255),
    Operation: z.string().max(255).optional(),
    Info: z.string().max(4000).optional(),
    Who: z.string().max(255).optional(),
    Version: z.string().max(64).optional(),
    Created: z.string().max(64).optional(),
    Path: z.string().max(1000).optional(),
  })
  .catchall(z.unknown());
export type LockInfo = z.infer<typeof lockInfo>;

/** A state document: Terraform's JSON, an object with its `serial` and `lineage` (written as sent). */
export const stateDocument = z
  .object({ version: z.number().optional(), serial: z.number().int().min(0).optional(), lineage: z.string().optional() })
  .catchall(z.unknown());

export const rollbackBody = z.object({ version: z.number().int().min(1) }).strict();

export const listIacStatesQuery = z
  .object({
    q: z.string().max(128).optional().describe('Name contains'),
    ...pageShape,
  })
  .strict();
export const listIacStateVersionsQuery = z.object({ ...pageShape }).strict();

export const iacStateLock = z.object({
  id: z.string(),
  operation: z.string().nullable(),
  who: z.string().nullable(),
  info: z.string().nullable(),
  created: z.string().nullable().describe('As the locker said'),
  locked_at: z.string(),
  locked_by: z.string().nullable().describe('The subject that took it: a user, or `run_token:<id>`'),
  run_id: z.string().nullable().describe('Set when a run token took it'),
  step_id: z.string().nullable(),
});

export const iacStateHold = z
  .object({
    run_id: z.string(),
    step_id: z.string().nullable().describe('The plan step that asked for it'),
    held_at: z.string(),
  })
  .describe("A run's hold (`iac.plan`'s `hold_until_apply`): nobody else may lock or change the state until the run applies or ends");

export const iacState = z.object({
  name: z.string(),
  org_id: z.string(),
  latest_version: z.number().int().describe('0 until the first write'),
  serial: z.number().int().nullable(),
  lineage: z.string().nullable(),
  size: z.number().int().nullable(),
  sha256: z.string().nullable(),
  lock: iacStateLock.nullable(),
  hold: iacStateHold.nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type IacState = z.infer<typeof iacState>;

export const IAC_VERSION_SOURCES = ['backend', 'import', 'rollback'] as const;

export const iacStateVersion = z.object({
  version: z.number().int(),
  serial: z.number().int().nullable(),
  lineage: z.string().nullable(),
  size: z.number().int(),
  sha256: z.string(),
  source: z.enum(IAC_VERSION_SOURCES),
  rolled_back_from: z.number().int().nullable(),
  created_by: z.string().nullable(),
  run_id: z.string().nullable(),
  step_id: z.string().nullable(),
  created_at: z.string(),
});
export type IacStateVersion = z.infer<typeof iacStateVersion>;

export const iacStateList = z.object({
  items: z.array(iacState),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});
export type IacStateList = z.infer<typeof iacStateList>;
export const iacStateVersionList = z.object({
  items: z.array(iacStateVersion),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});
export type IacStateVersionList = z.infer<typeof iacStateVersionList>;
