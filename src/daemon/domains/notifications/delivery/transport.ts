import { lookup } from 'node:dns/promises';
import { createTransport } from 'nodemailer';
import type { AddressPolicy } from '../../../net/address-policy.js';
import type { DestinationKind } from '../../../../shared/api/notifications.js';
import { IDEMPOTENCY_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, signPayload } from '../../../../shared/webhooks/signing.js';
import { SecretBackendError, SecretReferenceError, type SecretResolver } from '../../secrets/secret-resolver.js';
import { secretRefsOf } from '../destination-config.js';
import { httpResult, smtpResult, type AttemptResult } from './attempt-result.js';
import { describe, httpBody, type NotificationPayload } from './message.js';
import { isPermanentOutboundReason, outboundReason, type OutboundSend } from './outbound.js';

/** What a receiver's answer body may be read up to: only its first words are recorded. */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface TransportOptions {
  /** Limit of an SMTP exchange's steps (connection, greeting, each reply). */
  readonly smtpTimeoutMs: number;
  /** Which addresses an SMTP server may have (the outbound guard's policy and allow-list). */
  readonly smtpAddresses: Pick<AddressPolicy, 'allows'>;
  /** Unix time the webhook signature's timestamp is taken from. */
  readonly now: () => Date;
}

/** One destination's settings, as stored (references, never values). */
export interface SendTarget {
  readonly orgId: string;
  readonly kind: DestinationKind;
  readonly config: Readonly<Record<string, unknown>>;
}

/**
 * Sends one message to one destination and says how it went, never throwing for the receiver's or the
 * network's failures: the secret references are resolved in the destination's organization at send time,
 * HTTP kinds go through the outbound guard (a redirect is an answer, not followed), e-mail through
 * nodemailer. The idempotency key rides in `X-Idempotency-Key` (and the e-mail's Message-ID).
 */
export class NotificationTransport {
  constructor(
    private readonly secrets: SecretResolver,
    private readonly outbound: OutboundSend,
    private readonly options: TransportOptions,
  ) {}

  async send(target: SendTarget, payload: NotificationPayload, key: string): Promise<AttemptResult> {
    const resolved = await this.#resolve(target);
    if (resolved.failed) return resolved.failed;
    if (target.kind === 'email') return this.#email(target.config, resolved.values, payload, key);
    return this.#http(target, resolved.values, payload, key);
  }

  async #resolve(target: SendTarget): Promise<{ values: Record<string, string>; failed?: undefined } | { failed: AttemptResult }> {
    const values: Record<string, string> = {};
    for (const [field, reference] of Object.entries(secretRefsOf(target.kind, target.config))) {
      try {
        values[field] = await this.secrets.resolveReference(target.orgId, reference);
      } catch (error) {
        if (error instanceof SecretReferenceError)
          return {
            failed: { outcome: 'permanent', statusCode: null, reason: 'secret_reference', detail: `config.${field}: ${error.problem}` },
          };
        if (error instanceof SecretBackendError)
          return { failed: { outcome: 'transient', statusCode: null, reason: 'secret_backend', detail: 'the secret backend failed' } };
        throw error;
      }
    }
    return { values };
  }

  async #http(target: SendTarget, secrets: Record<string, string>, payload: NotificationPayload, key: string): Promise<AttemptResult> {
    const kind = target.kind as Exclude<DestinationKind, 'email'>;
    const url = typeof target.config.url === 'string' ? target.config.url : (secrets.url_ref ?? secrets.webhook_url_ref ?? '');
    const body = httpBody(kind, payload, key, target.config);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'svc-notifications',
      [IDEMPOTENCY_HEADER.toLowerCase()]: key,
    };
    if (secrets.signing_secret_ref !== undefined) {
      const timestamp = String(Math.floor(this.options.now().getTime() / 1000));
      headers[TIMESTAMP_HEADER.toLowerCase()] = timestamp;
      headers[SIGNATURE_HEADER.toLowerCase()] = signPayload(secrets.signing_secret_ref, timestamp, Buffer.from(body, 'utf8'));
    }
    try {
      const answer = await this.outbound(url, { method: 'POST', headers, body, maxResponseBytes: MAX_ANSWER_BYTES });
      const text = await answer.text().catch(() => '');
      return httpResult(answer.status, text);
    } catch (error) {
      const reason = outboundReason(error) ?? 'connect_failed';
      return { outcome: isPermanentOutboundReason(reason) ? 'permanent' : 'transient', statusCode: null, reason, detail: null };
    }
  }

  async #email(
    config: Readonly<Record<string, unknown>>,
    secrets: Record<string, string>,
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
