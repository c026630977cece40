import type { Knex } from 'knex';

/** Seeds a user and, optionally, memberships (their management API is another issue; tests may seed rows). */
export async function seedUser(
  knex: Knex,
  user: { sub: string; username: string; email?: string; isActive?: boolean },
  memberships: { orgSlug: string; role: string }[] = [],
): Promise<string> {
  const [row] = await knex('users')
    .insert({ sub: user.sub, username: user.username, email: user.email ?? null, is_active: user.isActive ?? true })
    .returning('id');
  const userId = (row as { id: string }).id;
  for (const membership of memberships) {
    const org = await knex('organizations').where({ slug: membership.orgSlug }).first('id');
    await knex('org_memberships').insert({ user_id: userId, org_id: org.id, role: membership.role, source: 'manual' });
  }
  return userId;
}

export async function seedOrg(knex: Knex, slug: string, name = slug): Promise<string> {
  const [row] = await knex('organizations').insert({ slug, name }).returning('id');
  return (row as { id: string }).id;
}
