import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '../../../config/config.js';
import { parseKey256 } from '../../../config/parsers.js';
import type { Logger } from '../../../logging/logger.js';
import { syncDirectory, syncFile } from '../../../storage/durable-file.js';
import { keyFingerprint } from './aes-gcm.js';

export const KEY_SETTING = 'SERVICE_SECRETS_ENCRYPTION_KEY';
export const KEY_FILE = 'secrets.key';

/** The built-in backend's key and its fingerprint. */
export interface SecretsKey {
  readonly key: Buffer;
  readonly id: string;
}

/**
 * The key from SERVICE_SECRETS_ENCRYPTION_KEY, or (outside production) from `<dataDir>/secrets.key`,
 * generated there at the first start (32 random bytes, mode 0600) and reused after.
 */
export async function loadSecretsKey(
  settings: { secretsEncryptionKey?: Buffer | undefined; dataDir: string; isProduction: boolean },
  log: Logger,
): Promise<SecretsKey> {
  if (settings.secretsEncryptionKey) return withId(settings.secretsEncryptionKey);
  if (settings.isProduction) throw new ConfigError([{ variable: KEY_SETTING, message: 'is required in production' }]);
  const file = join(settings.dataDir, KEY_FILE);
  const existing = await readKeyFile(file, log);
  if (existing) return withId(existing);
  await mkdir(settings.dataDir, { recursive: true });
  // Written aside and linked into place: another process starting at the same moment either wins the
  // link or reads the complete file, never a half-written one. Both made durable before any secret is
  // sealed with the key: a crash must not keep secrets whose key never reached the disk.
  const staging = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(staging, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await syncFile(staging);
    await link(staging, file);
    await syncDirectory(settings.dataDir);
    log.warn({ file }, `generated the secrets encryption key into ${file}; back it up, or set ${KEY_SETTING}`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(staging).catch(() => undefined);
  }
  const created = await readKeyFile(file, log);
  if (!created) throw new ConfigError([{ variable: KEY_SETTING, message: `could not read the generated key file ${file}` }]);
  return withId(created);
}

async function readKeyFile(file: string, log: Logger): Promise<Buffer | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  if ((await stat(file)).mode & 0o077)
    log.warn({ file }, `the secrets key file ${file} is accessible to others than its owner; chmod 600 it`);
  try {
    return parseKey256(text);
  } catch {
    throw new ConfigError([{ variable: KEY_SETTING, message: `key file ${file} does not hold 32 bytes as 64 hex digits or base64` }]);
  }
}

function withId(key: Buffer): SecretsKey {
  return { key, id: keyFingerprint(key) };
}
