import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SVC_VERSION } from '../src/shared/version.js';
import { collect, spawnTs } from './helpers/spawn.js';

describe('the svc CLI', () => {
  it('carries the version of package.json', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(SVC_VERSION).toBe(pkg.version);
  });

  it('prints its version with --version', async () => {
    const { code, stdout } = await collect(spawnTs('src/cli/main.ts', ['--version'], {})).finished;
    expect(code).toBe(0);
    expect(stdout.trim()).toBe(SVC_VERSION);
  });

  it('prints usage with --help', async () => {
    const { code, stdout } = await collect(spawnTs('src/cli/main.ts', ['--help'], {})).finished;
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: svc/);
  });
});
