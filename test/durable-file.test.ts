import { randomUUID } from 'node:crypto';
import { mkdtemp, open, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FileArtifactStore } from '../src/daemon/domains/artifacts/file-artifact-store.js';
import { KEY_FILE, loadSecretsKey } from '../src/daemon/domains/secrets/key/encryption-key.js';
import { createLogger } from '../src/daemon/logging/logger.js';
import { FLUSH_EVERY_BYTES } from '../src/daemon/storage/durable-file-sink.js';
import { writeFileDurably } from '../src/daemon/storage/durable-file.js';
import { LocalBlobStore } from '../src/daemon/storage/local-blob-store.js';

/** Node's FileHandle class, whose `datasync` (a file's bytes) and `sync` (a directory's entries) are watched. */
async function fileHandlePrototype(dir: string) {
  const handle = await open(dir, 'r');
  await handle.close();
  return Object.getPrototypeOf(handle) as { datasync(): Promise<void>; sync(): Promise<void> };
}

function ioError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code} (test)`), { code });
}

describe('files made durable before they count as stored', () => {
  let dir: string;
  let handles: Awaited<ReturnType<typeof fileHandlePrototype>>;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-durable-'));
    handles = await fileHandlePrototype(dir);
  });

  afterEach(async () => {
    vi.restoreAllMocks();
    await rm(dir, { recursive: true, force: true });
  });

  it('syncs the bytes before the rename, then the directory written and the one made for it', async () => {
    const calls: string[] = [];
    vi.spyOn(handles, 'datasync').mockImplementation(async () => void calls.push('datasync'));
    vi.spyOn(handles, 'sync').mockImplementation(async () => void calls.push('sync'));
    const target = join(dir, 'made', 'target');
    await writeFileDurably(Readable.from([Buffer.from('abc')]), join(dir, 'x.part'), target);
    expect(await readFile(target, 'utf8')).toBe('abc');
    expect(calls).toEqual(['datasync', 'sync', 'sync']);
  });

  it('stores nothing when the bytes cannot be made durable: no target, no part file', async () => {
    vi.spyOn(handles, 'datasync').mockRejectedValue(ioError('EIO'));
    const write = writeFileDurably(Readable.from([Buffer.from('abc')]), join(dir, 'x.part'), join(dir, 'target'));
    await expect(write).rejects.toMatchObject({ code: 'EIO' });
    expect(await readdir(dir)).toEqual([]);
  });

  it('flushes a large file in the background while it arrives, and a failed flush fails the write', async () => {
    const mib = Buffer.alloc(1024 * 1024, 7);
    const chunks = () => Readable.from(Array.from({ length: FLUSH_EVERY_BYTES / mib.length + 4 }, () => mib));
    const real = handles.datasync;
    const datasync = vi.spyOn(handles, 'datasync');
    await writeFileDurably(chunks(), join(dir, 'big.part'), join(dir, 'big'));
    expect(datasync.mock.calls.length).toBeGreaterThanOrEqual(2);
    datasync.mockReset();
    datasync.mockRejectedValueOnce(ioError('EIO')).mockImplementation(real);
    await expect(writeFileDurably(chunks(), join(dir, 'lost.part'), join(dir, 'lost'))).rejects.toMatchObject({ code: 'EIO' });
    expect((await readdir(dir)).sort()).toEqual(['big']);
  });

  it('takes a file system that cannot sync a directory (EINVAL) as nothing to do, and fails on any other error', async () => {
    const sync = vi.spyOn(handles, 'sync').mockRejectedValue(ioError('EINVAL'));
    await writeFileDurably(Readable.from([Buffer.from('abc')]), join(dir, 'a.part'), join(dir, 'a'));
    expect(await readFile(join(dir, 'a'), 'utf8')).toBe('abc');
    sync.mockRejectedValue(ioError('EIO'));
    await expect(writeFileDurably(Readable.from([Buffer.from('d')]), join(dir, 'b.part'), join(dir, 'b'))).rejects.toMatchObject({
      code: 'EIO',
    });
  });

  it('the file artifact store and the local file repository fail an upload whose bytes cannot be made durable, keeping nothing', async () => {
    vi.spyOn(handles, 'datasync').mockRejectedValue(ioError('EIO'));
    const artifacts = new FileArtifactStore(join(dir, 'artifacts'));
    const ref = { runId: randomUUID(), artifactId: randomUUID() };
    await expect(artifacts.write(ref, Readable.from([Buffer.from('abc')]))).rejects.toMatchObject({ code: 'EIO' });
    await expect(artifacts.open(ref)).rejects.toThrow();
    expect(await readdir(join(dir, 'artifacts', 'tmp'))).toEqual([]);
    const files = new LocalBlobStore(join(dir, 'repository'));
    await expect(files.write('files/one', Readable.from([Buffer.from('abc')]))).rejects.toMatchObject({ code: 'EIO' });
    await expect(files.open('files/one')).rejects.toThrow();
    expect(await readdir(join(dir, 'repository', '.tmp'))).toEqual([]);
  });

  it('a generated secrets key is not put in place unless its bytes are durable', async () => {
    const settings = { dataDir: join(dir, 'data'), isProduction: false };
    const datasync = vi.spyOn(handles, 'datasync').mockRejectedValue(ioError('EIO'));
    await expect(loadSecretsKey(settings, createLogger('silent'))).rejects.toMatchObject({ code: 'EIO' });
    expect(await readdir(settings.dataDir)).toEqual([]);
    datasync.mockRestore();
    const key = await loadSecretsKey(settings, createLogger('silent'));
    expect((await loadSecretsKey(settings, createLogger('silent'))).id).toBe(key.id);
    expect(await readdir(settings.dataDir)).toEqual([KEY_FILE]);
  });
});
