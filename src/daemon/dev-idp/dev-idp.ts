import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Provider from 'oidc-provider';
import { handleInteraction } from './interactions.js';
import { generateSigningKey, type SigningKey } from './keys.js';
import { MemoryStore } from './memory-store.js';
import { mintPayload, signWith } from './mint.js';
import { buildProvider, type ProviderSettings } from './provider-config.js';
import type { DevIdp, DevIdpOptions } from './types.js';

/** The Provider in service and its request handler, swapped together when keys rotate. */
interface Serving {
  readonly settings: ProviderSettings;
  readonly provider: Provider;
  readonly callback: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
}

function serve(settings: ProviderSettings): Serving {
  const provider = buildProvider(settings);
  return { settings, provider, callback: provider.callback() };
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void, host: string, port: number): Promise<Server> {
  const server = createServer(handler);
  server.listen(port, host);
  await Promise.race([once(server, 'listening'), once(server, 'error').then(([err]) => Promise.reject(err as Error))]);
  return server;
}

async function close(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // Keep-alive sockets would otherwise keep answering after stop().
  server.closeAllConnections();
  await closed;
}

/** Starts the embedded OpenID provider for development and tests on its own HTTP listener. */
export async function startDevIdp(options: DevIdpOptions = {}): Promise<DevIdp> {
  const host = options.host ?? '127.0.0.1';
  let current: Serving | undefined;
  let server: Server | undefined;

  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const serving = current;
    if (serving === undefined) {
      res.writeHead(503).end();
      return;
    }
    handleInteraction(serving.provider, req, res)
      .then((handled) => (handled ? undefined : serving.callback(req, res)))
      .catch((err: unknown) => {
        // A dev tool: say what broke rather than leave a bare 500 to puzzle over.
        console.error('dev IdP request failed:', err);
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
  };

  const keys = [await generateSigningKey()];
  // The issuer names the port, so listen first and build the provider once the port is known.
  server = await listen(handler, host, options.port ?? 0);
  const { port } = server.address() as AddressInfo;
  const issuer = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  try {
    current = serve({
      issuer,
      audience: options.audience ?? 'service-api',
      automationRoles: [...(options.automationRoles ?? ['operator'])],
      keys,
      cookieKeys: [randomBytes(32).toString('base64url')],
      store: new MemoryStore(),
    });
  } catch (err) {
    await close(server);
    throw err;
  }

  const signingKey = (): SigningKey => {
    const [key] = current?.settings.keys ?? [];
    if (key === undefined) throw new Error('dev IdP has no signing key');
    return key;
  };

  return {
    issuer,
    jwksUri: `${issuer}/jwks`,
    mintAccessToken: async (mintOptions) => {
      const settings = current?.settings;
      if (settings === undefined) throw new Error('dev IdP is not configured');
      return signWith(signingKey(), mintPayload(issuer, settings.audience, mintOptions));
    },
    sign: async (payload, header) => signWith(signingKey(), payload, header),
    rotateKeys: async () => {
      const fresh = await generateSigningKey();
      // Read after the await so that overlapping rotations each keep the other's key.
      const previous = current;
      if (previous === undefined) throw new Error('dev IdP is not configured');
      current = serve({ ...previous.settings, keys: [fresh, ...previous.settings.keys] });
    },
    stop: async () => {
      const running = server;
      server = undefined;
      if (running !== undefined) await close(running);
    },
    start: async () => {
      if (server === undefined) server = await listen(handler, host, port);
    },
  };
}
