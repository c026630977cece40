import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CliError } from '../errors.js';
import { parseProfilesOf, parseStoredProfile, type StoredProfile } from './credentials-file.js';
import { withFileLock } from './lock.js';

export { LOGIN_METHODS, type LoginMethod, type StoredProfile } from './credentials-file.js';

/** The file as read: its valid profiles, and what could not be read, kept to be reported or repaired. */
interface LoadedFile {
  readonly profiles: Record<string, StoredProfile>;
  /** Profiles that are not valid, as they are in the file (kept as they are when another one is written). */
  readonly damagedProfiles: Record<string, unknown>;
  /** Why the file as a whole cannot be read (not JSON, not a credentials file); its profiles are lost. */
  readonly damage: string | undefined;
}

/**
 * The credentials file (or one profile in it) cannot be read. Reading commands stop with this; `svc
 * login` and `svc logout` replace (or forget) the damaged profile, keeping a copy of the file.
 */
export class DamagedCredentialsError extends CliError {
  constructor(
    readonly path: string,
    what: string,
    profile: string,
  ) {
    super('error', `${path} is damaged (${what}); svc cannot read the credential of profile "${profile}"`, {
      hint: `svc login --profile ${profile} --server URL replaces it (svc logout --profile ${profile} forgets it); either keeps a copy of the file as ${path}.bak`,
    });
  }
}

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

  async #load(): Promise<LoadedFile & { readonly text: string | undefined }> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT')
        return { profiles: {}, damagedProfiles: {}, damage: undefined, text: undefined };
      throw err;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      // Not the parser's message: Node quotes the text around the fault, which may be part of a token.
      return { profiles: {}, damagedProfiles: {}, damage: 'not JSON', text };
    }
    const entries = parseProfilesOf(json);
    if (entries === undefined) return { profiles: {}, damagedProfiles: {}, damage: 'not a credentials file of this svc version', text };
    const profiles: Record<string, StoredProfile> = {};
    const damagedProfiles: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(entries)) {
      const profile = parseStoredProfile(value);
      if (profile !== undefined) profiles[name] = profile;
      else damagedProfiles[name] = value;
    }
    return { profiles, damagedProfiles, damage: undefined, text };
  }

  async get(profile: string): Promise<StoredProfile | undefined> {
    const file = await this.#load();
    if (file.damage !== undefined) throw new DamagedCredentialsError(this.path, file.damage, profile);
    if (profile in file.damagedProfiles)
      throw new DamagedCredentialsError(this.path, `profile "${profile}" is not a valid credential`, profile);
    return file.profiles[profile];
  }

  /** The readable profiles. */
  async list(): Promise<Record<string, StoredProfile>> {
    return (await this.#load()).profiles;
  }

  /** Holds the store's lock across `fn`, for a read-decide-write (a token refresh). */
  async locked<T>(fn: () => Promise<T>): Promise<T> {
    await this.#ensureDir();
    return withFileLock(this.lockPath, fn);
  }

  /** Writes one profile, replacing it even when damaged; call inside `locked`. */
  async putUnlocked(profile: string, entry: Omit<StoredProfile, 'updated_at'>): Promise<StoredProfile> {
    const stored = parseStoredProfile({ ...entry, updated_at: new Date().toISOString() });
    if (stored === undefined) throw new TypeError(`not a credential to store for profile "${profile}"`);
    await this.#rewrite(profile, stored);
    return stored;
  }

  put(profile: string, entry: Omit<StoredProfile, 'updated_at'>): Promise<StoredProfile> {
    return this.locked(() => this.putUnlocked(profile, entry));
  }

  /** Removes a profile, damaged or not; answers whether there was one. Call inside `locked`. */
  async removeUnlocked(profile: string): Promise<boolean> {
    const file = await this.#load();
    if (!(profile in file.profiles) && !(profile in file.damagedProfiles) && file.damage === undefined) return false;
    await this.#rewrite(profile, undefined);
    return true;
  }

  remove(profile: string): Promise<boolean> {
    return this.locked(() => this.removeUnlocked(profile));
  }

  /**
   * Sets (or, undefined, removes) one profile and writes the file. A damaged file is first copied to
   * `.bak` (0600): what svc could not read may still matter to the user. Other damaged profiles stay as
   * they were.
   */
  async #rewrite(profile: string, stored: StoredProfile | undefined): Promise<void> {
    const file = await this.#load();
    const damaged = file.damage !== undefined || Object.keys(file.damagedProfiles).length > 0;
    if (damaged && file.text !== undefined) await this.#writeAtomically(`${this.path}.bak`, file.text);
    const profiles: Record<string, unknown> = { ...file.damagedProfiles, ...file.profiles };
    if (stored === undefined) delete profiles[profile];
    else profiles[profile] = stored;
    await this.#writeAtomically(this.path, `${JSON.stringify({ version: 1, profiles }, null, 2)}\n`);
  }

  async #ensureDir(): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await chmod(this.dir, 0o700);
  }

  async #writeAtomically(path: string, text: string): Promise<void> {
    const temp = `${path}.${process.pid}.tmp`;
    await writeFile(temp, text, { mode: 0o600 });
    await chmod(temp, 0o600);
    await rename(temp, path);
  }
}
