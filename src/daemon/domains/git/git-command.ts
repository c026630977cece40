import { spawn } from 'node:child_process';

/** What a finished `git` said: its exit code and both outputs (stdout as bytes: blobs need not be text). */
export interface GitOutput {
  readonly code: number;
  readonly stdout: Buffer;
  readonly stderr: string;
  readonly timedOut: boolean;
}

export interface GitInvocation {
  /** The git directory (`--git-dir`); absent for commands that need none (`ls-remote`). */
  readonly gitDir?: string;
  readonly args: readonly string[];
  /** `-c` settings for this command alone, after the hardened ones (a remote's pinned address). */
  readonly config?: readonly string[];
  /** Variables added to the hardened environment: credentials (GIT_CONFIG_*, GIT_SSH_COMMAND), an index file, an identity. */
  readonly env?: Readonly<Record<string, string>>;
  readonly input?: string | Buffer;
}

/** Largest output kept from one command; a larger blob or listing is cut and the command counted failed. */
export const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

/**
 * Runs the real `git`, hardened: no terminal prompts, no system or global configuration, no hooks, no
 * credential helpers, only the transports allowed (never `ext::`), a time limit after which the process
 * is killed. Arguments are an array (no shell); credentials arrive only through `env`, never argv.
 */
export class GitCommand {
  constructor(private readonly options: { readonly timeoutMs: number; readonly allowFile: boolean; readonly home: string }) {}

  run(invocation: GitInvocation): Promise<GitOutput> {
    const args = [
      '-c',
      'core.hooksPath=/dev/null',
      '-c',
      'credential.helper=',
      '-c',
      'protocol.ext.allow=never',
      '-c',
      `protocol.file.allow=${this.options.allowFile ? 'always' : 'never'}`,
      '-c',
      'http.followRedirects=false',
      '-c',
      'core.fsmonitor=false',
      ...(invocation.config ?? []),
      ...(invocation.gitDir ? ['--git-dir', invocation.gitDir] : []),
      ...invocation.args,
    ];
    // Its own process group, so a kill reaches the transport helpers it spawns (git-remote-http, ssh), which
    // hold its output pipes open and would otherwise outlive it.
    const child = spawn('git', args, { env: this.#env(invocation.env), stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    const killGroup = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
      child.stdout.destroy();
      child.stderr.destroy();
    };
    return new Promise((resolve, reject) => {
      const out: Buffer[] = [];
      let outBytes = 0;
      let err = '';
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        killGroup();
      }, this.options.timeoutMs);
      child.stdout.on('data', (chunk: Buffer) => {
        outBytes += chunk.length;
        if (outBytes <= MAX_OUTPUT_BYTES) out.push(chunk);
        else killGroup();
      });
      child.stderr.on('data', (chunk: Buffer) => {
        if (err.length < 64 * 1024) err += chunk.toString('utf8');
      });
      child.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code: outBytes > MAX_OUTPUT_BYTES ? 1 : (code ?? 1), stdout: Buffer.concat(out), stderr: err, timedOut });
      });
      child.stdin.on('error', () => undefined);
      child.stdin.end(invocation.input ?? '');
    });
  }

  /** Not the daemon's environment: only what git needs, so nothing (GIT_DIR, askpass programs, tokens) leaks in. */
  #env(extra: Readonly<Record<string, string>> | undefined): Record<string, string> {
    return {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: this.options.home,
      LANG: 'C',
      LC_ALL: 'C',
      GIT_TERMINAL_PROMPT: '0',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_ALLOW_PROTOCOL: this.options.allowFile ? 'https:http:ssh:file' : 'https:http:ssh',
      GIT_SSH_COMMAND: 'ssh -o BatchMode=yes',
      GIT_AUTHOR_NAME: 'svc',
      GIT_AUTHOR_EMAIL: 'svc@localhost',
      GIT_COMMITTER_NAME: 'svc',
      GIT_COMMITTER_EMAIL: 'svc@localhost',
      ...extra,
    };
  }
}

export type RemoteFailure = 'authentication_failed' | 'branch_missing' | 'non_fast_forward' | 'unreachable' | 'timeout' | 'failed';

/** What a failed remote command means, from git's (C-locale) messages. */
export function remoteFailure(output: GitOutput): RemoteFailure {
  if (output.timedOut) return 'timeout';
  const text = output.stderr;
  if (/\[rejected\]|non-fast-forward|fetch first|\[remote rejected\].*(stale info|cannot lock)/i.test(text)) return 'non_fast_forward';
  if (
    /Authentication failed|could not read (Username|Password)|terminal prompts disabled|HTTP 40[13]|returned error: 40[13]|Permission denied \(|Host key verification failed/i.test(
      text,
    )
  )
    return 'authentication_failed';
  if (/couldn't find remote ref|Remote branch .* not found/i.test(text)) return 'branch_missing';
  if (
    /Could not resolve host|Connection refused|Failed to connect|Connection timed out|No route to host|unable to access|does not appear to be a git repository|not found|Could not read from remote/i.test(
      text,
    )
  )
    return 'unreachable';
  return 'failed';
}
