import { AddressPolicy } from '../shared/net/address-policy.js';
import { OutboundHttp } from '../shared/net/outbound-http.js';
import { NotificationDelivery } from '../shared/notifications/delivery.js';

/** How far a step may reach beyond the daemon: SERVICE_OUTBOUND_ALLOWED_NETWORKS and SERVICE_OUTBOUND_TIMEOUT_MS, as the daemon reads them. */
export interface OutboundSettings {
  readonly outboundAllowedNetworks: readonly string[];
  readonly outboundTimeoutMs: number;
}

/** Public addresses only, ten seconds: the daemon's defaults. */
export const DEFAULT_OUTBOUND: OutboundSettings = { outboundAllowedNetworks: [], outboundTimeoutMs: 10_000 };

/** What the worker lends the steps it runs to reach user-configured targets, and how to let go of it. */
export interface StepOutbound {
  readonly notifications: NotificationDelivery;
  close(): void;
}

/**
 * The worker's outbound guard (src/shared/net/outbound-http.ts) and the notification delivery behind it:
 * a `flow.notify` step reaches only what the daemon's own sends may (docs/worker.md).
 */
export function stepOutbound(settings: OutboundSettings): StepOutbound {
  const guard = new OutboundHttp({ allowedNetworks: settings.outboundAllowedNetworks, timeoutMs: settings.outboundTimeoutMs });
  const notifications = new NotificationDelivery({
    outbound: (url, request) => guard.request(url, request),
    smtpTimeoutMs: settings.outboundTimeoutMs,
    smtpAddresses: new AddressPolicy(settings.outboundAllowedNetworks),
    now: () => new Date(),
  });
  return { notifications, close: () => guard.close() };
}
