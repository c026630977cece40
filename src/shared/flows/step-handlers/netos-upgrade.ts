import { MAX_PARALLEL_DEVICES, NOT_NEGATIVE, AT_LEAST_ONE } from './common.js';
import type { HandlerField, StepHandler } from './types.js';

/** Values older definitions may hold; only HTTP(S) device-side pull is implemented. */
export const LEGACY_TRANSFER_METHODS = ['scp', 'sftp', 'tftp', 'ftp', 'usb'] as const;

const UPGRADE_MODE: HandlerField = {
  key: 'upgrade_mode',
  type: 'enum',
  default: 'install',
  enum: ['install', 'bundle'],
  meaning: "`install` uses the device's install commands, `bundle` boots a monolithic image; must match how the device boots",
};

const DEST_FS: HandlerField = {
  key: 'dest_fs',
  type: 'string',
  default: 'flash:',
  meaning: 'the device filesystem; a trailing colon is added when omitted',
};

/** Fields every `netos.upgrade.*` handler has. */
const SHARED: readonly HandlerField[] = [UPGRADE_MODE, MAX_PARALLEL_DEVICES];

function upgradeHandler(id: string, kinds: StepHandler['kinds'], description: string, fields: readonly HandlerField[]): StepHandler {
  return { id, category: 'Upgrade', kinds, description, internal: false, fields: [...SHARED, ...fields] };
}

export const NETOS_UPGRADE_HANDLERS: readonly StepHandler[] = [
  upgradeHandler(
    'netos.upgrade.preflight',
    ['CHECK'],
    'Checks a device before an operating-system upgrade: free space, current version, image already staged.',
    [
      { key: 'image_name', type: 'string', default: '', meaning: 'check if already staged' },
      { key: 'target_version', type: 'string', default: '', meaning: 'version the upgrade aims at' },
      DEST_FS,
      { key: 'min_free_bytes', type: 'integer', default: 1073741824, ...NOT_NEGATIVE, meaning: 'free space the filesystem must have' },
    ],
  ),
  upgradeHandler(
    'netos.upgrade.stage',
    ['ACTION', 'TRANSFER'],
    'Transfers an operating-system image to the device by device-side HTTP(S) pull.',
    [
      {
        key: 'transfer_method',
        type: 'enum',
        default: 'auto',
        enum: ['auto', 'http', 'https'],
        meaning:
          'HTTP(S) device-side pull is the only transfer implemented; legacy stored values such as scp or tftp fail with an explanatory error',
      },
      { key: 'file_ids', type: 'string[]', format: 'uuid', meaning: 'use either this or source_url, not both' },
      { key: 'source_url', type: 'string', default: '', format: 'http_url', meaning: 'http/https' },
      { key: 'dest_filename', type: 'string', default: '', meaning: 'defaults to the selected file name' },
      DEST_FS,
      {
        key: 'expected_md5',
        type: 'string',
        default: '',
        format: 'md5',
        meaning: 'verified on the device before and after transfer; a staged file that passes is not transferred again',
      },
      {
        key: 'overwrite',
        type: 'boolean',
        default: false,
        meaning:
          're-transfer even if present; with no checksum the image is transferred again unless the step definition carries a matching expected_size',
      },
    ],
  ),
  upgradeHandler('netos.upgrade.install', ['ACTION', 'EXECUTE'], 'Installs or boots the staged image on the device.', [
    { key: 'image_name', type: 'string', required: true, meaning: 'the staged image' },
    DEST_FS,
    { key: 'activate', type: 'boolean', default: true, meaning: 'reload immediately; if false the upgrade is only staged' },
    { key: 'commit', type: 'boolean', default: true, meaning: 'install mode: prevent rollback' },
  ]),
  upgradeHandler('netos.upgrade.verify', ['CHECK'], 'Waits for the device to come back and checks it runs the target version.', [
    { key: 'target_version', type: 'string', default: '', meaning: 'version the device must run' },
    { key: 'max_wait_seconds', type: 'integer', default: 600, ...AT_LEAST_ONE, meaning: 'how long to wait for the device' },
    { key: 'retry_interval', type: 'integer', default: 30, ...AT_LEAST_ONE, meaning: 'seconds between reconnects' },
    { key: 'auto_commit', type: 'boolean', default: true, meaning: 'install mode: commit if not committed' },
  ]),
  upgradeHandler('netos.upgrade.cleanup', ['ACTION'], 'Removes inactive packages or old images after an upgrade.', [
    { key: 'remove_inactive', type: 'boolean', default: true, meaning: 'install mode' },
    { key: 'keep_versions', type: 'integer', default: 1, ...NOT_NEGATIVE, meaning: 'bundle mode: old versions kept' },
  ]),
];
