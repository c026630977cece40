import { Command, Option } from 'commander';
import type { Dispatch } from './registry.js';

/**
 * The administration groups (perms, orgs, members, idp-mappings, tokens): names, flags and help only.
 * Each verb's module loads when it runs; Ink loads only under `svc perms browse` in a terminal.
 */
const collect = (value: string, previous: string[] = []) => [...previous, value];
const json = (c: Command) => c.option('--json', "print JSON (the API's field names)");
const yes = (c: Command) => c.option('-y, --yes', 'do not ask for confirmation (required without a terminal)');
const ROLES = 'viewer|auditor|approver|operator|admin';

export function registerAdminCommands(program: Command, dispatch: Dispatch): void {
  registerPerms(program, dispatch);
  registerOrgs(program, dispatch);
  registerMembers(program, dispatch);
  registerIdpMappings(program, dispatch);
  registerTokens(program, dispatch);
}

function registerPerms(program: Command, dispatch: Dispatch): void {
  const perms = json(
    program
      .command('perms')
      .description(
        'Permission matrix and overrides. Alone in a terminal: the interactive matrix; else (or with --json) the action matrix.',
      ),
  ).action(
    dispatch(async () => {
      const m = await import('./perms/browse.js');
      return ({ raw, ctx }) => m.runBrowse(m.parseBrowseOptions(raw, false), ctx);
    }),
  );
  perms
    .command('browse')
    .description('Interactive action matrix: filter, pick an action, choose a policy, confirm (needs a terminal).')
    .action(
      dispatch(async () => {
        const m = await import('./perms/browse.js');
        return ({ raw, ctx }) => m.runBrowse(m.parseBrowseOptions(raw, true), ctx);
      }),
    );
  json(perms.command('actions').description('List the action matrix: default, override and effective policy of each action.')).action(
    dispatch(async () => {
      const m = await import('./perms/actions.js');
      return ({ raw, ctx }) => m.runActions(m.parseActionsOptions(raw), ctx);
    }),
  );
  json(perms.command('routes').description('List the route matrix (effective policy of each route and where it comes from).'))
    .option('--action <action>', 'only the routes of this action')
    .addOption(
      new Option('--source <source>', 'only routes whose policy comes from here').choices(['default', 'action_override', 'route_override']),
    )
    .action(
      dispatch(async () => {
        const m = await import('./perms/routes.js');
        return ({ raw, ctx }) => m.runRoutes(m.parseRoutesOptions(raw), ctx);
      }),
    );
  json(
    perms
      .command('set-action')
      .description('Override the policy of an action (all its routes).')
      .argument('<action>', 'e.g. run:view')
      .argument('<policy>', 'e.g. admin'),
  ).action(
    dispatch(async () => {
      const m = await import('./perms/set-action.js');
      return ({ positionals, raw, ctx }) => m.runSetAction(m.parseSetActionOptions(positionals[0]!, positionals[1]!, raw), ctx);
    }),
  );
  yes(
    json(
      perms.command('clear-action').description("Clear an action's override (back to the default).").argument('<action>', 'e.g. run:view'),
    ),
  ).action(
    dispatch(async () => {
      const m = await import('./perms/clear-action.js');
      return ({ positionals, raw, ctx }) => m.runClearAction(m.parseClearActionOptions(positionals[0]!, raw), ctx);
    }),
  );
  json(
    perms
      .command('set-route')
      .description('Override the policy of one route.')
      .argument('<method>', 'HTTP method')
      .argument('<path>', 'the catalogue pattern, e.g. /runs/{run_id}')
      .argument('<policy>', 'e.g. operator'),
  ).action(
    dispatch(async () => {
      const m = await import('./perms/set-route.js');
      return ({ positionals, raw, ctx }) =>
        m.runSetRoute(m.parseSetRouteOptions(positionals[0]!, positionals[1]!, positionals[2]!, raw), ctx);
    }),
  );
  yes(
    json(
      perms
        .command('clear-route')
        .description("Clear a route's override.")
        .argument('<method>', 'HTTP method')
        .argument('<path>', 'the catalogue pattern'),
    ),
  ).action(
    dispatch(async () => {
      const m = await import('./perms/clear-route.js');
      return ({ positionals, raw, ctx }) => m.runClearRoute(m.parseClearRouteOptions(positionals[0]!, positionals[1]!, raw), ctx);
    }),
  );
  json(
    perms
      .command('explain')
      .description('Why a caller would be allowed or refused a route.')
      .argument('<method>', 'HTTP method')
      .argument('<path>', 'the catalogue pattern'),
  )
    .option('--user <username>', 'a known user (memberships from the database); default a hypothetical caller')
    .option('--realm-roles <roles>', 'realm roles, comma-separated (they live in the identity provider)')
    .option('--in-org <org>', 'the organization the request would name (default: the platform default)')
    .action(
      dispatch(async () => {
        const m = await import('./perms/explain.js');
        return ({ positionals, raw, ctx }) => m.runExplain(m.parseExplainOptions(positionals[0]!, positionals[1]!, raw), ctx);
      }),
    );
}

function registerOrgs(program: Command, dispatch: Dispatch): void {
  const orgs = program.command('orgs').description('Organizations.');
  json(orgs.command('list').description('Organizations you can see, with your role and why.'))
    .option('--include-inactive', 'also deactivated ones (platform admins)')
    .option('--limit <n>', 'at most this many (1-500)')
    .option('--offset <n>', 'skip this many')
    .action(
      dispatch(async () => {
        const m = await import('./orgs/list.js');
        return ({ raw, ctx }) => m.runOrgsList(m.parseOrgsListOptions(raw), ctx);
      }),
    );
  json(orgs.command('get').description('One organization.').argument('<org>', 'id or slug')).action(
    dispatch(async () => {
      const m = await import('./orgs/get.js');
      return ({ positionals, raw, ctx }) => m.runOrgsGet(m.parseOrgsGetOptions(positionals[0]!, raw), ctx);
    }),
  );
  json(
    orgs
      .command('create')
      .description('Create an organization (the slug cannot change later).')
      .argument('<slug>', 'lower-case letters and digits, hyphen-separated'),
  )
    .option('--name <name>', 'display name (required)')
    .option('--description <text>', 'description')
    .action(
      dispatch(async () => {
        const m = await import('./orgs/create.js');
        return ({ positionals, raw, ctx }) => m.runOrgsCreate(m.parseOrgsCreateOptions(positionals[0]!, raw), ctx);
      }),
    );
  json(
    orgs
      .command('update')
      .description('Rename, describe, (de)activate, or mark as the shared organization.')
      .argument('<org>', 'id or slug'),
  )
    .option('--name <name>', 'new display name')
    .option('--description <text>', 'new description ("" clears it)')
    .option('--active', 'reactivate')
    .option('--no-active', 'deactivate')
    .option('--shared', 'make it the shared organization')
    .option('--no-shared', 'take the shared mark off')
    .action(
      dispatch(async () => {
        const m = await import('./orgs/update.js');
        return ({ positionals, raw, ctx }) => m.runOrgsUpdate(m.parseOrgsUpdateOptions(positionals[0]!, raw), ctx);
      }),
    );
  yes(
    orgs.command('delete').description('Delete an organization with its members, IdP mappings and tokens.').argument('<org>', 'id or slug'),
  ).action(
    dispatch(async () => {
      const m = await import('./orgs/delete.js');
      return ({ positionals, raw, ctx }) => m.runOrgsDelete(m.parseOrgsDeleteOptions(positionals[0]!, raw), ctx);
    }),
  );
}

function registerMembers(program: Command, dispatch: Dispatch): void {
  const members = program.command('members').description('Members of an organization (--org ORG).');
  json(members.command('list').description('Members of the organization.').argument('[org]', 'id or slug (default: --org)'))
    .option('--limit <n>', 'at most this many (1-500)')
    .option('--offset <n>', 'skip this many')
    .action(
      dispatch(async () => {
        const m = await import('./members/list.js');
        return ({ positionals, raw, ctx }) => m.runMembersList(m.parseMembersListOptions(positionals[0], raw), ctx);
      }),
    );
  json(members.command('add').description('Add a user to the organization given by --org.').argument('<user>', 'username or user id'))
    .option('--role <role>', `${ROLES} (default viewer)`)
    .action(
      dispatch(async () => {
        const m = await import('./members/add.js');
        return ({ positionals, raw, ctx }) => m.runMembersAdd(m.parseMembersAddOptions(positionals[0]!, raw), ctx);
      }),
    );
  json(
    members
      .command('set-role')
      .description("Change a member's role in the organization given by --org.")
      .argument('<user>', 'username or user id')
      .argument('<role>', ROLES),
  ).action(
    dispatch(async () => {
      const m = await import('./members/set-role.js');
      return ({ positionals, raw, ctx }) => m.runMembersSetRole(m.parseMembersSetRoleOptions(positionals[0]!, positionals[1]!, raw), ctx);
    }),
  );
  yes(
    members
      .command('remove')
      .description('Remove a member from the organization given by --org.')
      .argument('<user>', 'username or user id'),
  ).action(
    dispatch(async () => {
      const m = await import('./members/remove.js');
      return ({ positionals, raw, ctx }) => m.runMembersRemove(m.parseMembersRemoveOptions(positionals[0]!, raw), ctx);
    }),
  );
}

function registerIdpMappings(program: Command, dispatch: Dispatch): void {
  const idp = program.command('idp-mappings').description('IdP group mappings of the organization given by --org.');
  json(idp.command('list').description("The organization's mappings."))
    .option('--active', 'only active mappings')
    .option('--no-active', 'only inactive mappings')
    .action(
      dispatch(async () => {
        const m = await import('./idp-mappings/list.js');
        return ({ raw, ctx }) => m.runMappingsList(m.parseMappingsListOptions(raw), ctx);
      }),
    );
  json(idp.command('add').description('Map a claim value to a role in the organization.'))
    .option('--claim <claim>', 'the claim (must be the configured group claim)', 'groups')
    .option('--value <value>', 'the claim value, exactly as the provider emits it (e.g. /Network-Ops)')
    .option('--role <role>', ROLES)
    .option('--no-active', 'create it inactive')
    .action(
      dispatch(async () => {
        const m = await import('./idp-mappings/add.js');
        return ({ raw, ctx }) => m.runMappingsAdd(m.parseMappingsAddOptions(raw), ctx);
      }),
    );
  json(idp.command('update').description("Change a mapping's role or (in)activate it.").argument('<id>', 'mapping id'))
    .option('--role <role>', ROLES)
    .option('--active', 'activate')
    .option('--no-active', 'deactivate')
    .action(
      dispatch(async () => {
        const m = await import('./idp-mappings/update.js');
        return ({ positionals, raw, ctx }) => m.runMappingsUpdate(m.parseMappingsUpdateOptions(positionals[0]!, raw), ctx);
      }),
    );
  yes(idp.command('remove').description('Delete a mapping (takes effect at the next login).').argument('<id>', 'mapping id')).action(
    dispatch(async () => {
      const m = await import('./idp-mappings/remove.js');
      return ({ positionals, raw, ctx }) => m.runMappingsRemove(m.parseMappingsRemoveOptions(positionals[0]!, raw), ctx);
    }),
  );
  json(idp.command('preview').description('What a login of a user carrying the given group values would change (writes nothing).'))
    .option('--user <username>', 'the user')
    .addOption(new Option('--group <value>', 'a claim value the login carries (repeat)').argParser(collect))
    .action(
      dispatch(async () => {
        const m = await import('./idp-mappings/preview.js');
        return ({ raw, ctx }) => m.runMappingsPreview(m.parseMappingsPreviewOptions(raw), ctx);
      }),
    );
}

function registerTokens(program: Command, dispatch: Dispatch): void {
  const tokens = program.command('tokens').description('Personal access tokens.');
  json(
    tokens
      .command('create')
      .description('Issue a token (for --user, default you, in --org, default the default organization); the plaintext is printed once.')
      .argument('<name>', 'a name to tell it apart'),
  )
    .option('--user <username>', 'whose token (default: you)')
    .option('--expires-in-days <n>', 'lifetime in days (1-366; default: no expiry)')
    .option('--expires-at <time>', 'expiry as ISO 8601')
    .action(
      dispatch(async () => {
        const m = await import('./tokens/create.js');
        return ({ positionals, raw, ctx }) => m.runTokensCreate(m.parseTokensCreateOptions(positionals[0]!, raw), ctx);
      }),
    );
  json(tokens.command('list').description('List tokens (never their plaintext); --org filters by organization.'))
    .option('--user <username>', "only this user's")
    .option('--include-revoked', 'also revoked ones')
    .action(
      dispatch(async () => {
        const m = await import('./tokens/list.js');
        return ({ raw, ctx }) => m.runTokensList(m.parseTokensListOptions(raw), ctx);
      }),
    );
  yes(tokens.command('revoke').description('Revoke one token.').argument('<id>', 'token id')).action(
    dispatch(async () => {
      const m = await import('./tokens/revoke.js');
      return ({ positionals, raw, ctx }) => m.runTokensRevoke(m.parseTokensRevokeOptions(positionals[0]!, raw), ctx);
    }),
  );
  yes(json(tokens.command('revoke-user').description('Revoke every token of a user.').argument('<username>', 'the user'))).action(
    dispatch(async () => {
      const m = await import('./tokens/revoke-user.js');
      return ({ positionals, raw, ctx }) => m.runTokensRevokeUser(m.parseTokensRevokeUserOptions(positionals[0]!, raw), ctx);
    }),
  );
}
