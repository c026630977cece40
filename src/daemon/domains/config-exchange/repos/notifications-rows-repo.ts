import type { Knex } from 'knex';

export interface DestinationRow {
  readonly name: string;
  readonly description: string | null;
  readonly kind: string;
  readonly config_json: Record<string, unknown>;
  readonly enabled: boolean;
  readonly default_events: string[];
}

export interface SubscriptionRow {
  readonly flow_name: string;
  readonly destination_name: string;
  readonly events: string[];
  readonly enabled: boolean;
}

type Fields = Record<string, unknown>;

/**
 * An organization's live notification destinations and its flows' subscriptions to them, by name, on the
 * handle it is given. Destinations are soft deleted (as their routes do), subscriptions deleted outright.
 */
export class NotificationsRowsRepo {
  async destinations(db: Knex, orgId: string): Promise<DestinationRow[]> {
    return db('notification_destinations')
      .where({ org_id: orgId })
      .whereNull('deleted_at')
      .select('name', 'description', 'kind', 'config_json', 'enabled', 'default_events');
  }

  async destinationId(db: Knex, orgId: string, name: string): Promise<string | undefined> {
    const row = await db('notification_destinations').where({ org_id: orgId, name }).whereNull('deleted_at').forUpdate().first('id');
    return (row as { id: string } | undefined)?.id;
  }

  /** Whether a live destination of the organization has `name` regardless of case (the live-name index is on lower(name)). */
  async destinationNameTaken(db: Knex, orgId: string, name: string): Promise<boolean> {
    const row = await db('notification_destinations')
      .where({ org_id: orgId })
      .whereRaw('lower(name) = lower(?)', [name])
      .whereNull('deleted_at')
      .first('id');
    return row !== undefined;
  }

  async insertDestination(db: Knex, orgId: string, fields: Fields, by: string | null): Promise<string> {
    return inserted(db, 'notification_destinations', orgId, fields, by);
  }

  async updateDestination(db: Knex, id: string, fields: Fields, by: string | null): Promise<void> {
    await updated(db, 'notification_destinations', id, fields, by);
  }

  async softDeleteDestination(db: Knex, id: string, by: string | null): Promise<void> {
    await db('notification_destinations').where({ id }).update({ deleted_at: db.fn.now(), deleted_by: by });
  }

  /** The organization's subscriptions to its live destinations, on live flows (its own or the shared organization's). */
  async subscriptions(db: Knex, orgId: string): Promise<SubscriptionRow[]> {
    return db('flow_notification_subscriptions as s')
      .join('flows as f', 'f.id', 's.flow_id')
      .join('notification_destinations as d', 'd.id', 's.destination_id')
      .where('s.org_id', orgId)
      .whereNull('f.deleted_at')
      .whereNull('d.deleted_at')
      .select('f.name as flow_name', 'd.name as destination_name', 's.events', 's.enabled');
  }

  async subscriptionId(db: Knex, orgId: string, flowId: string, destinationId: string): Promise<string | undefined> {
    const row = await db('flow_notification_subscriptions')
      .where({ org_id: orgId, flow_id: flowId, destination_id: destinationId })
      .forUpdate()
      .first('id');
    return (row as { id: string } | undefined)?.id;
  }

  async insertSubscription(db: Knex, orgId: string, fields: Fields, by: string | null): Promise<string> {
    return inserted(db, 'flow_notification_subscriptions', orgId, fields, by);
  }

  async updateSubscription(db: Knex, id: string, fields: Fields, by: string | null): Promise<void> {
    await updated(db, 'flow_notification_subscriptions', id, fields, by);
  }

  async deleteSubscription(db: Knex, id: string): Promise<void> {
    await db('flow_notification_subscriptions').where({ id }).delete();
  }
}

async function inserted(db: Knex, table: string, orgId: string, fields: Fields, by: string | null): Promise<string> {
  const [row] = await db(table)
    .insert({ ...jsonOf(fields), org_id: orgId, created_by: by, updated_by: by })
    .returning('id');
  return (row as { id: string }).id;
}

async function updated(db: Knex, table: string, id: string, fields: Fields, by: string | null): Promise<void> {
  await db(table)
    .where({ id })
    .update({ ...jsonOf(fields), updated_by: by, updated_at: db.fn.now() });
}

/** JSON columns sent as JSON text (pg would send an array as a PostgreSQL array literal). */
function jsonOf(fields: Fields): Fields {
  const row = { ...fields };
  for (const column of ['config_json', 'default_events', 'events']) if (column in row) row[column] = JSON.stringify(row[column]);
  return row;
}
