import { problem } from '../../../shared/api/problem.js';

/** Manifest media types a tag may point at; the registry answers a HEAD with the digest of the one it holds. */
const MANIFEST_TYPES = [
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
].join(', ');

const CATALOG_PAGE = 1000;

function unavailable(detail: string) {
  return problem('registry_unavailable', detail, {}, { 'Retry-After': '5' });
}

/**
 * The platform registry's own API (distribution's HTTP API V2) at its internal address, an operator's
 * setting (SERVICE_REGISTRY_URL): not a user's address, so not the outbound guard's.
 */
export class RegistryApi {
  constructor(
    private readonly baseUrl: string | undefined,
    private readonly timeoutMs: number,
  ) {}

  /** Whether the registry's API answers (`GET /v2/`: 200, or 401 when it asks for credentials); throws when not configured or not answering. */
  async ping(): Promise<number> {
    const response = await this.send('GET', '');
    await response.arrayBuffer();
    if (response.status !== 200 && response.status !== 401) throw unavailable(`The registry's API answered ${response.status}.`);
    return response.status;
  }

  /** Every repository name (`_catalog`, followed page by page). */
  async repositories(): Promise<string[]> {
    const names: string[] = [];
    let last: string | undefined;
    for (;;) {
      const query = `n=${CATALOG_PAGE}${last === undefined ? '' : `&last=${encodeURIComponent(last)}`}`;
      const response = await this.send('GET', `_catalog?${query}`);
      if (response.status !== 200) throw unavailable(`The registry's catalogue answered ${response.status}.`);
      const page = ((await this.json(response)) as { repositories?: unknown }).repositories;
      const batch = Array.isArray(page) ? page.filter((name): name is string => typeof name === 'string') : [];
      names.push(...batch);
      if (batch.length < CATALOG_PAGE || !response.headers.get('link')) return names;
      last = batch[batch.length - 1];
    }
  }

  /** The repository's tags, or undefined when the registry has no such repository. */
  async tags(repository: string): Promise<string[] | undefined> {
    const response = await this.send('GET', `${repository}/tags/list`);
    if (response.status === 404) return undefined;
    if (response.status !== 200) throw unavailable(`The registry's tag list answered ${response.status}.`);
    const tags = ((await this.json(response)) as { tags?: unknown }).tags;
    return Array.isArray(tags) ? tags.filter((tag): tag is string => typeof tag === 'string').sort() : [];
  }

  /** The digest of the manifest a tag (or digest) names, or undefined when there is none. */
  async manifestDigest(repository: string, reference: string): Promise<string | undefined> {
    const response = await this.send('HEAD', `${repository}/manifests/${encodeURIComponent(reference)}`, { accept: MANIFEST_TYPES });
    if (response.status === 404) return undefined;
    if (response.status !== 200) throw unavailable(`The registry's manifest answered ${response.status}.`);
    return response.headers.get('docker-content-digest') ?? undefined;
  }

  /** Deletes a manifest by digest (every tag naming it goes with it); false when it was already gone. */
  async deleteManifest(repository: string, digest: string): Promise<boolean> {
    const response = await this.send('DELETE', `${repository}/manifests/${encodeURIComponent(digest)}`);
    await response.arrayBuffer();
    if (response.status === 202 || response.status === 200) return true;
    if (response.status === 404) return false;
    // 405: the registry runs without `storage.delete.enabled`.
    throw unavailable(`The registry refused the delete (${response.status}).`);
  }

  private async send(method: string, path: string, headers: Record<string, string> = {}): Promise<Response> {
    if (this.baseUrl === undefined) {
      throw problem('registry_not_configured', "The platform registry's internal URL (SERVICE_REGISTRY_URL) is not set.");
    }
    const base = this.baseUrl.endsWith('/') ? this.baseUrl : `${this.baseUrl}/`;
    try {
      return await fetch(new URL(`v2/${path}`, base), { method, headers, signal: AbortSignal.timeout(this.timeoutMs), redirect: 'manual' });
    } catch {
      throw unavailable('The registry did not answer.');
    }
  }

  private async json(response: Response): Promise<unknown> {
    try {
      return await response.json();
    } catch {
      throw unavailable('The registry answered something that is not JSON.');
    }
  }
}
