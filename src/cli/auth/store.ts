import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseCredentialsFile, parseStoredProfile, type CredentialsFile, type StoredProfile } from './credentials-file.js';
import { withFileLock } from './lock.js';

export { LOGIN_METHODS, type LoginMethod, type StoredProfile } from './credentials-file.js';

/** `$XDG_CONFIG_HOME/svc`, else `~/.config/svc`. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith('/') ? env.XDG_CONFIG_HOME : join(env.HOME || homedir(), '.config');
  return join(base, 'svc');
}

/**
 * The profiles and their credentials, in one JSON file (0600, directory 0700). Client secrets are
 * never written here. Every change is read-modify-write under the lock file and lands by rename.
 */
export class CredentialStore {
  readonly dir: string;
  readonly path: string;
  readonly lockPath: string;

  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.dir = configDir(env);
    this.path = join(this.dir, 'credentials.json');
    this.lockPath = join(this.dir, 'credentials.json.lock');
  }

  async #read(): Promise<CredentialsFile> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, profiles: {} };
      throw err;
    }
    const parsed = parseCredentialsFile(JSON.parse(text));
    if (parsed === undefined) throw new Error(`${this.path} is not a credentials file of this svc version; remove it and log in again`);
    return parsed;
  }

  async get(profile: string): Promise<StoredProfile | undefined> {
    return (await this.#read()).profiles[profile];
  }

  async list(): Promise<Record<string, StoredProfile>> {
    return (await this.#read()).profiles;
  }

  /** Holds the store's lock across `fn`, for a read-decide-write (a token refresh). */
  async locked<T>(fn: () => Promise<T>): Promise<T> {
    await this.#ensureDir();
    return withFileLock(this.lockPath, fn);
  }

  /** Writes one profile; call inside `locked`. */
  async putUnlocked(profile: string, entry: Omit<StoredProfile, 'updated_at'>): Promise<StoredProfile> {
    const file = await this.#read();
    const stored = parseStoredProfile({ ...entry, updated_at: new Date().toISOString() });
    if (stored === undefined) throw new TypeError(`not a credential to store for profile "${profile}"`);
    file.profiles[profile] = stored;
    await this.#write(file);
    return stored;
  }

  put(profile: string, entry: Omit<StoredProfile, 'updated_at'>): Promise<StoredProfile> {
    return this.locked(() => this.putUnlocked(profile, entry));
  }

  /** Removes a profile; answers whether there was one. Call inside `locked`. */
  async removeUnlocked(profile: string): Promise<boolean> {
    const file = await this.#read();
    if (!(profile in file.profiles)) return false;
    delete file.profiles[profile];
    await this.#write(file);
    return true;
  }

  remove(profile: string): Promise<boolean> {
    return this.locked(() => this.removeUnlocked(profile));
  }

  async #ensureDir(): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await chmod(this.dir, 0o700);
  }

  async #write(file: CredentialsFile): Promise<void> {
    const temp = `${this.path}.${process.pid}.tmp`;
    await writeFile(temp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
    await chmod(temp, 0o600);
    await rename(temp, this.path);
  }
}
