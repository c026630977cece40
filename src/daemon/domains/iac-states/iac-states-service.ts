import type { IacState, IacStateList, IacStateVersion, IacStateVersionList, LockInfo } from '../../../shared/api/iac-states.js';
import { problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import type { DataSealer } from '../secrets/key/data-sealer.js';
import { SealError } from '../secrets/key/data-sealer.js';
import type { IacActor } from './iac-actor.js';
import { recordIacEvent } from './iac-audit.js';
import { heldFrom, lockMismatch, sameLock, stateHeld, stateLocked } from './iac-lock.js';
import type { IacStateRow, IacStatesRepo, IacTx, IacVersionRow, SealedVersionRow } from './iac-states-repo.js';
import { type DocumentFacts, readStateDocument } from './state-document.js';
import { stateView, versionView } from './views.js';

/** Associated data of a sealed version: purpose, then organization, state name and version. */
const PURPOSE = 'svc-iac-state/v1';

export interface StateWrite {
  readonly raw: Buffer;
  readonly contentMd5: string | undefined;
  /** `?ID=`: the lock the writer holds. */
  readonly lockId: string | undefined;
}

const notFound = () => problems.resourceNotFound('State');

/**
 * Managed IaC states: the http backend's reads, writes, locks and unlocks, and the routes around them.
 * Every write is a new version, sealed under the secrets key with associated data binding it to its
 * organization, name and version; a lock held by another refuses writes (409 `iac_lock_mismatch` naming
 * a lock that is not the holder's, 423 `iac_state_locked` otherwise), each refusal carrying the holder's
 * lock info as Terraform reads it.
 */
export class IacStatesService {
  constructor(
    private readonly repo: IacStatesRepo,
    private readonly sealer: DataSealer,
    private readonly audit: AuditWriter,
  ) {}

  /** The newest document, or undefined when the state has none (the backend answers 204). */
  async current(orgId: string, name: string): Promise<Buffer | undefined> {
    const found = await this.repo.stateWithSealed(orgId, name, 'latest');
    if (!found?.sealed) return undefined;
    return this.#open(orgId, name, found.sealed);
  }

  async content(orgId: string, name: string, version: number): Promise<Buffer> {
    const found = await this.repo.stateWithSealed(orgId, name, version);
    if (!found) throw notFound();
    if (!found.sealed) throw problems.resourceNotFound('State version');
    return this.#open(orgId, name, found.sealed);
  }

  write(orgId: string, name: string, write: StateWrite, actor: IacActor, context: AuditContext | undefined): Promise<IacStateVersion> {
    const facts = readStateDocument(write.raw, write.contentMd5);
    return this.repo.transaction(async (trx) => {
      const state = await this.repo.lockOrCreate(trx, orgId, name, actor.subject);
      if (heldFrom(state, actor.runToken?.runId)) throw stateHeld(state);
      if (write.lockId !== undefined && state.lock_id !== write.lockId) throw lockMismatch(state, write.lockId);
      if (write.lockId === undefined && state.lock_id !== null) throw stateLocked(state);
      return this.#addVersion(
        trx,
        state,
        write.raw,
        facts,
        { source: 'backend', rolledBackFrom: null },
        actor,
        context,
        'iac_state.written',
      );
    });
  }

  /** A document written outside the backend (`import`, a bearer caller): refused while the state is locked. */
  import(
    orgId: string,
    name: string,
    raw: Buffer,
    contentMd5: string | undefined,
    actor: IacActor,
    context: AuditContext | undefined,
  ): Promise<IacStateVersion> {
    const facts = readStateDocument(raw, contentMd5);
    return this.repo.transaction(async (trx) => {
      const state = await this.repo.lockOrCreate(trx, orgId, name, actor.subject);
      if (heldFrom(state, undefined)) throw stateHeld(state);
      if (state.lock_id !== null) throw stateLocked(state);
      return this.#addVersion(trx, state, raw, facts, { source: 'import', rolledBackFrom: null }, actor, context, 'iac_state.imported');
    });
  }

  /** A new version holding an earlier version's document; refused while the state is locked. */
  rollback(orgId: string, name: string, version: number, actor: IacActor, context: AuditContext | undefined): Promise<IacStateVersion> {
    return this.repo.transaction(async (trx) => {
      const state = await this.repo.lock(trx, orgId, name);
      if (!state) throw notFound();
      if (heldFrom(state, undefined)) throw stateHeld(state);
      if (state.lock_id !== null) throw stateLocked(state);
      const sealed = await this.repo.sealed(trx, state.id, version);
      if (!sealed) throw problems.resourceNotFound('State version');
      const raw = this.#open(orgId, name, sealed);
      const facts = readStateDocument(raw, undefined);
      return this.#addVersion(
        trx,
        state,
        raw,
        facts,
        { source: 'rollback', rolledBackFrom: version },
        actor,
        context,
        'iac_state.rolled_back',
      );
    });
  }

  /** Takes the lock; the holder asking again with the same ID keeps it. Another holder's: 423 with its info. */
  lock(orgId: string, name: string, info: LockInfo, actor: IacActor, context: AuditContext | undefined): Promise<IacState> {
    return this.repo.transaction(async (trx) => {
      const state = await this.repo.lockOrCreate(trx, orgId, name, actor.subject);
      if (heldFrom(state, actor.runToken?.runId)) throw stateHeld(state);
      if (state.lock_id !== null && !sameLock(state, info)) throw stateLocked(state);
      if (state.lock_id === null) {
        const holder = { by: actor.subject, runId: actor.runToken?.runId ?? null, stepId: actor.runToken?.stepId ?? null };
        await this.repo.setLock(trx, state.id, info, holder);
        await recordIacEvent(this.audit, context, trx, state, {
          eventType: 'iac_state.locked',
          action: 'iac_state:write',
          details: {
            lock_id: info.ID,
            operation: info.Operation ?? null,
          },
        });
      }
      return stateView((await this.repo.summaryIn(trx, state.id))!);
    });
  }

  /** The holder lets its lock go (`info.ID` must be the lock); an unlocked state stays as it is. */
  unlock(orgId: string, name: string, info: LockInfo, context: AuditContext | undefined): Promise<IacState> {
    return this.repo.transaction(async (trx) => {
      const state = await this.repo.lock(trx, orgId, name);
      if (!state) throw notFound();
      if (state.lock_id !== null) {
        if (!sameLock(state, info)) throw lockMismatch(state, info.ID);
        await this.repo.clearLock(trx, state.id);
        await recordIacEvent(this.audit, context, trx, state, {
          eventType: 'iac_state.unlocked',
          action: 'iac_state:write',
          details: { lock_id: info.ID },
        });
      }
      return stateView((await this.repo.summaryIn(trx, state.id))!);
    });
  }

  /** Removes whatever lock is held and ends a run's hold (an admin's force-unlock); the caller's right to force is checked by the route. */
  forceUnlock(orgId: string, name: string, action: string, context: AuditContext | undefined): Promise<IacState> {
    return this.repo.transaction(async (trx) => {
      const state = await this.repo.lock(trx, orgId, name);
      if (!state) throw notFound();
      if (state.lock_id !== null || state.hold_run_id !== null) {
        if (state.lock_id !== null) await this.repo.clearLock(trx, state.id);
        if (state.hold_run_id !== null) await this.repo.clearHold(trx, state.id);
        const hold = state.hold_run_id === null ? null : { run_id: state.hold_run_id, step_id: state.hold_step_id, held_at: state.held_at };
        await recordIacEvent(this.audit, context, trx, state, {
          eventType: 'iac_state.force_unlocked',
          action,
          details: { lock_id: state.lock_id, lock: state.lock_json, hold },
        });
      }
      return stateView((await this.repo.summaryIn(trx, state.id))!);
    });
  }

  /** Deletes the state and every version (no restore); refused while it is locked. */
  delete(orgId: string, name: string, context: AuditContext | undefined): Promise<void> {
    return this.repo.transaction(async (trx) => {
      const state = await this.repo.lock(trx, orgId, name);
      if (!state) throw notFound();
      if (heldFrom(state, undefined)) throw stateHeld(state);
      if (state.lock_id !== null) throw stateLocked(state);
      const versions = await this.repo.delete(trx, state.id);
      await recordIacEvent(this.audit, context, trx, state, {
        eventType: 'iac_state.deleted',
        action: 'iac_state:manage',
        details: { versions },
      });
    });
  }

  async get(orgId: string, name: string): Promise<IacState> {
    const row = await this.repo.summary(orgId, name);
    if (!row) throw notFound();
    return stateView(row);
  }

  async list(orgId: string, q: string | undefined, page: { limit: number; offset: number }): Promise<IacStateList> {
    const { rows, total } = await this.repo.list(orgId, q, page);
    return { items: rows.map(stateView), total, ...page };
  }

  async versions(orgId: string, name: string, page: { limit: number; offset: number }): Promise<IacStateVersionList> {
    const state = await this.repo.summary(orgId, name);
    if (!state) throw notFound();
    const { rows, total } = await this.repo.versions(state.id, page);
    return { items: rows.map(versionView), total, ...page };
  }

  async #addVersion(
    trx: IacTx,
    state: IacStateRow,
    raw: Buffer,
    facts: DocumentFacts,
    how: { source: IacVersionRow['source']; rolledBackFrom: number | null },
    actor: IacActor,
    context: AuditContext | undefined,
    eventType: string,
  ): Promise<IacStateVersion> {
    const version = state.latest_version + 1;
    const sealed = this.#seal(raw, state.org_id, state.name, version);
    const row = await this.repo.insertVersion(trx, {
      state_id: state.id,
      version,
      serial: facts.serial,
      lineage: facts.lineage,
      size: facts.size,
      sha256: facts.sha256,
      source: how.source,
      rolled_back_from: how.rolledBackFrom,
      created_by: actor.subject,
      run_id: actor.runToken?.runId ?? null,
      step_id: actor.runToken?.stepId ?? null,
      key_id: sealed.keyId,
      nonce: sealed.nonce,
      ciphertext: sealed.ciphertext,
      auth_tag: sealed.tag,
    });
    await recordIacEvent(this.audit, context, trx, state, {
      eventType,
      action: 'iac_state:write',
      details: {
        version,
        serial: facts.serial,
        lineage: facts.lineage,
        size: facts.size,
        sha256: facts.sha256,
        ...(how.rolledBackFrom !== null ? { rolled_back_from: how.rolledBackFrom } : {}),
      },
    });
    return versionView(row);
  }

  #seal(raw: Buffer, orgId: string, name: string, version: number) {
    try {
      return this.sealer.seal(raw, PURPOSE, orgId, name, String(version));
    } catch (error) {
      if (error instanceof SealError) throw problem('iac_state_unreadable', `State ${name} cannot be sealed: ${error.message}.`);
      throw error;
    }
  }

  #open(orgId: string, name: string, sealed: SealedVersionRow & { version: number }): Buffer {
    try {
      return this.sealer.open(
        { keyId: sealed.key_id, nonce: sealed.nonce, ciphertext: sealed.ciphertext, tag: sealed.auth_tag },
        PURPOSE,
        orgId,
        name,
        String(sealed.version),
      );
    } catch (error) {
      if (error instanceof SealError)
        throw problem('iac_state_unreadable', `Version ${sealed.version} of state ${name} cannot be read: ${error.message}.`);
      throw error;
    }
  }
}
