import type { ActionRow, PermsApi } from '../commands/perms/api.js';
import { OVERRIDABLE_POLICIES } from './policies.js';

/**
 * The one door to Ink: commands call these functions, which import ink, react and the (private)
 * components only when called, so no other path of the CLI loads them.
 */
export async function renderPermsMatrix(props: { actions: ActionRow[]; api: PermsApi }): Promise<void> {
  const [{ render }, { createElement }, { PermsMatrix }] = await Promise.all([import('ink'), import('react'), import('./perms-matrix.js')]);
  const app = render(createElement(PermsMatrix, { initial: props.actions, api: props.api, policies: OVERRIDABLE_POLICIES }));
  await app.waitUntilExit();
}
