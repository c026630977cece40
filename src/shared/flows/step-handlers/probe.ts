import { AT_LEAST_ONE, NOT_NEGATIVE, TCP_PORT } from './common.js';
import { CHECK_TYPE } from './monitor.js';
import type { HandlerField, StepHandler } from './types.js';

function timeout(seconds: number): HandlerField {
  return { key: 'timeout_sec', type: 'integer', default: seconds, ...AT_LEAST_ONE, meaning: 'per attempt' };
}

const ATTEMPTS: HandlerField = { key: 'attempts', type: 'integer', default: 1, min: 1, max: 10, meaning: '1-10' };

export const PROBE_HANDLERS: readonly StepHandler[] = [
  {
    id: 'probe.connectivity',
    category: 'Checks',
    kinds: ['CHECK'],
    description: 'One-shot connectivity check of the target devices.',
    internal: false,
    fields: [
      { ...CHECK_TYPE, meaning: 'the check to run' },
      { key: 'port', type: 'integer', default: 22, ...TCP_PORT, meaning: 'port of port-based checks' },
      timeout(10),
      ATTEMPTS,
      { key: 'url_path', type: 'string', default: '', meaning: 'http_health; empty requests /health' },
      { key: 'hostname', type: 'string', default: '', meaning: 'name looked up by dns_resolve' },
      {
        key: 'socks_proxy',
        type: 'string',
        default: '',
        format: 'socks5_url',
        meaning: 'SOCKS5 for TCP-based checks; icmp_ping rejects it',
      },
    ],
  },
  {
    id: 'probe.dns',
    category: 'Checks',
    kinds: ['CHECK'],
    description: 'One-shot DNS resolution check.',
    internal: false,
    fields: [
      { key: 'query_name', type: 'string', default: '', meaning: "empty resolves each target's hostname" },
      { key: 'record_type', type: 'enum', default: 'A', enum: ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'TXT'], meaning: 'record type queried' },
      { key: 'resolver', type: 'string', default: '', meaning: 'nameserver address; empty uses the system resolver' },
      { key: 'expected_values', type: 'string[]', meaning: 'every listed value must appear' },
      timeout(5),
      ATTEMPTS,
    ],
  },
  {
    id: 'probe.http',
    category: 'Checks',
    kinds: ['CHECK'],
    description: 'One-shot HTTP request check.',
    internal: false,
    fields: [
      { key: 'scheme', type: 'enum', default: 'http', enum: ['http', 'https'], meaning: 'selects default port 80 / 443' },
      {
        key: 'port',
        type: 'object|null',
        default: null,
        variants: ['integer'],
        ...TCP_PORT,
        meaning: "port; null uses the scheme's default",
      },
      { key: 'path', type: 'string', default: '/', meaning: 'a missing leading slash is added' },
      { key: 'method', type: 'enum', default: 'GET', enum: ['GET', 'HEAD', 'POST'], meaning: 'a HEAD response has no body to match' },
      { key: 'expected_status', type: 'string', default: '200-399', format: 'status_ranges', meaning: 'comma-separated codes and ranges' },
      { key: 'body_contains', type: 'string', default: '', meaning: 'fail unless the body contains it' },
      { key: 'verify_tls', type: 'boolean', default: true, meaning: 'check the server certificate' },
      { key: 'follow_redirects', type: 'boolean', default: true, meaning: 'when false the redirect response itself is asserted' },
      timeout(10),
      ATTEMPTS,
    ],
  },
  {
    id: 'probe.wait_reachable',
    category: 'Checks',
    kinds: ['WAIT'],
    description: 'Waits until the target devices are continuously reachable.',
    internal: false,
    fields: [
      { key: 'max_wait_seconds', type: 'integer', default: 300, ...AT_LEAST_ONE, meaning: 'overall deadline' },
      {
        key: 'stable_seconds',
        type: 'integer',
        default: 30,
        ...NOT_NEGATIVE,
        meaning: 'continuous reachability required; an outage restarts the window',
      },
      { key: 'poll_interval', type: 'integer', default: 5, ...AT_LEAST_ONE, meaning: 'seconds between checks' },
    ],
  },
];
