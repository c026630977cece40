import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const TEST_DIR = fileURLToPath(new URL('.', import.meta.url));

/**
 * What would leak from one test file into the next: vitest runs with `isolate: false` (vitest.config.ts),
 * so a worker's files share one process, its environment, its module registry and its timers.
 */
const LEAKS: readonly { readonly name: string; readonly pattern: RegExp }[] = [
  { name: 'a mocked module', pattern: /\bvi\.(do)?mock\(/ },
  { name: 'fake timers', pattern: /\bvi\.useFakeTimers\(/ },
  { name: 'a stubbed global or environment variable', pattern: /\bvi\.stub(Env|Global)\(/ },
  { name: 'an assignment to process.env', pattern: /process\.env(\.\w+|\[[^\]]+\])\s*(=(?!=)|\?\?=|\|\|=)|delete\s+process\.env/ },
  { name: 'a merge into process.env', pattern: /Object\.assign\(\s*process\.env\b/ },
  { name: 'a change of directory', pattern: /process\.chdir\(/ },
];

async function testSources(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => join(e.parentPath, e.name));
}

describe('the test suite, run without isolation', () => {
  it('has no file that mocks modules, fakes timers, stubs globals, sets process.env or changes directory', async () => {
    const self = fileURLToPath(import.meta.url);
    const found: string[] = [];
    for (const path of await testSources(TEST_DIR)) {
      if (path === self) continue;
      const source = await readFile(path, 'utf8');
      for (const leak of LEAKS) if (leak.pattern.test(source)) found.push(`${relative(TEST_DIR, path)}: ${leak.name}`);
    }
    expect(found).toEqual([]);
  });

  it('would find each of them', () => {
    const samples = [
      "vi.mock('node:fs')",
      'vi.useFakeTimers()',
      "vi.stubEnv('A', 'b')",
      "process.env.SERVICE_X = 'y'",
      "process.env['SERVICE_X'] = 'y'",
      'delete process.env.SERVICE_X',
      "Object.assign(process.env, { SERVICE_X: 'y' })",
      "process.chdir('/tmp')",
    ];
    for (const sample of samples) expect(LEAKS.some((leak) => leak.pattern.test(sample))).toBe(true);
    for (const read of ["if (process.env.SERVICE_X === 'y') {}", 'const env = Object.assign({}, process.env)'])
      expect(LEAKS.some((leak) => leak.pattern.test(read))).toBe(false);
  });
});
