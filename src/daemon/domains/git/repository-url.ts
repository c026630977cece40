import { problem } from '../../../shared/api/problem.js';

/** Why a repository URL is refused (the `reason` of 422 `git_url_refused`). */
export type UrlRefusal = 'dangerous_transport' | 'local_path' | 'embedded_credentials' | 'unsupported_scheme';

export const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//;
/** git's scp-like syntax: `[user@]host:path`, a colon before any slash. */
export const SCP_LIKE = /^(?:([^@/:]+)@)?([A-Za-z0-9][A-Za-z0-9.-]*|\[[0-9A-Fa-f:.]+\]):(?!\/\/)(.+)$/;

/**
 * What the daemon hands to `git` as a remote: https, http and ssh (URL or scp-like), `file://` only
 * behind SERVICE_GIT_ALLOW_FILE_URLS. `<transport>::<address>` (ext::, fd::, any remote helper) would run
 * programs; a bare path reads the daemon host's disk; credentials in a URL end up in logs and `.git/config`.
 */
export function urlRefusal(url: string, allowFile: boolean): UrlRefusal | undefined {
  if (/^[A-Za-z0-9+._-]+::/.test(url)) return 'dangerous_transport';
  // Whitespace and control characters have no place in a URL; a leading `-` would read as an option.
  if (/[\s\0-\x1f\x7f]/.test(url) || url.startsWith('-')) return 'unsupported_scheme';
  const scheme = SCHEME.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined) {
    const scp = SCP_LIKE.exec(url);
    if (!scp || url.startsWith('/') || url.startsWith('.') || url.startsWith('~')) return 'local_path';
    return undefined;
  }
  if (scheme === 'file') return allowFile ? undefined : 'local_path';
  if (scheme !== 'https' && scheme !== 'http' && scheme !== 'ssh')
    return scheme.includes('ext') ? 'dangerous_transport' : 'unsupported_scheme';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'unsupported_scheme';
  }
  if (!parsed.hostname) return 'unsupported_scheme';
  if (parsed.password) return 'embedded_credentials';
  // ssh names its login user in the URL (`ssh://git@host/…`); on http(s) a user name is a credential.
  if (parsed.username && scheme !== 'ssh') return 'embedded_credentials';
  return undefined;
}

const DETAILS: Record<UrlRefusal, string> = {
  dangerous_transport: 'Remote helpers (`<transport>::<address>`, such as `ext::`) are refused: they run programs on the daemon host.',
  local_path: 'A local path or `file://` URL is refused: give an https://, http:// or ssh:// URL.',
  embedded_credentials: 'Credentials in the URL are refused: give them in `auth` as a secret reference.',
  unsupported_scheme: 'Give an https://, http:// or ssh:// URL, or the scp-like `user@host:path`.',
};

/** 422 `git_url_refused` unless the URL may be used. */
export function checkRepositoryUrl(url: string, allowFile: boolean): void {
  const reason = urlRefusal(url, allowFile);
  if (reason) throw problem('git_url_refused', DETAILS[reason], { reason, errors: [{ path: 'url', message: DETAILS[reason] }] });
}
