import type { Knex } from 'knex';
import { notify, OVERRIDES_CHANNEL } from '../../../db/channels.js';

export interface Editor {
  readonly sub: string | null;
  readonly username: string | null;
}

/**
 * The two override tables as configuration exchange reads and writes them: every call takes the
 * handle it runs on (the apply's transaction), and every write notifies the other instances in it.
 */
export class PermissionOverridesRepo {
  async actions(db: Knex): Promise<{ action: string; policy: string }[]> {
    return db('permission_action_overrides').orderBy('action').select('action', 'policy');
  }

  async routes(db: Knex): Promise<{ method: string; path: string; policy: string }[]> {
    return db('permission_overrides').orderBy(['method', 'path']).select('method', 'path', 'policy');
  }

  async setAction(db: Knex, action: string, policy: string, editor: Editor): Promise<void> {
    const by = { updated_by_sub: editor.sub, updated_by_username: editor.username };
    await db('permission_action_overrides')
      .insert({ action, policy, ...by })
      .onConflict('action')
      .merge({ policy, ...by, updated_at: db.fn.now() });
    await notify(db, OVERRIDES_CHANNEL, action);
  }

  async setRoute(db: Knex, method: string, path: string, policy: string, editor: Editor): Promise<void> {
    const by = { updated_by_sub: editor.sub, updated_by_username: editor.username };
    await db('permission_overrides')
      .insert({ method, path, policy, ...by })
      .onConflict(['method', 'path'])
      .merge({ policy, ...by, updated_at: db.fn.now() });
    await notify(db, OVERRIDES_CHANNEL, `${method} ${path}`);
  }

  async clearAction(db: Knex, action: string): Promise<void> {
    await db('permission_action_overrides').where({ action }).delete();
    await notify(db, OVERRIDES_CHANNEL, action);
  }

  async clearRoute(db: Knex, method: string, path: string): Promise<void> {
    await db('permission_overrides').where({ method, path }).delete();
    await notify(db, OVERRIDES_CHANNEL, `${method} ${path}`);
  }
}
