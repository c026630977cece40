import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { DomainRoutes } from '../../http/types.js';
import { AddressPolicy } from '../../../shared/net/address-policy.js';
import type { Services } from '../../services.js';
import type { MaintenanceJob } from '../maintenance/job.js';
import type { SecretResolver } from '../secrets/secret-resolver.js';
import type { OutboundSend } from '../../../shared/notifications/outbound.js';
import { NotificationSender } from './delivery/sender.js';
import { NotificationTransport } from './delivery/transport.js';
import { DestinationsRepo } from './destinations-repo.js';
import { DestinationsService } from './destinations-service.js';
import { InternalNotifications } from './internal-service.js';
import { NotificationTester } from './notification-tester.js';
import { OutboxRepo } from './outbox-repo.js';
import { HOUSEKEEPING_BATCH, retentionJob } from '../maintenance/housekeeping-jobs.js';
import { destinationRoutes } from './routes.js';
import { internalNotificationRoutes, subscriptionRoutes } from './subscription-routes.js';
import { SubscriptionsRepo } from './subscriptions-repo.js';
import { SubscriptionsService } from './subscriptions-service.js';

/** A claimed message is its sender's this long before another instance may take it over (a send is limited far below it). */
const LEASE_MS = 120_000;

export interface NotificationsModule {
  readonly routes: readonly DomainRoutes[];
  readonly sender: NotificationSender;
  /** `notifications.deliver_due`: the sender's pass, a backstop where the loop is off or asleep. */
  readonly maintenanceJobs: readonly MaintenanceJob[];
  /** Starts the sender loop, unless SERVICE_NOTIFICATION_SENDER_ENABLED is off. */
  start(): void;
  stop(): Promise<void>;
}

export interface NotificationsOptions {
  /** "Now" for retries, leases and signatures (tests set their own). */
  readonly clock?: () => Date;
  /** Backoff jitter's draw in [0, 1) (tests fix it). */
  readonly random?: () => number;
}

/** Notifications: destinations, flow subscriptions, the outbox's sender, and what `flow.notify` reads; docs/notifications.md. */
export function notificationsModule(
  services: Services,
  core: { secrets: SecretResolver; outbound: OutboundSend },
  options: NotificationsOptions = {},
): NotificationsModule {
  const { config, db, log } = services;
  const clock = options.clock ?? (() => new Date());
  const destinations = new DestinationsRepo(db.knex);
  const subscriptions = new SubscriptionsRepo(db.knex);
  // SMTP is held to the outbound guard's rules too: its time limit, and its address policy on the server's addresses.
  const transport = new NotificationTransport(core.secrets, core.outbound, {
    smtpTimeoutMs: config.outboundTimeoutMs,
    smtpAddresses: new AddressPolicy(config.outboundAllowedNetworks),
    now: clock,
  });
  const outbox = new OutboxRepo(db.knex);
  const sender = new NotificationSender(
    outbox,
    transport,
    log,
    {
      maxAttempts: config.notificationMaxAttempts,
      baseSeconds: config.notificationRetryBaseSeconds,
      maxSeconds: config.notificationRetryMaxSeconds,
      pollSeconds: config.notificationPollSeconds,
      leaseMs: LEASE_MS,
      instance: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
    },
    clock,
    options.random ?? Math.random,
  );
  const tester = new NotificationTester(transport, clock);
  return {
    routes: [
      destinationRoutes(new DestinationsService(destinations, core.secrets, services.audit, tester)),
      subscriptionRoutes(new SubscriptionsService(subscriptions, services.orgAccess, services.audit)),
      internalNotificationRoutes(new InternalNotifications(destinations, subscriptions, core.secrets)),
    ],
    sender,
    maintenanceJobs: [
      { name: 'notifications.deliver_due', run: () => sender.deliverDue() },
      retentionJob('notifications.retention', config.notificationRetentionDays, (before) =>
        outbox.deleteFinishedBefore(before, HOUSEKEEPING_BATCH),
      ),
    ],
    start: () => {
      if (config.notificationSenderEnabled) sender.start(db);
    },
    stop: () => sender.stop(),
  };
}
