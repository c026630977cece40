import type { Command } from 'commander';
import { buildCommandTree, type CommandTree, type VerbEntry } from './command-tree.js';
import type { Dispatch } from './verb.js';

/** The groups that are only groups (no verb of their own), by their help's description. */
const GROUPS: Readonly<Record<string, string>> = {
  auth: 'Inspect and use the stored credential.',
  orgs: 'Organizations.',
  members: 'Members of an organization (--org ORG).',
  'idp-mappings': 'IdP group mappings of the organization given by --org.',
  tokens: 'Personal access tokens.',
  runs: 'Runs of flows in the organization given by --org: start (and wait for) them, list, follow, read their monitors and artifacts, cancel.',
  approvals:
    'Approvals of runs waiting at a gate in the organization given by --org: list (--pending: yours to decide), read, approve, reject.',
  schedules: 'Schedules of the organization given by --org: flows run on a cron expression in a time zone.',
  variables:
    "Variables of the organization given by --org (and the shared organization's, read-only): typed values steps read as {{ variables.<name> }}.",
  secrets:
    'Secrets of the organization given by --org: where each is kept, its reference and key names; values go in from the environment, files or stdin and never come out.',
  webhooks: 'Webhook endpoints of the organization given by --org (default: the default organization), and sending to them.',
  flows:
    'Flows of the organization given by --org: list, export and apply them as files, commit, pull from and push to their linked git files, subscribe them to notifications.',
  'git-repos': 'Git repositories of the organization given by --org: list them, pull every linked flow.',
  // notifications (issue 24)
  notifications: 'Notifications of the organization given by --org: where they go.',
  destinations: 'Notification destinations: list them, send a test message.',
  // files (issue 22, part B)
  files: "Files of the organization given by --org (and the shared organization's, read-only): list, stream up and down, usage, delete.",
  attachments:
    "Attachments of the flows of the organization given by --org (the shared organization's flows: read-only): list, stream up and down, move, delete.",
  'file-repos': 'File repositories of the organization given by --org: list them, test their connection.',
  'inventory-providers':
    'Inventory providers (NetBox, Nautobot, static YAML) of the organization given by --org: list, sync, sync history.',
  audit: 'The audit trail of every organization (platform admins): list entries by filters, read one.',
  config: 'Configuration exchange (platform admins): export the configuration as a YAML bundle, plan a bundle, apply a plan.',
  // platform sync (issue 27)
  'platform-sync': 'Platform sync (platform admins): profiles, plans, conflicts, destructive authorizations, apply, runs.',
};

const verb = (path: string, load: VerbEntry['load']): VerbEntry => ({ path, load });

/**
 * Which verbs exist, in the order help lists them, and where each one's module is. A module holds the
 * verb's flags and help (`define`), its parse and run functions (commands/verb.ts); it is imported
 * only when the verb runs or a help lists it, so `svc whoami` loads one command module and none of
 * openid-client, and Ink loads only under the interactive matrix.
 */
const VERBS: readonly VerbEntry[] = [
  verb('login', () => import('./auth/login.js')),
  verb('logout', () => import('./auth/logout.js')),
  verb('whoami', () => import('./auth/whoami.js')),
  verb('auth status', () => import('./auth/status.js')),
  verb('auth token', () => import('./auth/token.js')),
  verb('api', () => import('./api/request.js')),
  verb('perms', () => import('./perms/perms.js')),
  verb('perms browse', () => import('./perms/browse.js')),
  verb('perms actions', () => import('./perms/actions.js')),
  verb('perms routes', () => import('./perms/routes.js')),
  verb('perms set-action', () => import('./perms/set-action.js')),
  verb('perms clear-action', () => import('./perms/clear-action.js')),
  verb('perms set-route', () => import('./perms/set-route.js')),
  verb('perms clear-route', () => import('./perms/clear-route.js')),
  verb('perms explain', () => import('./perms/explain.js')),
  verb('orgs list', () => import('./orgs/list.js')),
  verb('orgs get', () => import('./orgs/get.js')),
  verb('orgs create', () => import('./orgs/create.js')),
  verb('orgs update', () => import('./orgs/update.js')),
  verb('orgs delete', () => import('./orgs/delete.js')),
  verb('members list', () => import('./members/list.js')),
  verb('members add', () => import('./members/add.js')),
  verb('members set-role', () => import('./members/set-role.js')),
  verb('members remove', () => import('./members/remove.js')),
  verb('idp-mappings list', () => import('./idp-mappings/list.js')),
  verb('idp-mappings add', () => import('./idp-mappings/add.js')),
  verb('idp-mappings update', () => import('./idp-mappings/update.js')),
  verb('idp-mappings remove', () => import('./idp-mappings/remove.js')),
  verb('idp-mappings preview', () => import('./idp-mappings/preview.js')),
  verb('tokens create', () => import('./tokens/create.js')),
  verb('tokens list', () => import('./tokens/list.js')),
  verb('tokens revoke', () => import('./tokens/revoke.js')),
  verb('tokens revoke-user', () => import('./tokens/revoke-user.js')),
  verb('webhooks create', () => import('./webhooks/create.js')),
  verb('webhooks list', () => import('./webhooks/list.js')),
  verb('webhooks get', () => import('./webhooks/get.js')),
  verb('webhooks update', () => import('./webhooks/update.js')),
  verb('webhooks delete', () => import('./webhooks/delete.js')),
  verb('webhooks restore', () => import('./webhooks/restore.js')),
  verb('webhooks purge', () => import('./webhooks/purge.js')),
  verb('webhooks rotate-secret', () => import('./webhooks/rotate-secret.js')),
  verb('webhooks test', () => import('./webhooks/test.js')),
  verb('webhooks deliveries', () => import('./webhooks/deliveries.js')),
  verb('webhooks send', () => import('./webhooks/send.js')),
  verb('runs start', () => import('./runs/start.js')),
  verb('runs list', () => import('./runs/list.js')),
  verb('runs get', () => import('./runs/get.js')),
  verb('runs watch', () => import('./runs/watch.js')),
  verb('runs monitors', () => import('./runs/monitors.js')),
  verb('runs artifacts', () => import('./runs/artifacts.js')),
  verb('runs download', () => import('./runs/download.js')),
  verb('runs cancel', () => import('./runs/cancel.js')),
  verb('runs pause', () => import('./runs/pause.js')),
  verb('runs resume', () => import('./runs/resume.js')),
  verb('approvals list', () => import('./approvals/list.js')),
  verb('approvals get', () => import('./approvals/get.js')),
  verb('approvals approve', () => import('./approvals/approve.js')),
  verb('approvals reject', () => import('./approvals/reject.js')),
  verb('schedules list', () => import('./schedules/list.js')),
  verb('schedules get', () => import('./schedules/get.js')),
  verb('schedules create', () => import('./schedules/create.js')),
  verb('schedules update', () => import('./schedules/update.js')),
  verb('schedules pause', () => import('./schedules/pause.js')),
  verb('schedules resume', () => import('./schedules/resume.js')),
  verb('schedules run', () => import('./schedules/run.js')),
  verb('schedules delete', () => import('./schedules/delete.js')),
  verb('schedules next', () => import('./schedules/next.js')),
  verb('variables list', () => import('./variables/list.js')),
  verb('variables get', () => import('./variables/get.js')),
  verb('variables set', () => import('./variables/set.js')),
  verb('variables delete', () => import('./variables/delete.js')),
  verb('secrets list', () => import('./secrets/list.js')),
  verb('secrets get', () => import('./secrets/get.js')),
  verb('secrets set', () => import('./secrets/set.js')),
  verb('secrets delete', () => import('./secrets/delete.js')),
  verb('flows list', () => import('./flows/list.js')),
  verb('flows export', () => import('./flows/export.js')),
  verb('flows apply', () => import('./flows/apply.js')),
  verb('flows commit', () => import('./flows/commit.js')),
  verb('flows pull', () => import('./flows/pull.js')),
  verb('flows push', () => import('./flows/push.js')),
  verb('git-repos list', () => import('./git-repos/list.js')),
  verb('git-repos sync', () => import('./git-repos/sync.js')),
  // notifications (issue 24)
  verb('notifications destinations list', () => import('./notifications/list.js')),
  verb('notifications destinations test', () => import('./notifications/test.js')),
  verb('flows subscribe', () => import('./flows/subscribe.js')),
  verb('inventory-providers list', () => import('./inventory-providers/list.js')),
  verb('inventory-providers sync', () => import('./inventory-providers/sync.js')),
  verb('inventory-providers history', () => import('./inventory-providers/history.js')),
  verb('audit list', () => import('./audit/list.js')),
  verb('audit get', () => import('./audit/get.js')),
  verb('config export', () => import('./config/export.js')),
  verb('config plan', () => import('./config/plan.js')),
  verb('config apply', () => import('./config/apply.js')),
  // files (issue 22, part B)
  verb('files list', () => import('./files/list.js')),
  verb('files get', () => import('./files/get.js')),
  verb('files upload', () => import('./files/upload.js')),
  verb('files download', () => import('./files/download.js')),
  verb('files rm', () => import('./files/rm.js')),
  verb('files usage', () => import('./files/usage.js')),
  verb('attachments list', () => import('./attachments/list.js')),
  verb('attachments upload', () => import('./attachments/upload.js')),
  verb('attachments download', () => import('./attachments/download.js')),
  verb('attachments mv', () => import('./attachments/mv.js')),
  verb('attachments rm', () => import('./attachments/rm.js')),
  verb('file-repos list', () => import('./file-repos/list.js')),
  verb('file-repos test', () => import('./file-repos/test.js')),
  verb('platform-sync profiles', () => import('./platform-sync/profiles.js')),
  verb('platform-sync create', () => import('./platform-sync/create.js')),
  verb('platform-sync delete', () => import('./platform-sync/delete.js')),
  verb('platform-sync plan', () => import('./platform-sync/plan.js')),
  verb('platform-sync resolve', () => import('./platform-sync/resolve.js')),
  verb('platform-sync authorize', () => import('./platform-sync/authorize.js')),
  verb('platform-sync authorizations', () => import('./platform-sync/authorizations.js')),
  verb('platform-sync revoke', () => import('./platform-sync/revoke.js')),
  verb('platform-sync apply', () => import('./platform-sync/apply.js')),
  verb('platform-sync runs', () => import('./platform-sync/runs.js')),
  verb('completion', () => import('./completion/script.js')),
];

/** Makes every command of svc under `program`, by name; `prepare` defines what a command line needs. */
export function registerCommands(program: Command, dispatch: Dispatch): CommandTree {
  return buildCommandTree(program, VERBS, GROUPS, dispatch);
}
