import { CliError } from '../../errors.js';
import type { ApiClient } from '../../http/client.js';
import type { Member, Page } from '../orgs/types.js';
import { enc } from '../shared.js';
import { isUuid } from '../../../shared/ids.js';

/** The member routes take a user id; people type usernames. A UUID is taken as is, a username looked up among the members. */
export async function memberId(client: ApiClient, org: string, user: string): Promise<string> {
  if (isUuid(user)) return user;
  for (let offset = 0; ; offset += 500) {
    const page = (
      await client.request({ method: 'GET', path: `/orgs/${enc(org)}/members`, query: { limit: '500', offset: String(offset) } })
    ).body as Page<Member>;
    const found = page.items.find((m) => m.username === user);
    if (found) return found.user_id;
    if (page.items.length === 0 || offset + page.items.length >= page.total) break;
  }
  throw new CliError('not_found', `${user} is not a member of ${org}`);
}
