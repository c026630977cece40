import ipaddr from 'ipaddr.js';
import type { StringFormat } from './types.js';
import { hasTemplate } from './templates.js';
import { isUuid } from '../../ids.js';

/**
 * Checks a non-empty string against its format. Answers why it is refused, or undefined. A value holding
 * a template is checked after rendering, at run time, except where its fixed start already tells
 * (`http_url`).
 */
export function formatProblem(format: StringFormat, value: string): string | undefined {
  if (hasTemplate(value)) return format === 'http_url' ? templatedUrlProblem(value) : undefined;
  return CHECKS[format](value);
}

// Docker's own units: 1024, 512m, 2g, 1.5GiB, 512 MB.
const MEMORY = /^(\d+(?:\.\d+)?) ?[kmgtp]?i?b?$/i;
const CPUS = /^\d+(?:\.\d+)?$/;
// Go's time.ParseDuration (the engines read lock timeouts with it): 300s, 5m, 1m30s.
const DURATION = /^(?:0|(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+)$/;
const STATUS_RANGE = /^(\d{3})(?:-(\d{3}))?$/;
const MD5 = /^[0-9a-f]{32}$/i;
const SECRET_REF = /^[a-z][a-z0-9+.-]*:\/\/orgs\/[a-z0-9]+(?:-[a-z0-9]+)*\/secrets\/\S+$/;
const CIDR_RULE = /^([^/]+)\/(\d{1,3})(?::(\d{1,5})(?:-(\d{1,5}))?)?(?:\/(tcp|udp))?$/;
const SERVICE_RULE = /^([A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?):(\d{1,5})$/;
const CONTAINER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const MOUNT_OPTIONS = /^[A-Za-z0-9][A-Za-z0-9,=_-]*$/;

const CHECKS: Record<StringFormat, (value: string) => string | undefined> = {
  uuid: (v) => (isUuid(v) ? undefined : 'must be a UUID'),
  http_url: (v) => {
    const url = parseUrl(v);
    return url && (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== ''
      ? undefined
      : 'must be an http or https URL';
  },
  memory_size: (v) => {
    const m = MEMORY.exec(v);
    return m && Number(m[1]) > 0 ? undefined : 'must be a size such as 512m or 2g';
  },
  cpu_count: (v) => (CPUS.test(v) && Number(v) > 0 ? undefined : 'must be a positive number such as 0.5 or 2.0'),
  absolute_path: (v) => (v.startsWith('/') && !v.includes('\u0000') ? undefined : 'must be an absolute path'),
  egress_rule: (v) => (isEgressRule(v) ? undefined : 'must be CIDR[:port[-port]][/tcp|udp] or service:port'),
  mount_spec: (v) => (isMountSpec(v) ? undefined : 'must be <abs-src>:<abs-dst>[:opts]'),
  pid_mode: (v) => {
    if (v === 'host') return undefined;
    return v.startsWith('container:') && CONTAINER_NAME.test(v.slice('container:'.length)) ? undefined : 'must be host or container:<name>';
  },
  duration: (v) => (DURATION.test(v) ? undefined : 'must be a duration such as 300s or 5m'),
  status_ranges: (v) => (isStatusRanges(v) ? undefined : 'must be comma-separated status codes and ranges such as 200-399,404'),
  socks5_url: (v) => {
    const url = parseUrl(v);
    const ok = url !== undefined && (url.protocol === 'socks5:' || url.protocol === 'socks5h:') && url.hostname !== '' && url.port !== '';
    return ok ? undefined : 'must be socks5://[user:pass@]host:port or socks5h://…';
  },
  md5: (v) => (MD5.test(v) ? undefined : 'must be 32 hexadecimal digits'),
  secret_ref: (v) =>
    SECRET_REF.test(v) ? undefined : "must be a secret reference: {{ secret('<ref>') }} or <backend>://orgs/<org_slug>/secrets/<path>",
};

function parseUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

function templatedUrlProblem(value: string): string | undefined {
  return value.startsWith('{{') || /^https?:\/\//i.test(value) ? undefined : 'must be an http or https URL';
}

function isPort(text: string | undefined): boolean {
  return text === undefined || (Number(text) >= 1 && Number(text) <= 65535);
}

function isEgressRule(rule: string): boolean {
  const cidr = CIDR_RULE.exec(rule);
  if (cidr) {
    const [, address, prefix, low, high] = cidr;
    // Only dotted-quad IPv4: ipaddr's lenient forms (`10`, `0x0a.1`) are not what a rule author means.
    const v4 = ipaddr.IPv4.isValidFourPartDecimal(address!);
    if (!v4 && !ipaddr.IPv6.isValid(address!)) return false;
    const bits = v4 ? 32 : 128;
    if (Number(prefix) > bits || !isPort(low) || !isPort(high)) return false;
    return high === undefined || Number(low) <= Number(high);
  }
  const service = SERVICE_RULE.exec(rule);
  return service !== null && isPort(service[2]);
}

function isMountSpec(spec: string): boolean {
  const parts = spec.split(':');
  if (parts.length < 2 || parts.length > 3) return false;
  const [source, target, options] = parts;
  return source!.startsWith('/') && target!.startsWith('/') && (options === undefined || MOUNT_OPTIONS.test(options));
}

function isStatusRanges(value: string): boolean {
  return value.split(',').every((part) => {
    const m = STATUS_RANGE.exec(part.trim());
    if (!m) return false;
    const low = Number(m[1]);
    const high = m[2] === undefined ? low : Number(m[2]);
    return low >= 100 && high <= 599 && low <= high;
  });
}
