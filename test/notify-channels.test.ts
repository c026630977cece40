import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CHANNELS } from '../src/daemon/db/channels.js';

const root = fileURLToPath(new URL('..', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

/** Every `'svc_…'` literal a file sends with pg_notify. */
function notified(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  return [...text.matchAll(/pg_notify\('([^']+)'/g)].map((match) => match[1]!);
}

describe('NOTIFY channels', () => {
  it('are named once each', () => {
    expect(new Set(CHANNELS).size).toBe(CHANNELS.length);
  });

  it('a migration notifies only on a channel db/channels.ts names, so a trigger and its listener cannot drift apart', () => {
    const sent = sources('migrations').flatMap(notified);
    expect(sent.length).toBeGreaterThan(0);
    for (const channel of sent) expect(CHANNELS).toContain(channel);
  });

  it('no source file but db/channels.ts writes a channel name or calls pg_notify', () => {
    const offenders = sources('src')
      .filter((file) => file !== join('src', 'daemon', 'db', 'channels.ts'))
      .filter((file) => {
        const text = readFileSync(join(root, file), 'utf8');
        return text.includes('pg_notify') || CHANNELS.some((channel) => text.includes(`'${channel}'`));
      });
    expect(offenders).toEqual([]);
  });
});
