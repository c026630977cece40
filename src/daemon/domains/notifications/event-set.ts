import type { NotificationEvent } from '../../../shared/api/notifications.js';

/** Events as a set, in the order given: an event named twice is sent once and listed once (subscriptions, a destination's defaults). */
export function eventSet(events: readonly NotificationEvent[]): NotificationEvent[] {
  return [...new Set(events)];
}
