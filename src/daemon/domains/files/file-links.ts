import type { z } from 'zod';
import type { signedUrl } from '../../../shared/api/files.js';
import { fileNotFound } from './file-view.js';
import type { FileRow } from './files-repo.js';
import type { FilesService } from './files-service.js';
import type { OrgRef } from './repositories-service.js';
import type { UrlSigner } from './url-signer.js';

type SignedUrl = z.infer<typeof signedUrl>;

export interface LinkSettings {
  /** SERVICE_FILE_URL_TTL_SECONDS */
  readonly ttlSeconds: number;
  /** SERVICE_FILE_DEVICE_URL_TTL_SECONDS */
  readonly deviceTtlSeconds: number;
  /** SERVICE_DEVICE_DOWNLOAD_BASE_URL */
  readonly deviceBaseUrl?: string | undefined;
}

/**
 * Presigned download URLs: `<base>/files/<id>/<name>?expires=…&signature=…`, which `GET
 * /files/{file_id}/{filename}` serves to anyone holding it until it expires, as long as the file's bytes
 * are the ones it was made for. Users get one for a file they may read; workers get one for a device
 * (an upgrade fetching its image), based on the address devices reach.
 */
export class FileLinks {
  constructor(
    private readonly files: FilesService,
    private readonly signer: UrlSigner,
    private readonly settings: LinkSettings,
  ) {}

  async forUser(org: OrgRef, id: string, base: string, expiresIn: number | undefined): Promise<SignedUrl> {
    const row = await this.files.readable(org, id);
    return this.#link(row, base, expiresIn ?? this.settings.ttlSeconds);
  }

  async forDevice(id: string, callerBase: string, expiresIn: number | undefined): Promise<SignedUrl> {
    const row = await this.files.byId(id);
    return this.#link(row, this.settings.deviceBaseUrl ?? callerBase, expiresIn ?? this.settings.deviceTtlSeconds);
  }

  /** The file a presigned URL names, once its signature and expiry hold and its name matches. */
  async redeem(id: string, filename: string, expires: string | undefined, signature: string | undefined): Promise<FileRow> {
    const row = await this.files.byId(id);
    await this.signer.verify({ fileId: row.id, sha256: row.sha256, revision: row.revision, method: 'GET' }, expires, signature);
    // The name is for the device's or browser's sake; another name for the same bytes is still the file.
    if (filename === '') throw fileNotFound();
    return row;
  }

  async #link(row: FileRow, base: string, ttl: number): Promise<SignedUrl> {
    const { expires, signature } = await this.signer.sign(
      { fileId: row.id, sha256: row.sha256, revision: row.revision, method: 'GET' },
      ttl,
    );
    const url = `${base.replace(/\/+$/, '')}/files/${row.id}/${encodeURIComponent(row.name)}?expires=${expires}&signature=${signature}`;
    return { url, method: 'GET', expires_at: new Date(expires * 1000).toISOString() };
  }
}
