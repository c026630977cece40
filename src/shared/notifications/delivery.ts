import { lookup } from 'node:dns/promises';
import { createTransport } from 'nodemailer';
import type { DestinationKind } from '../api/notifications.js';
import type { AddressPolicy } from '../net/address-policy.js';
import { IDEMPOTENCY_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, signPayload } from '../webhooks/signing.js';
import { httpResult, smtpResult, type AttemptResult } from './attempt-result.js';
import { describe, httpBody, type NotificationPayload } from './message.js';
import { isPermanentOutboundReason, outboundReason, type OutboundSend } from './outbound.js';

/** What a receiver's answer body may be read up to: only its first words are recorded. */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface DeliveryOptions {
  /** HTTP kinds: the outbound guard's request (src/shared/net/outbound-http.ts). */
  readonly outbound: OutboundSend;
  /** Limit of an SMTP exchange's steps (connection, greeting, each reply). */
  readonly smtpTimeoutMs: number;
  /** Which addresses an SMTP server may have (the outbound guard's policy and allow-list). */
  readonly smtpAddresses: Pick<AddressPolicy, 'allows'>;
  /** Unix time the webhook signature's timestamp is taken from. */
  readonly now: () => Date;
}

/** A destination ready to send to: its kind, its settings as stored, and its secret references' values by field. */
export interface ResolvedDestination {
  readonly kind: DestinationKind;
  readonly config: Readonly<Record<string, unknown>>;
  readonly credentials: Readonly<Record<string, string>>;
}

/**
 * Sends one message to one destination whose secrets are already resolved, and says how it went, never
 * throwing for the receiver's or the network's failures. The daemon's sender (which resolves the
 * references itself) and the worker's `flow.notify` (which reads them resolved from the daemon) send
 * through this one class, so a receiver sees the same body, signature and idempotency key from both:
 * HTTP kinds go through the outbound guard (a redirect is an answer, not followed), e-mail through
 * nodemailer to an address the policy checked. The key rides in `X-Idempotency-Key` (and the Message-ID).
 */
export class NotificationDelivery {
  constructor(private readonly options: DeliveryOptions) {}

  send(destination: ResolvedDestination, payload: NotificationPayload, key: string): Promise<AttemptResult> {
    if (destination.kind === 'email') return this.#email(destination.config, destination.credentials, payload, key);
    return this.#http(destination, payload, key);
  }

  async #http(destination: ResolvedDestination, payload: NotificationPayload, key: string): Promise<AttemptResult> {
    const { config, credentials } = destination;
    const kind = destination.kind as Exclude<DestinationKind, 'email'>;
    const url = typeof config.url === 'string' ? config.url : (credentials.url_ref ?? credentials.webhook_url_ref ?? '');
    const body = httpBody(kind, payload, key, config);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'svc-notifications',
      [IDEMPOTENCY_HEADER.toLowerCase()]: key,
    };
    if (credentials.signing_secret_ref !== undefined) {
      const timestamp = String(Math.floor(this.options.now().getTime() / 1000));
      headers[TIMESTAMP_HEADER.toLowerCase()] = timestamp;
      headers[SIGNATURE_HEADER.toLowerCase()] = signPayload(credentials.signing_secret_ref, timestamp, Buffer.from(body, 'utf8'));
    }
    try {
      const answer = await this.options.outbound(url, { method: 'POST', headers, body, maxResponseBytes: MAX_ANSWER_BYTES });
      const text = await answer.text().catch(() => '');
      return httpResult(answer.status, text);
    } catch (error) {
      const reason = outboundReason(error) ?? 'connect_failed';
      return { outcome: isPermanentOutboundReason(reason) ? 'permanent' : 'transient', statusCode: null, reason, detail: null };
    }
  }

  async #email(
    config: Readonly<Record<string, unknown>>,
    secrets: Readonly<Record<string, string>>,
    payload: NotificationPayload,
    key: string,
  ): Promise<AttemptResult> {
    const { title, text } = describe(payload);
    const security = config.smtp_security;
    const limit = this.options.smtpTimeoutMs;
    const host = String(config.smtp_host);
    const address = await this.#smtpAddress(host);
    if (typeof address !== 'string') return address;
    const transport = createTransport({
      // The checked address, so the connection goes where the policy looked; TLS still verifies the name.
      host: address,
      tls: { servername: host },
      port: Number(config.smtp_port),
      secure: security === 'tls',
      requireTLS: security === 'starttls',
      ignoreTLS: security === 'none',
      auth: typeof config.username === 'string' ? { user: config.username, pass: secrets.password_ref ?? '' } : undefined,
      connectionTimeout: limit,
      greetingTimeout: limit,
      socketTimeout: limit,
    });
    try {
      const sent = await transport.sendMail({
        from: String(config.from),
        to: config.to as string[],
        subject: title,
        text,
        messageId: `<${key}@notifications.svc>`,
        headers: { [IDEMPOTENCY_HEADER]: key },
      });
      return { outcome: 'delivered', statusCode: replyCode(sent.response) ?? 250, reason: null, detail: null };
    } catch (error) {
      const e = error as { responseCode?: number; response?: string; code?: string };
      if (typeof e.responseCode === 'number') return smtpResult(e.responseCode, e.response ?? '');
      return { outcome: 'transient', statusCode: null, reason: 'smtp_connection', detail: e.code ?? null };
    } finally {
      transport.close();
    }
  }

  /**
   * The SMTP server's first address when the policy allows every address the name resolves to (as the
   * outbound guard checks an HTTP target), else the refusal as the guard would name it.
   */
  async #smtpAddress(host: string): Promise<string | AttemptResult> {
    const refused = (reason: string): AttemptResult => ({
      outcome: reason === 'dns_failed' ? 'transient' : 'permanent',
      statusCode: null,
      reason,
      detail: null,
    });
    let addresses: { address: string }[];
    try {
      addresses = await lookup(host, { all: true });
    } catch {
      return refused('dns_failed');
    }
    if (addresses.length === 0 || addresses.some((entry) => !this.options.smtpAddresses.allows(entry.address)))
      return refused('address_not_allowed');
    return addresses[0]!.address;
  }
}

function replyCode(response: string | undefined): number | undefined {
  const match = /^(\d{3})/.exec(response ?? '');
  return match ? Number(match[1]) : undefined;
}
