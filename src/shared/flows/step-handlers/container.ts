import { CACHE_IMAGE, CONTAINER_STEP_FIELDS, EGRESS_ALLOW, EGRESS_DENY, EGRESS_MODE, variantOf } from './common.js';
import type { HandlerField, StepHandler } from './types.js';

const EGRESS_NOTE =
  "; enforced on the sandbox daemon; cannot be combined with host-access options or `network_disabled`; Deny is unioned with the flow policy's Deny rules";

function fromC(key: string): HandlerField {
  const field = CONTAINER_STEP_FIELDS.find((f) => f.key === key);
  if (!field) throw new TypeError(`no common container field ${key}`);
  return field;
}

export const CONTAINER_HANDLERS: readonly StepHandler[] = [
  {
    id: 'container.run',
    category: 'Actions',
    kinds: ['ACTION', 'EXECUTE'],
    description: 'Runs a command in a container on the nested-container sandbox.',
    internal: false,
    fields: [
      { key: 'image', type: 'string', required: true, meaning: 'full image reference with tag' },
      variantOf(CACHE_IMAGE, { meaning: 'as in playbook.run' }),
      {
        key: 'command',
        type: 'string[]',
        meaning:
          'script lines joined by newlines under `set -e`; with no entrypoint override the handler runs them through `sh -c`; with entrypoint `/bin/sh` it passes `-c <script>`; empty adds no script',
      },
      {
        key: 'entrypoint',
        type: 'object|null',
        default: null,
        variants: ['string', 'string[]'],
        meaning: 'entrypoint override; string or list form',
      },
      { key: 'working_dir', type: 'string', default: '/workspace', format: 'absolute_path', meaning: 'working directory in the container' },
      variantOf(fromC('timeout_seconds'), { default: 300, meaning: 'maximum run time of the container' }),
      variantOf(fromC('memory'), { meaning: 'e.g. 256m, 1g' }),
      variantOf(fromC('cpus'), { meaning: 'e.g. 0.5, 2.0' }),
      { key: 'network_disabled', type: 'boolean', default: false, meaning: 'run with no network' },
      {
        key: 'network_mode',
        type: 'string',
        default: '',
        narrowing: 'host_access',
        meaning: "attach to a named network or share another container's namespace; ignored when network is disabled",
      },
      {
        key: 'attach_docker_socket',
        type: 'boolean',
        default: false,
        narrowing: 'host_access',
        meaning: 'mount the sandbox daemon socket (full control of the sandbox daemon, not the host)',
      },
      { key: 'privileged', type: 'boolean', default: false, narrowing: 'host_access', meaning: 'privileged mode inside the sandbox' },
      {
        key: 'pid_mode',
        type: 'string',
        default: '',
        format: 'pid_mode',
        narrowing: 'host_access',
        meaning: "share the sandbox's PID namespace or `container:<name>`",
      },
      {
        key: 'extra_mounts',
        type: 'string[]',
        format: 'mount_spec',
        narrowing: 'host_access',
        meaning: '`<abs-src>:<abs-dst>[:opts]`; sources resolve inside the sandbox; bypasses workspace isolation',
      },
      variantOf(EGRESS_MODE, { meaning: EGRESS_MODE.meaning + EGRESS_NOTE }),
      variantOf(EGRESS_ALLOW, { meaning: EGRESS_ALLOW.meaning + EGRESS_NOTE }),
      variantOf(EGRESS_DENY, { meaning: EGRESS_DENY.meaning + EGRESS_NOTE }),
      variantOf(fromC('env'), { meaning: 'KEY=VALUE lines' }),
      {
        key: 'secrets',
        type: 'object',
        keyValue: 'string',
        secretValues: true,
        meaning: 'NAME=secret reference; each written to `/run/secrets/NAME` in the container and redacted from output',
      },
      { key: 'mounted_artifacts', type: 'object|null', default: null, meaning: 'upstream step artifacts copied in; default all' },
      {
        key: 'mounted_step_outputs',
        type: 'object|null',
        default: null,
        meaning: 'upstream step output snapshots copied in; default all predecessors',
      },
      variantOf(fromC('mounted_files'), { meaning: 'attachments copied in; default all' }),
      {
        key: 'artifacts_path',
        type: 'string',
        default: '',
        format: 'absolute_path',
        meaning: 'absolute path for upstream artifacts; empty means /artifacts',
      },
      {
        key: 'new_artifacts_path',
        type: 'string',
        default: '',
        format: 'absolute_path',
        meaning:
          "absolute path harvested after exit: UTF-8 text files become step artifacts, other files upload as downloadable artifacts up to the worker's per-file cap (50 MiB default); dropped files are listed in the step's skipped-artifacts report; empty means /artifacts/new, or <artifacts_path>/new when the root changes",
      },
      { key: 'attachments_path', type: 'string', default: '', format: 'absolute_path', meaning: 'empty means /attachments' },
      { key: 'step_outputs_path', type: 'string', default: '', format: 'absolute_path', meaning: 'empty means /step_outputs' },
      {
        key: 'shared_path',
        type: 'string',
        default: '',
        format: 'absolute_path',
        meaning: 'mount of the shared run workspace for shared/explicit execution affinity; empty means /shared',
      },
    ],
  },
];
