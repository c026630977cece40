import { CliError } from '../errors.js';

const isJson = (contentType: string) => /^application\/(?:[\w.+-]+\+)?json\b/i.test(contentType.trim());

/**
 * A successful answer's body, which must be JSON (or empty): anything else (a captive portal's HTML
 * page, a typo'd URL that reaches some other web server) is not svc, and an error naming the URL
 * (exit 6) rather than data a command would print or act on.
 */
export async function jsonBody(response: Response, url: URL | string): Promise<unknown> {
  const text = await response.text();
  if (text === '') return null;
  const contentType = response.headers.get('content-type') ?? '';
  if (isJson(contentType)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw notSvc(url, `${response.status} with a body that is not JSON`);
    }
  }
  throw notSvc(url, `${response.status} with ${contentType === '' ? 'no content type' : contentType}, not JSON`);
}

export function notSvc(url: URL | string, what: string): CliError {
  return new CliError('server_error', `${String(url)} answered ${what}; is this an svc server?`);
}
