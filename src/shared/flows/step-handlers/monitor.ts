import { TCP_PORT } from './common.js';
import type { HandlerField, StepHandler } from './types.js';

export const CHECK_TYPES = ['dns_resolve', 'http_health', 'icmp_ping', 'tcp_connect'] as const;

export const CHECK_TYPE: HandlerField = {
  key: 'check_type',
  type: 'enum',
  default: 'tcp_connect',
  enum: CHECK_TYPES,
  meaning: "validated when the step runs against the worker's check registry",
};

export const MONITOR_HANDLERS: readonly StepHandler[] = [
  {
    id: 'monitor.connectivity',
    category: 'Checks',
    kinds: ['CHECK'],
    description: 'Background probing of the target devices during a flow run.',
    internal: false,
    fields: [
      CHECK_TYPE,
      { key: 'port', type: 'integer', default: 22, ...TCP_PORT, meaning: '1-65535; used by port-based checks' },
      { key: 'interval_ms', type: 'integer', default: 5000, min: 100, meaning: 'minimum 100' },
      {
        key: 'schedule_mode',
        type: 'enum',
        default: 'count',
        enum: ['count', 'duration', 'until_join'],
        meaning: '`until_join`: the flow engine stops it at the branch join',
      },
      { key: 'count', type: 'integer', default: 10, min: 1, meaning: 'minimum 1; for `count` mode' },
      { key: 'duration_sec', type: 'integer', default: 60, min: 1, meaning: 'minimum 1; for `duration` mode' },
      { key: 'timeout_sec', type: 'integer', default: 10, min: 1, meaning: 'per-sample; minimum 1' },
      { key: 'url_path', type: 'string', default: '', meaning: 'for http_health; empty probes /health' },
      {
        key: 'socks_proxy',
        type: 'string',
        default: '',
        format: 'socks5_url',
        meaning:
          'authenticated SOCKS5 proxy `socks5[h]://[user:pass@]host:port` for tcp_connect and http_health; icmp_ping and dns_resolve reject a configured proxy',
      },
    ],
  },
  {
    id: 'monitor.start',
    category: 'Internal',
    kinds: ['CHECK'],
    description: 'Starts a background connectivity monitor.',
    internal: true,
    openConfig: true,
    fields: [],
  },
  {
    id: 'monitor.stop',
    category: 'Internal',
    kinds: ['CHECK'],
    description: 'Stops a background connectivity monitor.',
    internal: true,
    openConfig: true,
    fields: [],
  },
];
