import { importJWK, type JWK } from 'jose';
import type { z } from 'zod';
import { problems } from '../../../shared/api/problems.js';
import type { envKey, envKeyBody } from '../../../shared/api/workers.js';
import type { EnvKeyRow, EnvKeysRepo } from './env-keys-repo.js';

type EnvKeyBody = z.output<typeof envKeyBody>;
type EnvKey = z.output<typeof envKey>;

/** The key type each sealing algorithm takes (ECDH-ES on a curve, or an X25519 key; RSA-OAEP an RSA key). */
const KEY_TYPES: Readonly<Record<EnvKeyBody['algorithm'], readonly string[]>> = {
  'ECDH-ES+A256KW': ['EC', 'OKP'],
  'RSA-OAEP-256': ['RSA'],
};

/** Members only a private or secret key has: a worker registers its public half alone. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

function envKeyView(row: EnvKeyRow): EnvKey {
  return {
    worker_id: row.worker_id,
    algorithm: row.algorithm,
    key_id: row.key_id,
    public_key_jwk: row.public_key_jwk,
    created_at: new Date(row.created_at).toISOString(),
    expires_at: row.expires_at === null ? null : new Date(row.expires_at).toISOString(),
  };
}

/** Workers' public keys for the values sealed to them: checked to be public keys of the algorithm's kind. */
export class EnvKeysService {
  constructor(private readonly repo: EnvKeysRepo) {}

  async put(body: EnvKeyBody): Promise<{ key: EnvKey; created: boolean }> {
    await checkPublicKey(body.public_key_jwk, body.algorithm);
    const { row, created } = await this.repo.put({
      workerId: body.worker_id,
      algorithm: body.algorithm,
      keyId: body.key_id,
      publicKeyJwk: body.public_key_jwk,
      expiresAt: body.expires_at ?? null,
    });
    return { key: envKeyView(row), created };
  }

  async remove(workerId: string): Promise<void> {
    if (!(await this.repo.remove(workerId))) throw problems.resourceNotFound('Env key');
  }
}

/** 422 unless `jwk` is a public key jose can use with `algorithm`. */
async function checkPublicKey(jwk: Record<string, unknown>, algorithm: EnvKeyBody['algorithm']): Promise<void> {
  const secret = PRIVATE_MEMBERS.find((member) => member in jwk);
  if (secret) {
    throw problems.validation([{ path: `public_key_jwk.${secret}`, message: 'a private key member: register the public key only' }]);
  }
  if (!KEY_TYPES[algorithm].includes(String(jwk.kty))) {
    throw problems.validation([{ path: 'public_key_jwk.kty', message: `must be ${KEY_TYPES[algorithm].join(' or ')} for ${algorithm}` }]);
  }
  try {
    await importJWK(jwk as JWK, algorithm);
  } catch {
    throw problems.validation([{ path: 'public_key_jwk', message: `not a usable ${algorithm} public key` }]);
  }
}
