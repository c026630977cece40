import { isDefaultValue } from './field-values.js';
import { childPath, type StepIssue } from './issues.js';
import type { StepHandler } from './types.js';

/** A rule between fields of one handler, stated by the spec; run once every field has its own type right. */
export interface CrossFieldRule {
  readonly handler: string;
  readonly id: string;
  readonly description: string;
  readonly check: (config: Readonly<Record<string, unknown>>, handler: StepHandler, base: string) => StepIssue[];
}

/** Set to something other than its default (a template counts as set: what it renders to is not known yet). */
function isSet(handler: StepHandler, config: Readonly<Record<string, unknown>>, key: string): boolean {
  const field = handler.fields.find((f) => f.key === key);
  return field !== undefined && !isDefaultValue(field, config[key]);
}

/** The configured value or the field's default. */
function effective(handler: StepHandler, config: Readonly<Record<string, unknown>>, key: string): unknown {
  return config[key] ?? handler.fields.find((f) => f.key === key)?.default;
}

const HOST_ACCESS_OR_NO_NETWORK = ['attach_docker_socket', 'privileged', 'pid_mode', 'extra_mounts', 'network_mode', 'network_disabled'];
const EGRESS = ['egress_mode', 'egress_allow', 'egress_deny'];

export const CROSS_FIELD_RULES: readonly CrossFieldRule[] = [
  {
    handler: 'flow.run',
    id: 'one_child_flow',
    description: 'give exactly one of flow_id and flow_name',
    check: (config, handler, base) => {
      const byId = isSet(handler, config, 'flow_id');
      const byName = isSet(handler, config, 'flow_name');
      if (byId && byName)
        return [{ path: childPath(base, 'flow_name'), code: 'invalid_value', message: 'give flow_id or flow_name, not both' }];
      if (!byId && !byName) return [{ path: childPath(base, 'flow_id'), code: 'missing_required', message: 'give flow_id or flow_name' }];
      return [];
    },
  },
  {
    handler: 'netos.upgrade.stage',
    id: 'one_image_source',
    description: 'file_ids and source_url cannot both be given',
    check: (config, handler, base) =>
      isSet(handler, config, 'file_ids') && isSet(handler, config, 'source_url')
        ? [{ path: childPath(base, 'source_url'), code: 'invalid_value', message: 'use either file_ids or source_url, not both' }]
        : [],
  },
  {
    handler: 'container.run',
    id: 'egress_isolation',
    description: 'egress_mode, egress_allow and egress_deny cannot be combined with host-access options or network_disabled',
    check: (config, handler, base) => {
      const egress = EGRESS.find((key) => isSet(handler, config, key));
      const conflicting = HOST_ACCESS_OR_NO_NETWORK.filter((key) => isSet(handler, config, key));
      if (egress === undefined || conflicting.length === 0) return [];
      return [
        {
          path: childPath(base, egress),
          code: 'invalid_value',
          message: `egress options are enforced on the sandbox daemon and cannot be combined with ${conflicting.join(', ')}`,
        },
      ];
    },
  },
  {
    handler: 'shell.execute',
    id: 'env_not_with_pwsh',
    description: 'env is not supported with the pwsh shell',
    check: (config, handler, base) =>
      effective(handler, config, 'shell') === 'pwsh' && isSet(handler, config, 'env')
        ? [{ path: childPath(base, 'env'), code: 'invalid_value', message: 'env is not supported with pwsh' }]
        : [],
  },
  proxyRule('monitor.connectivity', ['icmp_ping', 'dns_resolve']),
  proxyRule('probe.connectivity', ['icmp_ping']),
  {
    handler: 'iac.plan',
    id: 'encryption_opentofu_only',
    description: 'state_encryption_key is for the opentofu engine only',
    check: (config, handler, base) =>
      effective(handler, config, 'engine') === 'terraform' && isSet(handler, config, 'state_encryption_key')
        ? [
            {
              path: childPath(base, 'state_encryption_key'),
              code: 'invalid_value',
              message: 'state encryption is an opentofu feature; terraform cannot use it',
            },
          ]
        : [],
  },
  {
    handler: 'iac.plan',
    id: 'backend_config_backend_only',
    description: 'backend_config is only for the backend state',
    check: (config, handler, base) => {
      const state = effective(handler, config, 'state');
      const concrete = state === 'managed' || state === 'ephemeral';
      return concrete && isSet(handler, config, 'backend_config')
        ? [
            {
              path: childPath(base, 'backend_config'),
              code: 'invalid_value',
              message: `backend_config is only for state backend, not ${String(state)}`,
            },
          ]
        : [];
    },
  },
];

function proxyRule(handler: string, refusing: readonly string[]): CrossFieldRule {
  return {
    handler,
    id: 'proxy_check_type',
    description: `socks_proxy cannot be used with check_type ${refusing.join(' or ')}`,
    check: (config, h, base) => {
      const checkType = effective(h, config, 'check_type');
      return typeof checkType === 'string' && refusing.includes(checkType) && isSet(h, config, 'socks_proxy')
        ? [{ path: childPath(base, 'socks_proxy'), code: 'invalid_value', message: `${checkType} cannot go through a SOCKS proxy` }]
        : [];
    },
  };
}

export function rulesOf(handlerId: string): readonly CrossFieldRule[] {
  return CROSS_FIELD_RULES.filter((rule) => rule.handler === handlerId);
}
