import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { withFileLock } from './lock.js';

/** How the stored credential was obtained; decides how it is renewed. */
export const LOGIN_METHODS = ['device', 'pkce', 'client_credentials', 'token'] as const;
export type LoginMethod = (typeof LOGIN_METHODS)[number];

const profileSchema = z.object({
  server: z.string(),
  issuer: z.string().nullable().default(null),
  client_id: z.string().nullable().default(null),
  method: z.enum(LOGIN_METHODS),
  access_token: z.string(),
  refresh_token: z.string().nullable().default(null),
  /** ISO 8601; null when unknown (a personal access token). */
  expires_at: z.string().nullable().default(null),
  token_type: z.string().default('Bearer'),
  scope: z.string().nullable().default(null),
  username: z.string().nullable().default(null),
  updated_at: z.string(),
});
export type StoredProfile = z.infer<typeof profileSchema>;

const fileSchema = z.object({ version: z.literal(1), profiles: z.record(z.string(), profileSchema) });
type CredentialsFile = z.infer<typeof fileSchema>;

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
    const parsed = fileSchema.safeParse(JSON.parse(text));
    if (!parsed.success) throw new Error(`${this.path} is not a credentials file of this svc version; remove it and log in again`);
    return parsed.data;
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
    const stored = profileSchema.parse({ ...entry, updated_at: new Date().toISOString() });
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
