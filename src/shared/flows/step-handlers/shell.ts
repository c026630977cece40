import { AT_LEAST_ONE, MAX_PARALLEL_DEVICES } from './common.js';
import type { StepHandler } from './types.js';

export const SHELL_HANDLERS: readonly StepHandler[] = [
  {
    id: 'shell.execute',
    category: 'Actions',
    kinds: ['ACTION', 'EXECUTE'],
    description: 'Runs shell commands on the target devices over their exec channel.',
    internal: false,
    fields: [
      { key: 'commands', type: 'string[]', meaning: 'each line is its own exec-channel command with its own exit code' },
      { key: 'shell', type: 'enum', default: 'default', enum: ['default', 'sh', 'bash', 'pwsh'], meaning: 'interpreter wrapping' },
      { key: 'env', type: 'object', keyValue: 'string', meaning: 'KEY=VALUE per line; not supported with `pwsh`' },
      { key: 'fail_fast', type: 'boolean', default: true, meaning: 'skip remaining commands on a device after a non-zero exit' },
      {
        key: 'command_timeout_sec',
        type: 'integer',
        default: 60,
        ...AT_LEAST_ONE,
        meaning: 'per command, not per step; exceeding it fails the device and skips its remaining commands',
      },
      { ...MAX_PARALLEL_DEVICES, meaning: 'devices worked on at once; 1 = sequential' },
    ],
  },
];
