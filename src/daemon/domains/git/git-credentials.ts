import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { problem } from '../../../shared/api/problem.js';
import { SecretBackendError, SecretReferenceError, type SecretResolver } from '../secrets/secret-resolver.js';
import type { GitRepositoryRow } from './git-repositories-repo.js';

/** A remote's credentials for one operation: variables for git's environment, and what to remove afterwards. */
export interface RemoteCredentials {
  readonly env: Readonly<Record<string, string>>;
  /** Values that must never be shown (scrubbed from anything logged). */
  readonly secrets: readonly string[];
  dispose(): Promise<void>;
}

const nothingToDispose = async () => undefined;

/** Single quotes for ssh's command line (GIT_SSH_COMMAND goes through a shell). */
const quoted = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** GIT_SSH_COMMAND: ssh in batch mode with `options`, each quoted. */
function sshCommand(options: readonly string[]): string {
  return ['ssh', ...['-o', 'BatchMode=yes', ...options].map(quoted)].join(' ');
}

/**
 * Resolves the repository's secret reference and hands it to git without argv or URL: a token as an
 * `http.extraHeader` through GIT_CONFIG_COUNT/KEY/VALUE, a private key as a 0600 file in a private
 * temporary folder named by GIT_SSH_COMMAND, removed by `dispose`. `sshPin`: the ssh options of the
 * outbound guard's pin (`checkedRemote`), in GIT_SSH_COMMAND whatever the credential.
 */
export async function remoteCredentials(
  resolver: SecretResolver,
  repo: GitRepositoryRow,
  tmpRoot: string,
  sshPin: readonly string[],
): Promise<RemoteCredentials> {
  if (repo.auth_type === 'none' || !repo.secret_ref) {
    const env: Record<string, string> = sshPin.length > 0 ? { GIT_SSH_COMMAND: sshCommand(sshPin) } : {};
    return { env, secrets: [], dispose: nothingToDispose };
  }
  const value = await resolveSecret(resolver, repo.org_id, repo.secret_ref);
  if (repo.auth_type === 'token') {
    const basic = Buffer.from(`${repo.auth_username ?? 'x-access-token'}:${value}`, 'utf8').toString('base64');
    return {
      env: { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'http.extraHeader', GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}` },
      secrets: [value, basic],
      dispose: nothingToDispose,
    };
  }
  const dir = await mkdtemp(join(tmpRoot, 'ssh-'));
  const keyFile = join(dir, 'key');
  const knownHosts = join(dir, 'known_hosts');
  await writeFile(keyFile, value.endsWith('\n') ? value : `${value}\n`, { mode: 0o600 });
  await writeFile(knownHosts, repo.known_hosts ?? '', { mode: 0o600 });
  // With known_hosts given, only that host key is accepted; without, the first key seen is (trust on first use).
  const checking = repo.known_hosts ? 'yes' : 'accept-new';
  const command = sshCommand([
    '-i',
    keyFile,
    '-o',
    'IdentitiesOnly=yes',
    '-o',
    `StrictHostKeyChecking=${checking}`,
    '-o',
    `UserKnownHostsFile=${knownHosts}`,
    '-F',
    '/dev/null',
    ...sshPin,
  ]);
  return { env: { GIT_SSH_COMMAND: command }, secrets: [value], dispose: () => rm(dir, { recursive: true, force: true }) };
}

async function resolveSecret(resolver: SecretResolver, orgId: string, reference: string): Promise<string> {
  try {
    return await resolver.resolveReference(orgId, reference);
  } catch (error) {
    if (error instanceof SecretReferenceError || error instanceof SecretBackendError) {
      const reason = 'credential_unavailable';
      throw problem('git_remote_failed', "The repository's secret reference does not resolve to a credential.", { reason });
    }
    throw error;
  }
}

/** `text` with every credential value replaced, for what is logged. */
export function scrubbed(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('***');
  return out;
}
