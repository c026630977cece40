import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const FETCH_SCRIPT = fileURLToPath(new URL('./fetch-binaries.sh', import.meta.url));

/** Where the Debian packages were unpacked, or why they could not be had (the test skips with it). */
export function fetchBinaries(): Promise<{ root: string } | { skip: string }> {
  return new Promise((resolve) => {
    execFile('sh', [FETCH_SCRIPT], { timeout: 300_000 }, (error, stdout, stderr) => {
      if (error) resolve({ skip: `registry binaries unavailable: ${stderr.trim() || error.message}` });
      else resolve({ root: stdout.trim() });
    });
  });
}

/** A port free now on 127.0.0.1 (to name the registry's address before it runs). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface Binaries {
  readonly root: string;
}

function libraryPath(root: string): string {
  return [join(root, 'usr/lib/x86_64-linux-gnu'), join(root, 'lib/x86_64-linux-gnu'), process.env.LD_LIBRARY_PATH ?? '']
    .filter(Boolean)
    .join(':');
}

/** Waits until something answers HTTP on the port (the registry and nginx log nothing we could wait on portably). */
async function waitForHttp(url: string, child: ChildProcess, output: () => string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (child.exitCode !== null) throw new Error(`${url}: process exited (${child.exitCode}):\n${output()}`);
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error(`${url} did not answer:\n${output()}`);
}

function started(command: string, args: string[], env: NodeJS.ProcessEnv): { child: ChildProcess; output: () => string } {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

export interface RegistryStack {
  /** nginx, as registry clients reach it (`127.0.0.1:<port>`). */
  readonly proxyHost: string;
  /** The registry itself, behind no proxy: what the daemon's image routes talk to. */
  readonly registryUrl: string;
  /** Runs skopeo with the given arguments; resolves with its exit code and output. */
  skopeo(args: string[]): Promise<{ code: number; output: string }>;
  stop(): Promise<void>;
}

export interface StackOptions {
  /** `host:port` of the daemon that answers `GET /registry/authorize`. */
  readonly authorizeUpstream: string;
  readonly proxySecretHeader: string;
  readonly proxySecret: string;
  /** The registry's own port, when the caller had to name it first (the daemon's SERVICE_REGISTRY_URL). */
  readonly registryPort?: number;
}

/**
 * Debian's docker-registry (filesystem storage, deletes enabled) behind Debian's nginx, whose
 * `auth_request` asks the daemon about every request, as the platform's registry proxy does.
 */
export async function startRegistryStack(binaries: Binaries, options: StackOptions): Promise<RegistryStack> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-registry-e2e-'));
  const [registryPort, proxyPort] = [options.registryPort ?? (await freePort()), await freePort()];
  await writeFile(
    join(dir, 'registry.yml'),
    [
      'version: 0.1',
      'log: { level: error }',
      `storage: { filesystem: { rootdirectory: ${join(dir, 'data')} }, delete: { enabled: true } }`,
      `http: { addr: 127.0.0.1:${registryPort} }`,
      '',
    ].join('\n'),
  );
  await writeFile(
    join(dir, 'nginx.conf'),
    `daemon off;
master_process off;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'nginx-error.log')} warn;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${join(dir, 'body')};
  proxy_temp_path ${join(dir, 'proxy')};
  fastcgi_temp_path ${join(dir, 'fastcgi')};
  uwsgi_temp_path ${join(dir, 'uwsgi')};
  scgi_temp_path ${join(dir, 'scgi')};
  client_max_body_size 0;
  server {
    listen 127.0.0.1:${proxyPort};
    location /v2/ {
      auth_request /_registry_authorize;
      proxy_pass http://127.0.0.1:${registryPort};
      proxy_set_header Host $http_host;
      proxy_read_timeout 60s;
    }
    location = /_registry_authorize {
      internal;
      proxy_pass http://${options.authorizeUpstream}/registry/authorize;
      proxy_pass_request_body off;
      proxy_set_header Content-Length "";
      proxy_set_header X-Original-URI $request_uri;
      proxy_set_header X-Original-Method $request_method;
      proxy_set_header ${options.proxySecretHeader} "${options.proxySecret}";
    }
  }
}
`,
  );
  const env = { ...process.env, LD_LIBRARY_PATH: libraryPath(binaries.root) };
  const registry = started(join(binaries.root, 'usr/bin/docker-registry'), ['serve', join(dir, 'registry.yml')], env);
  const nginx = started(
    join(binaries.root, 'usr/sbin/nginx'),
    ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'nginx-error.log')],
    env,
  );
  const stop = async () => {
    for (const { child } of [nginx, registry]) {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitForHttp(`http://127.0.0.1:${registryPort}/v2/`, registry.child, registry.output);
    await waitForHttp(`http://127.0.0.1:${proxyPort}/`, nginx.child, nginx.output);
  } catch (error) {
    await stop();
    throw error;
  }
  const policy = join(binaries.root, 'etc/containers/policy.json');
  return {
    proxyHost: `127.0.0.1:${proxyPort}`,
    registryUrl: `http://127.0.0.1:${registryPort}`,
    skopeo: (args) =>
      new Promise((resolve) => {
        const child = spawn(join(binaries.root, 'usr/bin/skopeo'), ['--policy', policy, ...args], {
          env: { ...env, HOME: dir, XDG_RUNTIME_DIR: dir },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let output = '';
        child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
        child.on('close', (code) => resolve({ code: code ?? -1, output }));
      }),
    stop,
  };
}
