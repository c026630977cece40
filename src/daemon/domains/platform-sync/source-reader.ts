import { setTimeout as sleep } from 'node:timers/promises';
import { problem } from '../../../shared/api/problem.js';
import { OutboundError, type OutboundHttp } from '../../../shared/net/outbound-http.js';
import type { FileTextReader } from '../files/file-text.js';
import { SecretReferenceError, type SecretResolver } from '../secrets/secret-resolver.js';
import { secretProblems } from '../secrets/secret-problems.js';
import type { ProfileRow } from './profiles-repo.js';

/** Largest bundle a profile reads from a file or another installation, in bytes. */
export const SOURCE_MAX_BYTES = 10 * 1024 * 1024;

export interface SourceReaderOptions {
  /** Between two looks at the other installation's export operation. */
  readonly pollMs: number;
  /** How long the other installation's export may take before the plan gives up. */
  readonly waitMs: number;
}

const invalid = (detail: string, reason: string) => problem('sync_source_invalid', detail, { reason });
const unavailable = (detail: string, reason: string) => problem('sync_source_unavailable', detail, { reason });

interface Operation {
  readonly status?: string;
  readonly result?: { readonly yaml?: unknown } | null;
  readonly error?: { readonly code?: unknown } | null;
}

/**
 * Reads a profile's source as bundle text: the inline bundle, a file of the home organization's file
 * repositories, or an export operation of another installation (`POST /config-exchange/operations
 * {mode: export}`, polled until it ends) reached through the outbound guard with the profile's token.
 */
export class SourceReader {
  constructor(
    private readonly secrets: Pick<SecretResolver, 'resolveReference'>,
    private readonly files: FileTextReader,
    private readonly outbound: Pick<OutboundHttp, 'request'>,
    private readonly options: SourceReaderOptions,
  ) {}

  async read(profile: ProfileRow, homeOrgId: string): Promise<string> {
    switch (profile.source_kind) {
      case 'bundle':
        return profile.source_bundle ?? '';
      case 'file':
        return this.file(homeOrgId, profile.source_file_id ?? '');
      case 'installation':
        return this.installation(profile, homeOrgId);
    }
  }

  private async file(orgId: string, fileId: string): Promise<string> {
    const read = await this.files.readText(orgId, fileId, SOURCE_MAX_BYTES);
    if (read.ok) return read.text;
    throw invalid(`The profile's bundle file cannot be read (${read.reason}).`, `file_${read.reason}`);
  }

  private async installation(profile: ProfileRow, homeOrgId: string): Promise<string> {
    const token = await this.token(homeOrgId, profile.source_token_ref ?? '');
    const base = (profile.source_base_url ?? '').replace(/\/+$/, '');
    const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
    const body: Record<string, unknown> = { mode: 'export' };
    if (profile.source_org !== null) body.org = profile.source_org;
    if (profile.families.length > 0) body.families = profile.families;
    const started = await this.call(`${base}/config-exchange/operations`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (started.status !== 202) throw unavailable(`The other installation refused the export (HTTP ${started.status}).`, 'refused');
    const id = (started.body as { correlation_id?: unknown }).correlation_id;
    if (typeof id !== 'string' || !/^[A-Za-z0-9-]{1,100}$/.test(id))
      throw unavailable('The other installation answered no operation.', 'malformed');
    const deadline = Date.now() + this.options.waitMs;
    for (;;) {
      const polled = await this.call(`${base}/config-exchange/operations/${id}`, { headers });
      if (polled.status !== 200) throw unavailable(`The other installation's export could not be read (HTTP ${polled.status}).`, 'refused');
      const operation = polled.body as Operation;
      if (operation.status === 'succeeded' && typeof operation.result?.yaml === 'string') return operation.result.yaml;
      if (operation.status !== 'queued' && operation.status !== 'running') {
        throw unavailable(`The other installation's export ended ${String(operation.status)}.`, 'export_failed');
      }
      if (Date.now() >= deadline) throw unavailable("The other installation's export did not finish in time.", 'timeout');
      await sleep(this.options.pollMs);
    }
  }

  private async token(orgId: string, reference: string): Promise<string> {
    try {
      return await this.secrets.resolveReference(orgId, reference);
    } catch (error) {
      if (error instanceof SecretReferenceError)
        throw invalid(`The profile's token reference cannot be resolved (${error.problem}).`, 'token_unresolvable');
      throw secretProblems.backendUnavailable();
    }
  }

  private async call(url: string, request: Parameters<OutboundHttp['request']>[1]): Promise<{ status: number; body: unknown }> {
    try {
      const response = await this.outbound.request(url, { ...request, maxResponseBytes: SOURCE_MAX_BYTES });
      const text = await response.text();
      let body: unknown = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        throw unavailable('The other installation answered something that is not JSON.', 'malformed');
      }
      return { status: response.status, body: body ?? {} };
    } catch (error) {
      if (error instanceof OutboundError) throw unavailable(`The other installation cannot be reached (${error.reason}).`, error.reason);
      throw error;
    }
  }
}
