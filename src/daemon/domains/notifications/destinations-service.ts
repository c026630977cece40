import type {
  CreateDestinationBody,
  Destination,
  DestinationList,
  FlowDefaults,
  TestAnswer,
  UpdateDestinationBody,
} from '../../../shared/api/notifications.js';
import { problems } from '../../../shared/api/problems.js';
import { isUuid } from '../../../shared/ids.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import type { SecretResolver } from '../secrets/secret-resolver.js';
import { checkedConfig, checkedKind, resolveSecrets } from './destination-config.js';
import { destinationAuditView, destinationView } from './destination-view.js';
import { isNameTaken, type DestinationFilter, type DestinationRow, type DestinationsRepo } from './destinations-repo.js';
import type { NotificationTester } from './notification-tester.js';
import type { Knex } from 'knex';
import { eventSet } from './event-set.js';

export interface OrgRef {
  readonly id: string;
  readonly slug: string;
}

const RESOURCE = 'notification_destination';
const MANAGE = 'notification_destination:manage';

const notFound = () => problems.resourceNotFound('Notification destination');
const nameTaken = (name: string) => problems.conflict(`A notification destination of this organization is already named "${name}".`);

/**
 * Destinations of the active organization (`notification_destination:*`). A kind's config is checked by
 * its schema and its secret references resolved in the organization before anything is stored, so a
 * destination that is stored can be sent to. Every change is audited in its transaction.
 */
export class DestinationsService {
  constructor(
    private readonly repo: DestinationsRepo,
    private readonly secrets: SecretResolver,
    private readonly audit: AuditWriter,
    private readonly tester: NotificationTester,
  ) {}

  async list(org: OrgRef, filter: DestinationFilter): Promise<DestinationList> {
    const { rows, total } = await this.repo.list(org.id, filter);
    return { items: rows.map(destinationView), total, limit: filter.limit, offset: filter.offset };
  }

  async get(org: OrgRef, id: string): Promise<Destination> {
    return destinationView(await this.live(org, id));
  }

  async flowDefaults(org: OrgRef): Promise<FlowDefaults> {
    const rows = await this.repo.withDefaults(org.id);
    return {
      items: rows.map((row) => ({
        destination_id: row.id,
        name: row.name,
        kind: row.kind,
        events: row.default_events,
        enabled: row.enabled,
      })),
    };
  }

  async create(org: OrgRef, input: CreateDestinationBody, context: AuditContext | undefined): Promise<Destination> {
    const kind = checkedKind(input.kind);
    const config = checkedConfig(kind, input.config);
    await resolveSecrets(this.secrets, org.id, kind, config);
    const by = context?.subject ?? null;
    return this.write(input.name, async (trx) => {
      const row = await this.repo.insert(trx, {
        org_id: org.id,
        name: input.name,
        description: input.description ?? null,
        kind,
        config_json: JSON.stringify(config),
        enabled: input.enabled ?? true,
        default_events: JSON.stringify(eventSet(input.default_events ?? [])),
        created_by: by,
        updated_by: by,
      });
      await this.record(trx, context, 'entity.created', MANAGE, row, { destination: destinationAuditView(row) });
      return destinationView(row);
    });
  }

  async update(org: OrgRef, id: string, input: UpdateDestinationBody, context: AuditContext | undefined): Promise<Destination> {
    const current = await this.live(org, id);
    const change: Record<string, unknown> = {};
    if (input.config !== undefined) {
      const config = checkedConfig(current.kind, input.config);
      await resolveSecrets(this.secrets, org.id, current.kind, config);
      change.config_json = JSON.stringify(config);
    }
    if (input.name !== undefined) change.name = input.name;
    if (input.description !== undefined) change.description = input.description;
    if (input.enabled !== undefined) change.enabled = input.enabled;
    if (input.default_events !== undefined) change.default_events = JSON.stringify(eventSet(input.default_events));
    return this.write(input.name ?? current.name, async (trx) => {
      const locked = await this.repo.lock(trx, org.id, id);
      if (!locked || locked.deleted_at) throw notFound();
      const row = await this.repo.update(trx, id, { ...change, updated_by: context?.subject ?? null });
      await this.record(trx, context, 'entity.updated', MANAGE, row, {
        changed: Object.keys(input).sort(),
        destination: destinationAuditView(row),
      });
      return destinationView(row);
    });
  }

  /** A copy of a live destination under a new name (`<name> (copy)` unless given), its references as they are. */
  async duplicate(org: OrgRef, id: string, name: string | undefined, context: AuditContext | undefined): Promise<Destination> {
    const source = await this.live(org, id);
    const copyName = name ?? copyOf(source.name);
    const by = context?.subject ?? null;
    return this.write(copyName, async (trx) => {
      const row = await this.repo.insert(trx, {
        org_id: org.id,
        name: copyName,
        description: source.description,
        kind: source.kind,
        config_json: JSON.stringify(source.config_json),
        enabled: source.enabled,
        default_events: JSON.stringify(source.default_events),
        created_by: by,
        updated_by: by,
      });
      await this.record(trx, context, 'entity.created', MANAGE, row, { duplicate_of: source.id, destination: destinationAuditView(row) });
      return destinationView(row);
    });
  }

  async remove(org: OrgRef, id: string, context: AuditContext | undefined): Promise<void> {
    await this.change(org, id, { deleted: false }, async (trx, row) => {
      await this.repo.softDelete(trx, id, context?.subject ?? null);
      await this.record(trx, context, 'entity.deleted', MANAGE, row, { name: row.name });
    });
  }

  /** A restored destination takes its name back, unless a live one has taken it meanwhile (409). */
  async restore(org: OrgRef, id: string, context: AuditContext | undefined): Promise<Destination> {
    let restored: DestinationRow | undefined;
    let name = '';
    try {
      await this.change(org, id, { deleted: true }, async (trx, locked) => {
        name = locked.name;
        restored = await this.repo.restore(trx, id, context?.subject ?? null);
        await this.record(trx, context, 'entity.restored', MANAGE, locked, { destination: destinationAuditView(locked) });
      });
    } catch (error) {
      if (isNameTaken(error)) throw nameTaken(name);
      throw error;
    }
    return destinationView(restored!);
  }

  async purge(org: OrgRef, id: string, context: AuditContext | undefined): Promise<void> {
    await this.change(org, id, { deleted: undefined }, async (trx, row) => {
      await this.repo.purge(trx, id);
      await this.record(trx, context, 'entity.purged', 'notification_destination:purge', row, { destination: destinationAuditView(row) });
    });
  }

  /** `POST …/{id}/test`: a real message to a live destination, and what its receiver answered. */
  async test(org: OrgRef, id: string, text: { title?: string; message?: string }, context: AuditContext | undefined): Promise<TestAnswer> {
    const row = await this.live(org, id);
    const answer = await this.tester.send(org.id, row.kind, row.config_json, text);
    await this.audit.record(context, {
      eventType: 'notification_destination.tested',
      action: 'notification_destination:test',
      resourceType: RESOURCE,
      resourceId: row.id,
      outcome: answer.delivered ? 'success' : 'failure',
      orgId: org.id,
      details: { kind: row.kind, outcome: answer.outcome, status_code: answer.status_code, reason: answer.reason },
    });
    return answer;
  }

  /** `POST …/test-config`: the same for a destination not stored, checked as a create would check it. */
  async testConfig(org: OrgRef, input: CreateDestinationBody, context: AuditContext | undefined): Promise<TestAnswer> {
    const kind = checkedKind(input.kind);
    const config = checkedConfig(kind, input.config);
    await resolveSecrets(this.secrets, org.id, kind, config);
    const answer = await this.tester.send(org.id, kind, config, {});
    await this.audit.record(context, {
      eventType: 'notification_destination.tested',
      action: 'notification_destination:test',
      resourceType: RESOURCE,
      resourceId: undefined,
      outcome: answer.delivered ? 'success' : 'failure',
      orgId: org.id,
      details: { kind, outcome: answer.outcome, status_code: answer.status_code, reason: answer.reason },
    });
    return answer;
  }

  /** The organization's live destination; 404 for a foreign, malformed, unknown or deleted id. */
  private async live(org: OrgRef, id: string): Promise<DestinationRow> {
    const row = isUuid(id) ? await this.repo.find(org.id, id) : undefined;
    if (!row || row.deleted_at) throw notFound();
    return row;
  }

  /** Runs a write in a transaction; the live-name index's refusal becomes 409 `conflict`. */
  private async write<T>(name: string, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    try {
      return await this.repo.transaction(work);
    } catch (error) {
      if (isNameTaken(error)) throw nameTaken(name);
      throw error;
    }
  }

  private async change(
    org: OrgRef,
    id: string,
    want: { deleted: boolean | undefined },
    work: (trx: Knex.Transaction, row: DestinationRow) => Promise<void>,
  ): Promise<void> {
    if (!isUuid(id)) throw notFound();
    await this.repo.transaction(async (trx) => {
      const row = await this.repo.lock(trx, org.id, id);
      if (!row || (want.deleted !== undefined && (row.deleted_at !== null) !== want.deleted)) throw notFound();
      await work(trx, row);
    });
  }

  private async record(
    trx: Knex.Transaction,
    context: AuditContext | undefined,
    eventType: string,
    action: string,
    row: DestinationRow,
    details: Record<string, unknown>,
  ): Promise<void> {
    await this.audit.record(
      context,
      { eventType, action, resourceType: RESOURCE, resourceId: row.id, outcome: 'success', orgId: row.org_id, details },
      trx,
    );
  }
}

/** The longest name a destination takes. */
const MAX_NAME = 255;
const COPY_SUFFIX = ' (copy)';

/** `<name> (copy)`, the name cut (by character) so that the suffix fits: cutting the suffix instead could give the name itself. */
function copyOf(name: string): string {
  return `${[...name].slice(0, MAX_NAME - COPY_SUFFIX.length).join('')}${COPY_SUFFIX}`;
}
