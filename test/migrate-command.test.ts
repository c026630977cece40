import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyTemplate, type DatabaseLocation } from './helpers/database.js';
import { collect, spawnTs } from './helpers/spawn.js';

let location: DatabaseLocation;
beforeAll(async () => {
  location = await copyTemplate();
});
afterAll(() => location?.drop());

describe('svcd migrate', () => {
  it('brings the schema up to date and exits 0 without serving', async () => {
    const { code, stdout } = await collect(spawnTs('src/daemon/main.ts', ['migrate'], { ...location.env, SERVICE_LOG_LEVEL: 'info' }))
      .finished;
    expect(code).toBe(0);
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { migrations?: string[]; url?: string });
    expect(lines.some((l) => Array.isArray(l.migrations) && l.migrations.length === 0)).toBe(true);
    expect(lines.some((l) => l.url)).toBe(false);
  });
});
