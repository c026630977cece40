import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/daemon/config/config.js';
import { SETTINGS } from '../src/daemon/config/settings.js';
import { collect, spawnTs } from './helpers/spawn.js';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((p) => p.variable);
    throw error;
  }
  return [];
}

const PRODUCTION_OK = {
  SERVICE_ENVIRONMENT: 'production',
  SERVICE_INTERNAL_API_TOKEN: 'a'.repeat(40),
  SERVICE_IDP_ISSUER: 'https://idp.example.test/realms/svc',
  SERVICE_SECRETS_ENCRYPTION_KEY: 'b'.repeat(64),
};

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      environment: 'dev',
      host: '127.0.0.1',
      port: 8080,
      idpAudience: 'service-api',
      idpUiClientId: 'service-ui',
      idpJwksCacheTtl: 3600,
      authDisabled: false,
      internalApiTokenOptional: false,
      trustProxyHeaders: false,
      orgAutoJoin: true,
      orgIdpSync: false,
      orgIdpGroupClaim: 'groups',
      orgIdpSyncAuthoritative: true,
      databaseUrl: undefined,
      isProduction: false,
    });
  });

  it('names the variable of every bad value, all at once', () => {
    expect(
      problemsOf({
        SERVICE_PORT: '70000',
        SERVICE_AUTH_DISABLED: 'maybe',
        SERVICE_ENVIRONMENT: 'staging',
        SERVICE_DATABASE_URL: 'mysql://x',
      }),
    ).toEqual(['SERVICE_ENVIRONMENT', 'SERVICE_PORT', 'SERVICE_DATABASE_URL', 'SERVICE_AUTH_DISABLED']);
  });

  it('does not echo a secret value in its message', () => {
    try {
      loadConfig({ SERVICE_DATABASE_URL: 'mysql://user:hunter2@db' });
    } catch (error) {
      expect((error as Error).message).not.toContain('hunter2');
    }
  });

  it('accepts a complete production configuration', () => {
    expect(problemsOf(PRODUCTION_OK)).toEqual([]);
    expect(loadConfig({ ...PRODUCTION_OK, SERVICE_ENVIRONMENT: 'prod' }).isProduction).toBe(true);
  });

  it.each([
    ['SERVICE_AUTH_DISABLED', { ...PRODUCTION_OK, SERVICE_AUTH_DISABLED: 'true' }],
    ['SERVICE_INTERNAL_API_TOKEN', { ...PRODUCTION_OK, SERVICE_INTERNAL_API_TOKEN: '' }],
    ['SERVICE_IDP_ISSUER', { ...PRODUCTION_OK, SERVICE_IDP_ISSUER: '' }],
    ['SERVICE_SECRETS_ENCRYPTION_KEY', { ...PRODUCTION_OK, SERVICE_SECRETS_ENCRYPTION_KEY: '' }],
  ])('in production, refuses to start over %s, naming it', async (variable, env) => {
    expect(problemsOf(env)).toEqual([variable]);
    const { finished } = collect(spawnTs('src/daemon/main.ts', [], { ...env, SERVICE_PORT: '0' }));
    const { code, stderr } = await finished;
    expect(code).toBe(78);
    const summary = JSON.parse(stderr.trim().split('\n').at(-1)!) as { code: string; variables: string[] };
    expect(summary).toEqual({ code: 'config.invalid', variables: [variable] });
  });

  it('documents every setting in the README table', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    for (const definition of Object.values(SETTINGS)) {
      expect(readme, definition.env).toContain(`| \`${definition.env}\` |`);
    }
  });
});
