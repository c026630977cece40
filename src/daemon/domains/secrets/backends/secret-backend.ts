import type { Knex } from 'knex';

/**
 * The database transaction of the operation calling a backend. The built-in backend stores values in
 * the service's own database and joins it, so a secret's row and its values commit together; an external
 * store cannot, and ignores it (its write then happens inside the window of the database transaction,
 * which rolls back if the store fails).
 */
export type BackendTx = Knex.Transaction;

export interface BackendCall {
  readonly tx?: BackendTx | undefined;
}

/** `replace`: the folder holds exactly the given keys afterwards. `merge`: the given keys are set, others kept. */
export type WriteMode = 'replace' | 'merge';

export interface BackendHealth {
  readonly ok: boolean;
  readonly detail: string;
}

/**
 * A store of secret folders: each location (`orgs/<org_slug>/secrets/<path>`) holds a flat map of key
 * names to string values. The built-in backend implements it over an encrypted table; an external KV
 * store (HashiCorp Vault or OpenBao KV v2: one KV secret per location) will implement it later.
 *
 * Every failure of the store (unreachable, refused, undecryptable) is thrown as SecretBackendError.
 * Implementations never log or put into an error message a value.
 */
export interface SecretBackend {
  /** The folder's keys and values; an empty object when the folder does not exist. */
  readFolder(location: string, call?: BackendCall): Promise<Record<string, string>>;
  writeFolder(location: string, values: Readonly<Record<string, string>>, mode: WriteMode, call?: BackendCall): Promise<void>;
  /** Removes the folder and every key in it; removing what is not there is not an error. */
  deleteFolder(location: string, call?: BackendCall): Promise<void>;
  /** Locations of the folders under `prefix` (names only, never values), sorted. */
  listItems(prefix: string, call?: BackendCall): Promise<string[]>;
  health(): Promise<BackendHealth>;
}
