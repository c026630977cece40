import type { Subscription } from '../../../shared/api/notifications.js';
import type { SubscriptionRow } from './subscriptions-repo.js';

export function subscriptionView(row: SubscriptionRow): Subscription {
  return {
    id: row.id,
    org_id: row.org_id,
    flow_id: row.flow_id,
    destination_id: row.destination_id,
    destination_name: row.destination_name,
    destination_kind: row.destination_kind,
    events: row.events,
    enabled: row.enabled,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    created_by: row.created_by,
    updated_by: row.updated_by,
  };
}
