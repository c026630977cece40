import type { z } from 'zod';
import type { ProviderHttp } from '../provider-http.js';

/** What a provider says of one site, in the platform's terms. */
export interface ImportedSite {
  readonly external_id: string;
  readonly name: string;
  readonly description: string | null;
  readonly address: string | null;
  readonly tags: readonly string[];
  readonly last_updated: Date | null;
}

export interface ImportedDevice {
  readonly external_id: string;
  readonly name: string;
  readonly hostname: string | null;
  readonly platform: string | null;
  readonly role: string | null;
  /** The provider's id of the device's site (resolved to the imported site, if any). */
  readonly site_external_id: string | null;
  readonly serial: string | null;
  readonly tags: readonly string[];
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly last_updated: Date | null;
}

export interface ImportedObject {
  readonly external_id: string;
  readonly name: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly last_updated: Date | null;
}

/** One page of a listing and where the next one is (null: this was the last). */
export interface Page<T> {
  readonly items: readonly T[];
  /** Items the provider answered that could not be read (no id, …): counted as skipped. */
  readonly malformed: number;
  readonly next: string | null;
}

/** Where a listing starts: a page cursor (resuming), and for an incremental read the watermark. */
export interface ListFrom {
  readonly cursor: string | null;
  readonly since: Date | null;
}

/** A provider opened with its configuration and credential: what sync, test and discover ask of it. */
export interface InventorySource {
  /** Reaches the provider and checks the credential; details it gives (version, …). */
  test(): Promise<Record<string, unknown>>;
  /** How many sites, devices and objects of each type there are (null where it cannot say). */
  discover(): Promise<{ sites: number | null; devices: number | null; objects: Record<string, number | null> }>;
  sites(from: ListFrom): Promise<Page<ImportedSite>>;
  devices(from: ListFrom): Promise<Page<ImportedDevice>>;
  objects(type: string, from: ListFrom): Promise<Page<ImportedObject>>;
  /** The object types this provider's configuration asks to import. */
  readonly objectTypes: readonly string[];
}

/** A provider type: its configuration schema and how to open a source from a checked configuration. */
export interface InventoryPlugin {
  readonly type: string;
  readonly label: string;
  readonly description: string;
  readonly incremental: boolean;
  readonly objectTypes: readonly string[];
  readonly credential: 'required' | 'optional' | 'none';
  readonly configSchema: z.ZodType<Record<string, unknown>>;
  /** Checks beyond the schema (a YAML document's syntax): problems with their paths. */
  check?(config: Record<string, unknown>): { path: string; message: string; line?: number; column?: number }[];
  open(config: Record<string, unknown>, credential: string | null, http: ProviderHttp): InventorySource;
}
