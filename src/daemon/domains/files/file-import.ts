import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { problem } from '../../../shared/api/problem.js';
import { OutboundError } from '../../../shared/net/outbound-http.js';
import type { AuditContext } from '../../audit/audit-context.js';
import { placeOf } from './file-paths.js';
import type { FilesService } from './files-service.js';
import type { OrgRef } from './repositories-service.js';

/** The slice of the shared outbound HTTP guard (`services.outbound`) an import uses. */
export type FetchUrl = (
  url: string,
  request: { readonly timeoutMs: number; readonly maxRedirects: number },
) => Promise<{ readonly status: number; readonly headers: IncomingHttpHeaders; readonly url: string; readonly body: Readable }>;

/** Reasons of the guard that are the URL's fault (422), as opposed to the far side's (502). */
const REFUSALS = new Set(['malformed_url', 'scheme_not_allowed', 'address_not_allowed', 'too_many_redirects']);
/** Redirects an import follows, each hop checked by the guard again. */
const MAX_REDIRECTS = 5;

export interface ImportRequest {
  readonly url: string;
  readonly name?: string | undefined;
  readonly folder?: string | undefined;
  readonly sha256?: string | undefined;
  readonly overwrite?: boolean | undefined;
}

/** The last segment of the URL's path, as the file's name when the request gives none. */
function nameFromUrl(url: string): string {
  try {
    const segment = new URL(url).pathname
      .split('/')
      .filter((s) => s !== '')
      .at(-1);
    return segment ? decodeURIComponent(segment) : '';
  } catch {
    return '';
  }
}

/**
 * A file fetched by the daemon from a URL: through the outbound guard (http(s) only, every address of
 * every hop checked against private, loopback and link-local ranges unless allowed), within the import's
 * time limit and the files' size limit, its checksum verified when given. The body streams into the
 * repository as an upload's does.
 */
export class FileImporter {
  constructor(
    private readonly files: FilesService,
    private readonly fetchUrl: FetchUrl,
    private readonly timeoutMs: number,
  ) {}

  async import(org: OrgRef, repositoryId: string, request: ImportRequest, context: AuditContext | undefined) {
    const name = request.name ?? nameFromUrl(request.url);
    // The name is checked before anything is fetched.
    placeOf(request.folder, name);
    const answer = await this.#fetch(request.url);
    if (answer.status < 200 || answer.status > 299) {
      answer.body.resume();
      throw problem('import_failed', `The URL answered ${answer.status}.`, { reason: 'upstream_status', upstream_status: answer.status });
    }
    const length = Number(answer.headers['content-length']);
    const declaredType = answer.headers['content-type']?.split(';')[0]?.trim();
    try {
      return await this.files.upload(
        org,
        repositoryId,
        {
          name,
          folder: request.folder,
          sha256: request.sha256,
          overwrite: request.overwrite ?? false,
          declaredType: declaredType || undefined,
          declaredBytes: Number.isFinite(length) ? length : undefined,
          sourceUrl: request.url,
        },
        answer.body,
        context,
      );
    } catch (error) {
      answer.body.destroy();
      throw outboundProblem(error) ?? error;
    }
  }

  async #fetch(url: string) {
    try {
      return await this.fetchUrl(url, { timeoutMs: this.timeoutMs, maxRedirects: MAX_REDIRECTS });
    } catch (error) {
      throw outboundProblem(error) ?? error;
    }
  }
}

/** The guard's refusal or failure as the import's problem (a body cut off by the deadline too); undefined for anything else. */
function outboundProblem(error: unknown) {
  if ((error as Error).name === 'AbortError' || (error as Error).name === 'TimeoutError') {
    return problem('import_failed', 'The URL could not be fetched in time (timeout).', { reason: 'timeout' });
  }
  if (!(error instanceof OutboundError)) return undefined;
  const reason = error.reason;
  if (REFUSALS.has(reason)) return problem('import_refused', `The daemon will not fetch this URL (${reason}).`, { reason });
  return problem('import_failed', `The URL could not be fetched (${reason}).`, { reason });
}
