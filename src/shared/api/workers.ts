import { z } from 'zod';
import { storableTime } from './storable-time.js';
import { pageShape } from './query.js';

/**
 * Wire schemas of the worker registry: the heartbeat (a long-polled claim), the env keys, and `GET
 * /workers`. The reference worker (`svcd worker`) and the daemon build on the same schemas.
 */

/** A worker's own stable name: what it sends as `worker_id` and in `X-Worker-Id`. */
export const workerId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,254}$/, 'letters, digits, . _ : - (1-255, starting alphanumeric)');

/** The longest a heartbeat may wait for work before the daemon answers with nothing new. */
export const MAX_HEARTBEAT_WAIT_SECONDS = 25;

/** A run the worker holds and says so: renews its lease. */
export const heldRun = z.object({ run_id: z.string(), attempt: z.number().int().min(1) }).strict();

export const heartbeatBody = z
  .object({
    worker_id: workerId,
    hostname: z.string().max(255).optional(),
    version: z.string().max(64).optional(),
    labels: z.record(z.string().max(64), z.string().max(255)).optional(),
    /** Step handlers this worker can run (`general.noop`, …). */
    handlers: z.array(z.string().max(128)).max(500).optional(),
    /** Runs it holds; their leases are renewed. */
    running: z.array(heldRun).max(1000).default([]),
    /**
     * Runs it hands back (shutting down before they started a step): requeued if no step of that attempt
     * started, else failed with `worker_lost`. Not renewed, whatever `running` says.
     */
    released: z.array(heldRun).max(1000).default([]),
    /** How many more runs it takes now (0 claims nothing: a heartbeat only). */
    free_slots: z.number().int().min(0).max(100).default(0),
    /** How long to wait for work when there is none now; 0 answers at once. */
    wait_s: z.number().min(0).max(MAX_HEARTBEAT_WAIT_SECONDS).default(0),
    /** Shutting down: renew, claim nothing. */
    draining: z.boolean().optional(),
  })
  .strict();
export type HeartbeatBody = z.infer<typeof heartbeatBody>;

/** A run handed to a worker: everything it needs to execute it. */
export const assignment = z.object({
  run_id: z.string(),
  attempt: z.number().int(),
  workflow_id: z.string(),
  org_id: z.string(),
  flow_id: z.string().nullable(),
  flow_version: z.number().int(),
  /** The flow's name when the run was admitted (a later rename does not change it). */
  flow_name: z.string(),
  name: z.string(),
  /** The committed definition the run was admitted with. */
  definition: z.record(z.string(), z.unknown()),
  params: z.record(z.string(), z.unknown()),
  targets: z.record(z.string(), z.array(z.string())),
  /**
   * The live devices among the targets, by id: their name and management address (`hostname`, null when
   * the device has none), so probes can reach them. A device deleted since admission is absent. Absent: none.
   */
  target_devices: z.record(z.string(), z.object({ name: z.string(), hostname: z.string().nullable() })).optional(),
  run_vars: z.record(z.string(), z.unknown()),
  /** `paused` when the run was paused before the worker took it up. */
  status: z.enum(['running', 'paused']),
  /**
   * A run resumed after an approval: the steps that succeeded in earlier attempts, with their outputs (the
   * newest step run of each). The worker does not run them again; templates read their outputs. Absent: none.
   */
  completed_steps: z.record(z.string(), z.object({ outputs: z.record(z.string(), z.unknown()) })).optional(),
  /** Steps whose approval gate was approved: the worker runs them without asking again. Absent: none. */
  approved_steps: z.array(z.string()).optional(),
  lease_expires_at: z.string(),
});
export type Assignment = z.infer<typeof assignment>;

export const heartbeatAnswer = z.object({
  assignments: z.array(assignment),
  /** Held runs that were cancelled: stop them, report nothing more but their step runs' end. */
  cancel: z.array(z.string()),
  /** Held runs that are paused: finish the current step, start no next one until they leave this list. */
  pause: z.array(z.string()),
  /** Runs the worker named in `running` that it no longer holds (lease expired and reaped, or another attempt): drop them. */
  lost: z.array(z.string()),
  /** When to send the next heartbeat at the latest, and how long a lease lasts without one. */
  heartbeat_s: z.number(),
  lease_s: z.number(),
});
export type HeartbeatAnswer = z.infer<typeof heartbeatAnswer>;

export const envKeyBody = z
  .object({
    worker_id: workerId,
    /** The JWK's algorithm for sealing values to this worker. */
    algorithm: z.enum(['ECDH-ES+A256KW', 'RSA-OAEP-256']),
    public_key_jwk: z.record(z.string(), z.unknown()),
    key_id: z.string().min(1).max(128),
    expires_at: storableTime.optional(),
  })
  .strict();

export const envKey = z.object({
  worker_id: z.string(),
  algorithm: z.string(),
  key_id: z.string(),
  public_key_jwk: z.record(z.string(), z.unknown()),
  created_at: z.string(),
  expires_at: z.string().nullable(),
});

export const envKeyPath = z.object({ worker_id: z.string() });

export const worker = z.object({
  id: z.string(),
  hostname: z.string().nullable(),
  version: z.string().nullable(),
  labels: z.record(z.string(), z.string()),
  handlers: z.array(z.string()),
  capacity: z.number().int(),
  running: z.number().int(),
  draining: z.boolean(),
  /** `online` while its heartbeats arrive within a lease, else `offline`. */
  status: z.enum(['online', 'offline']),
  first_seen_at: z.string(),
  last_seen_at: z.string(),
});
export type Worker = z.infer<typeof worker>;

export const workerListQuery = z.object({ status: z.enum(['online', 'offline']).optional(), ...pageShape }).strict();
export const workerList = z.object({ items: z.array(worker), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });
