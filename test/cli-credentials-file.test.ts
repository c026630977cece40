import { describe, expect, it } from 'vitest';
import { parseCredentialsFile } from '../src/cli/auth/credentials-file.js';

const minimal = { server: 'https://svc.example', method: 'token', access_token: 'svc_pat_x', updated_at: '2026-01-01T00:00:00Z' };

describe('the credentials file, checked without zod', () => {
  it('fills the optional fields of a profile as the zod schema did, and drops unknown ones', () => {
    expect(parseCredentialsFile({ version: 1, profiles: { default: { ...minimal, extra: 1 } } })).toEqual({
      version: 1,
      profiles: {
        default: {
          ...minimal,
          issuer: null,
          client_id: null,
          refresh_token: null,
          expires_at: null,
          token_type: 'Bearer',
          scope: null,
          username: null,
        },
      },
    });
  });

  it('keeps the values a login stored', () => {
    const full = {
      ...minimal,
      method: 'device',
      issuer: 'https://idp',
      client_id: 'svc-cli',
      refresh_token: 'r',
      expires_at: '2026-01-01T00:05:00Z',
      token_type: 'DPoP',
      scope: 'openid',
      username: 'ada',
    };
    expect(parseCredentialsFile({ version: 1, profiles: { work: full } })?.profiles.work).toEqual(full);
  });

  it('refuses another version, a missing required field, a wrong type or an unknown login method', () => {
    expect(parseCredentialsFile({ version: 2, profiles: {} })).toBeUndefined();
    expect(parseCredentialsFile({ version: 1, profiles: [] })).toBeUndefined();
    expect(parseCredentialsFile([])).toBeUndefined();
    const { access_token: _, ...withoutToken } = minimal;
    expect(parseCredentialsFile({ version: 1, profiles: { default: withoutToken } })).toBeUndefined();
    expect(parseCredentialsFile({ version: 1, profiles: { default: { ...minimal, expires_at: 5 } } })).toBeUndefined();
    expect(parseCredentialsFile({ version: 1, profiles: { default: { ...minimal, token_type: null } } })).toBeUndefined();
    expect(parseCredentialsFile({ version: 1, profiles: { default: { ...minimal, method: 'password' } } })).toBeUndefined();
  });
});
