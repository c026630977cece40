import type { IncomingMessage, ServerResponse } from 'node:http';
import Provider, { errors, type Interaction } from 'oidc-provider';
import { loginPage, messagePage } from './pages.js';
import { authenticateDevUser } from './users.js';

const INTERACTION_PATH = /^\/interaction\/([A-Za-z0-9_-]+)(\/login)?$/;
const MAX_FORM_BYTES = 16 * 1024;

function send(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(html);
}

async function readFormBody(req: IncomingMessage): Promise<URLSearchParams> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) throw new errors.InvalidRequest('form too large');
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** Consent is implied for these first-party clients: grant whatever the pending request asks for. */
async function grantConsent(provider: Provider, interaction: Interaction): Promise<string> {
  const {
    prompt: { details },
    params,
    session,
    grantId,
  } = interaction;
  const grant =
    (grantId === undefined ? undefined : await provider.Grant.find(grantId)) ??
    new provider.Grant({ accountId: session?.accountId, clientId: String(params.client_id) });
  const missingScope = details.missingOIDCScope as string[] | undefined;
  const missingClaims = details.missingOIDCClaims as string[] | undefined;
  const missingResourceScopes = details.missingResourceScopes as Record<string, string[]> | undefined;
  if (missingScope !== undefined) grant.addOIDCScope(missingScope.join(' '));
  if (missingClaims !== undefined) grant.addOIDCClaims(missingClaims);
  for (const [indicator, scopes] of Object.entries(missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(' '));
  return grant.save();
}

async function handle(provider: Provider, req: IncomingMessage, res: ServerResponse, uid: string, login: boolean): Promise<void> {
  const interaction = await provider.interactionDetails(req, res);
  // The interaction cookie is scoped to /interaction/<uid>; a URL naming another uid is a stale tab.
  if (interaction.uid !== uid) throw new errors.SessionNotFound('interaction mismatch');
  const action = `/interaction/${uid}/login`;

  if (interaction.prompt.name === 'login') {
    if (!login || req.method !== 'POST') {
      send(res, 200, loginPage(action));
      return;
    }
    const form = await readFormBody(req);
    const username = form.get('username') ?? '';
    const user = authenticateDevUser(username, form.get('password') ?? '');
    if (user === undefined) {
      // Like Keycloak: the form again with an error, and no session.
      send(res, 200, loginPage(action, { username, error: 'Invalid username or password.' }));
      return;
    }
    await provider.interactionFinished(req, res, { login: { accountId: user.sub } }, { mergeWithLastSubmission: false });
    return;
  }

  if (interaction.prompt.name === 'consent' && !login) {
    const grantId = await grantConsent(provider, interaction);
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
    return;
  }
  send(res, 400, messagePage('Unexpected interaction', { prompt: interaction.prompt.name }));
}

/**
 * Serves the provider's interaction URLs (`/interaction/<uid>`, the login form posting to
 * `/interaction/<uid>/login`); answers false for any other path so the provider can take it.
 */
export async function handleInteraction(provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  const match = INTERACTION_PATH.exec(new URL(req.url ?? '/', 'http://localhost').pathname);
  if (match === null) return false;
  const uid = match[1] ?? '';
  try {
    if (req.method !== 'GET' && req.method !== 'POST') {
      res.writeHead(405, { allow: 'GET, POST' }).end();
      return true;
    }
    await handle(provider, req, res, uid, match[2] !== undefined);
  } catch (err) {
    if (res.headersSent) throw err;
    if (err instanceof errors.OIDCProviderError) {
      send(res, err.statusCode, messagePage('Sign-in failed', { error: err.error, error_description: err.error_description }));
    } else {
      throw err;
    }
  }
  return true;
}
