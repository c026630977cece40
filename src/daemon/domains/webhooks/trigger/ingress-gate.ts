import type { IncomingMessage } from 'node:http';
import { CATALOGUE } from '../../../../shared/catalogue/catalogue.js';
import { answerEarly, type EarlyAnswerOptions } from '../../../http/early-answer.js';
import type { FrontDoorCheck } from '../../../http/front-door.js';
import { ProblemBodies } from '../../../http/middleware/problem-response.js';
import { TokenBucket, TokenBucketRegistry, type Clock } from '../../../webhooks/token-bucket.js';
import { refuse, type Refusal } from './refusals.js';

export interface IngressSettings {
  /** `webhook_global_ingress_per_minute`: one bucket for every trigger request of this instance. */
  readonly globalPerMinute: number;
  /** `webhook_ingress_limit_multiplier`: an endpoint's ingress rate is its delivery rate times this. */
  readonly ingressMultiplier: number;
}

export interface FrontDoorOptions extends Omit<EarlyAnswerOptions, 'bodies'> {
  readonly isDraining: () => boolean;
}

/** The limit a 429 names (`limit`), by the refusal's reason. */
const LIMITS = { global_backstop: 'global', endpoint_ingress: 'endpoint_ingress', rate_limited: 'endpoint_delivery' } as const;
type LimitReason = keyof typeof LIMITS;

const TRIGGER_ROUTE = CATALOGUE.routeByKey.get('POST /hooks/{path_token}')!;
const PREFIX = '/hooks/';
const SLASH = 47;
const PERCENT = 37;
const KNOWN_TOKENS_CAP = 100_000;
/** Distinct 429 answers kept: three limits times a wait of at most a minute. */
const ANSWERS_CAP = 1000;

/**
 * `POST /hooks/<token>` with the token as written (no further segment, nothing percent-encoded to decode):
 * a request whose route is sure without the request path's decoding and matching.
 */
function isPlainTriggerPath(url: string): boolean {
  if (!url.startsWith(PREFIX)) return false;
  const query = url.indexOf('?', PREFIX.length);
  const end = query < 0 ? url.length : query;
  if (end === PREFIX.length) return false;
  for (let i = PREFIX.length; i < end; i++) {
    const c = url.charCodeAt(i);
    if (c === SLASH || c === PERCENT) return false;
  }
  return true;
}

/**
 * The trigger's rate limits, all in memory and per instance as the spec says: the global ingress backstop
 * (charged at the server's front door, or by the trigger for a request the front door left), the
 * per-endpoint ingress buckets (keyed by path token, so a token seen before is charged before its lookup
 * and a flood on it costs no query) and the per-endpoint delivery buckets. Each check answers nothing, or
 * the refusal to throw; the 429s are made once per limit and wait, so a flood is answered with a few objects.
 */
export class IngressGate {
  readonly #global: TokenBucket;
  /** Requests the backstop let through: asked at the front door and again by the trigger, a request is charged once. */
  readonly #passed = new WeakSet<IncomingMessage>();
  readonly #ingress: TokenBucketRegistry;
  readonly #delivery: TokenBucketRegistry;
  /** Path token -> the endpoint and its rate as last looked up. */
  readonly #known = new Map<string, { readonly endpointId: string; readonly ratePerMinute: number }>();
  readonly #answers = new Map<string, Refusal>();
  readonly #bodies = new ProblemBodies();

  constructor(
    private readonly settings: IngressSettings,
    now?: Clock,
  ) {
    this.#global = new TokenBucket(settings.globalPerMinute, now);
    this.#ingress = new TokenBucketRegistry({ now });
    this.#delivery = new TokenBucketRegistry({ now });
  }

  /** Step 1, the global backstop. */
  chargeGlobal(request: IncomingMessage): Refusal | undefined {
    if (this.#passed.has(request)) return undefined;
    const taken = this.#global.take();
    if (!taken.ok) return this.#tooMany('global_backstop', taken.retryAfterSeconds);
    this.#passed.add(request);
    return undefined;
  }

  /** The rate a path token had when it was last looked up, if this instance has seen it. */
  knownRate(pathToken: string): number | undefined {
    return this.#known.get(pathToken)?.ratePerMinute;
  }

  /** Steps 3 and 4b, the endpoint's ingress limit: before its lookup for a known token, right after for a new one. */
  chargeIngress(pathToken: string, ratePerMinute: number): Refusal | undefined {
    const taken = this.#ingress.take(pathToken, ratePerMinute * this.settings.ingressMultiplier);
    return taken.ok ? undefined : this.#tooMany('endpoint_ingress', taken.retryAfterSeconds);
  }

  /** The endpoint a token led to, so its next request is charged before the lookup. */
  learn(pathToken: string, endpointId: string, ratePerMinute: number): void {
    const known = this.#known.get(pathToken);
    if (known?.endpointId === endpointId && known.ratePerMinute === ratePerMinute) return;
    this.#known.delete(pathToken);
    this.#known.set(pathToken, { endpointId, ratePerMinute });
    if (this.#known.size > KNOWN_TOKENS_CAP) this.#known.delete(this.#known.keys().next().value!);
  }

  /** A token that leads to no enabled endpoint. */
  unlearn(pathToken: string): void {
    this.#known.delete(pathToken);
  }

  /** Step 11, the endpoint's delivery limit. */
  meterDelivery(endpointId: string, ratePerMinute: number): Refusal | undefined {
    const taken = this.#delivery.take(endpointId, ratePerMinute);
    return taken.ok ? undefined : this.#tooMany('rate_limited', taken.retryAfterSeconds);
  }

  /** Gives a delivery token back: the request turned out to be a duplicate, which the spec does not meter. */
  returnDelivery(endpointId: string): void {
    this.#delivery.giveBack(endpointId);
  }

  /** An endpoint changed or went away: its tokens and buckets start afresh. */
  forget(endpointId: string): void {
    for (const [token, known] of this.#known) {
      if (known.endpointId === endpointId) {
        this.#known.delete(token);
        this.#ingress.delete(token);
      }
    }
    this.#delivery.delete(endpointId);
  }

  /**
   * The backstop at the server's front door: a trigger it sheds is answered before Koa makes a context,
   * so under a flood a refusal costs a fraction of an answered request. Only requests whose outcome is sure
   * without the request path are judged here: a plain trigger path while the instance is not draining.
   * The route is public and no override can change that (a structural policy), so the request path would
   * refuse nothing before the trigger. Anything else goes on to the trigger, whose first step asks again.
   */
  frontDoorCheck(options: FrontDoorOptions): FrontDoorCheck {
    const early = { log: options.log, trustProxyHeaders: options.trustProxyHeaders, bodies: this.#bodies };
    const shedTrigger: FrontDoorCheck = (req, res) => {
      if (req.method !== 'POST' || !isPlainTriggerPath(req.url!) || options.isDraining()) return false;
      const shed = this.chargeGlobal(req);
      if (!shed) return false;
      answerEarly(req, res, TRIGGER_ROUTE, shed.problem, early);
      return true;
    };
    return shedTrigger;
  }

  #tooMany(reason: LimitReason, retryAfterSeconds: number): Refusal {
    const key = `${reason} ${retryAfterSeconds}`;
    let refusal = this.#answers.get(key);
    if (!refusal) {
      refusal = refuse(
        reason,
        'Too many webhook requests; retry after `Retry-After` seconds.',
        { limit: LIMITS[reason] },
        { 'Retry-After': String(retryAfterSeconds) },
      );
      if (this.#answers.size < ANSWERS_CAP) this.#answers.set(key, refusal);
    }
    return refusal;
  }
}
