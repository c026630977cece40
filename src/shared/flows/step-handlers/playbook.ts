import { CACHE_IMAGE, CONTAINER_STEP_FIELDS, NOT_NEGATIVE } from './common.js';
import type { StepHandler } from './types.js';

export const PLAYBOOK_HANDLERS: readonly StepHandler[] = [
  {
    id: 'playbook.run',
    category: 'Actions',
    kinds: ['ACTION', 'CHECK', 'EXECUTE'],
    description:
      "Runs a configuration-management playbook against the step's target devices with inventory and credentials generated from the service's inventory.",
    internal: false,
    fields: [
      ...CONTAINER_STEP_FIELDS,
      {
        key: 'playbook',
        type: 'string',
        required: true,
        meaning: 'attachment path of the playbook; runs from its own folder so neighbouring roles, group variables and config file apply',
      },
      { key: 'limit', type: 'string', default: '', meaning: 'host pattern limiting the run' },
      { key: 'check_mode', type: 'boolean', default: false, meaning: 'dry run' },
      { key: 'diff', type: 'boolean', default: false, meaning: 'show before/after' },
      { key: 'tags', type: 'string[]', meaning: 'only these tags' },
      { key: 'skip_tags', type: 'string[]', meaning: 'skip these tags' },
      { key: 'extra_vars', type: 'object', keyValue: 'string', meaning: 'NAME=value lines, highest precedence; templates allowed' },
      {
        key: 'secrets',
        type: 'object',
        keyValue: 'string',
        secretValues: true,
        meaning: 'NAME=secret reference; passed from a file, redacted from output',
      },
      {
        key: 'group_secrets',
        type: 'object',
        keyValue: 'string',
        secretValues: true,
        groupedKeys: true,
        meaning: 'GROUP:NAME=secret reference; variable only for hosts of that inventory group',
      },
      { key: 'vault_password', type: 'string', default: '', format: 'secret_ref', meaning: 'secret reference for encrypted files' },
      { key: 'vault_ids', type: 'object', keyValue: 'string', secretValues: true, meaning: 'LABEL=secret reference for several vault ids' },
      {
        key: 'inventory_scope',
        type: 'enum',
        default: 'step',
        enum: ['step', 'run'],
        meaning: "`step`: the step's targets; `run`: every device the run targets, grouped by role",
      },
      {
        key: 'group_by',
        type: 'string[]',
        itemEnum: ['role', 'platform', 'site', 'tag', 'provider'],
        meaning: 'groups to derive: `role`, `platform`, `site`, `tag`, `provider`',
      },
      { key: 'extra_inventory', type: 'string[]', meaning: 'attachment paths of more inventory sources' },
      { key: 'device_credentials', type: 'boolean', default: true, meaning: "give each device's login from its access configuration" },
      {
        key: 'host_key_checking',
        type: 'enum',
        default: 'accept_new',
        enum: ['accept_new', 'strict', 'off'],
        meaning:
          'accept_new trusts a host key on first contact within the run and rejects a change; strict needs keys in the image; off disables',
      },
      {
        key: 'requirements_file',
        type: 'string',
        default: '',
        meaning: 'attachment path of a requirements file installed before the play; needs network access',
      },
      {
        key: 'forks',
        type: 'object|null',
        variants: ['integer'],
        min: 1,
        meaning: "parallel hosts; unset means the playbook's own configuration decides",
      },
      { key: 'verbosity', type: 'integer', default: 0, ...NOT_NEGATIVE, max: 4, meaning: '0 normal, 1-4 increasing' },
      { key: 'image', type: 'string', defaultText: 'platform-supplied runner image (reference omitted)', meaning: 'execution image' },
      CACHE_IMAGE,
    ],
  },
];
