import type { IncomingMessage } from 'node:http';
import { TokenBucket, type Clock, type TakeResult } from './token-bucket.js';

const TAKEN: TakeResult = { ok: true };

/**
 * The global ingress backstop: one bucket for every trigger request this instance receives
 * (`webhook_global_ingress_per_minute`). Two places ask it, the front door in front of Koa and the trigger
 * itself (for a request the front door passes to Koa unexamined), so a request is charged once however
 * often it is asked.
 */
export class IngressBackstop {
  readonly #bucket: TokenBucket;
  readonly #charged = new WeakSet<IncomingMessage>();

  constructor(perMinute: number, now?: Clock) {
    this.#bucket = new TokenBucket(perMinute, now);
  }

  charge(request: IncomingMessage): TakeResult {
    if (this.#charged.has(request)) return TAKEN;
    const taken = this.#bucket.take();
    if (taken.ok) this.#charged.add(request);
    return taken;
  }
}
