import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RepositoriesRepo } from '../src/daemon/domains/files/repositories-repo.js';
import { sweepRepositoryDirectories } from '../src/daemon/domains/files/repository-directories-sweep.js';
import { startFilesWorld, uploadStream, type FilesWorld } from './helpers/files-fixtures.js';
import { call } from './helpers/webhooks-fixtures.js';

/** `files.sweep_repositories`: a deleted organization's local repositories leave no bytes on disk. */
describe('files.sweep_repositories', () => {
  let world: FilesWorld;
  const filesRoot = () => join(world.daemon.services.config.dataDir, 'files');
  const sweep = () => sweepRepositoryDirectories(filesRoot(), new RepositoriesRepo(world.daemon.services.db.knex));

  beforeAll(async () => {
    // The test sweeps itself: the maintenance timer would sweep first.
    world = await startFilesWorld({ SERVICE_MAINTENANCE_TIMER_ENABLED: 'false' });
  });
  afterAll(() => world?.close());

  it("removes the directories of a deleted organization's repositories, and only those", async () => {
    expect((await call(world, 'root', 'POST', '/orgs', { slug: 'leaving', name: 'Leaving' })).status).toBe(201);
    const leaving = (await call(world, 'root', 'POST', '/file-repositories/ensure-default', undefined, 'leaving')).body.id;
    const staying = (await call(world, 'alice', 'POST', '/file-repositories/ensure-default')).body.id;
    expect((await uploadStream(world, leaving, { name: 'config.txt' }, Buffer.from('hostname core-1\n'), 'root', 'leaving')).status).toBe(
      201,
    );
    expect((await uploadStream(world, staying, { name: 'config.txt' }, Buffer.from('hostname edge-1\n'))).status).toBe(201);
    expect(existsSync(join(filesRoot(), leaving))).toBe(true);

    expect(await sweep()).toEqual({ removed: 0 });
    expect((await call(world, 'root', 'DELETE', '/orgs/leaving')).status).toBe(204);
    expect(existsSync(join(filesRoot(), leaving))).toBe(true);

    expect(await sweep()).toEqual({ removed: 1 });
    expect(existsSync(join(filesRoot(), leaving))).toBe(false);
    expect(existsSync(join(filesRoot(), staying))).toBe(true);
    expect((await call(world, 'alice', 'GET', `/files?repository_id=${staying}`)).body.total).toBe(1);
    expect(await sweep()).toEqual({ removed: 0 });
  });
});
