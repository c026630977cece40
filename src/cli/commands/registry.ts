import { Command, Option } from 'commander';
import type { Context } from '../runtime/context.js';
import { registerAdminCommands } from './registry-admin.js';
import { registerWebhooks } from './webhooks/registry.js';

/**
 * Every command's name, flags and help, and how to load it. The module holding a command's parse
 * and run functions is imported only when that command runs, so `svc --help` and `svc --version`
 * load neither openid-client nor any command.
 */
export type Runner = (args: { positionals: string[]; raw: Record<string, unknown>; ctx: Context }) => Promise<void>;
export type Dispatch = (run: () => Promise<Runner>) => (...commanderArgs: unknown[]) => Promise<void>;

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerCommands(program: Command, dispatch: Dispatch): void {
  program
    .command('login')
    .description('Log in to an svc server (device grant over SSH or without a display, else the browser).')
    .option('--device', 'use the device grant (a code to enter on another device)')
    .option('--no-browser', 'print the URL but do not open a browser')
    .option('--timeout <seconds>', 'give up waiting for the sign-in after this long', '300')
    .option('--callback-port <port>', 'fixed loopback port for the browser redirect (providers that pin ports)')
    .option('--client-credentials', 'log in as an automation client (client id and secret)')
    .option('--client-id <id>', 'client id for --client-credentials (env SVC_CLIENT_ID)')
    .option('--client-secret <secret>', 'client secret for --client-credentials (env SVC_CLIENT_SECRET); never stored')
    .option('--with-token', 'read a token (a personal access token) from standard input')
    .action(
      dispatch(async () => {
        const m = await import('./auth/login.js');
        return ({ raw, ctx }) => m.runLogin(m.parseLoginOptions(raw, ctx.env), ctx);
      }),
    );

  program
    .command('logout')
    .description("Revoke the profile's refresh token at the provider and forget the stored credential.")
    .action(
      dispatch(async () => {
        const m = await import('./auth/logout.js');
        return ({ raw, ctx }) => m.runLogout(m.parseLogoutOptions(raw), ctx);
      }),
    );

  program
    .command('whoami')
    .description('Show who the credential stands for (GET /auth/me).')
    .option('--json', 'print JSON')
    .action(
      dispatch(async () => {
        const m = await import('./auth/whoami.js');
        return ({ raw, ctx }) => m.runWhoami(m.parseWhoamiOptions(raw), ctx);
      }),
    );

  const auth = program.command('auth').description('Inspect and use the stored credential.');
  auth
    .command('status')
    .description('Who is logged in, to which server, where the credential comes from, and its expiry.')
    .option('--json', 'print JSON')
    .action(
      dispatch(async () => {
        const m = await import('./auth/status.js');
        return ({ raw, ctx }) => m.runStatus(m.parseStatusOptions(raw), ctx);
      }),
    );
  auth
    .command('token')
    .description('Print the access token on standard output (renewed first when nearly expired).')
    .action(
      dispatch(async () => {
        const m = await import('./auth/token.js');
        return ({ raw, ctx }) => m.runToken(m.parseTokenOptions(raw), ctx);
      }),
    );

  program
    .command('api')
    .description('Call the API and print the JSON answer, like `gh api`.')
    .argument('<method>', 'HTTP method')
    .argument('<path>', 'path on the server, e.g. /auth/me')
    .addOption(
      new Option(
        '-F, --field <key=value>',
        'typed field (true, false, null, numbers, @file); query of a GET, JSON body otherwise',
      ).argParser(collect),
    )
    .addOption(new Option('-f, --raw-field <key=value>', 'string field').argParser(collect))
    .option('--input <file>', 'request body from a file, or - for standard input')
    .addOption(new Option('-H, --header <key:value>', 'extra request header').argParser(collect))
    .option('--jq <expr>', 'print what the jq filter makes of the answer (strings raw), e.g. .items[].id')
    .option('-i, --include', 'print the status line and headers before the body')
    .option('--paginate', 'follow the pages of a list (offset or cursor) and print all items as one answer')
    .action(
      dispatch(async () => {
        const m = await import('./api/request.js');
        return ({ positionals, raw, ctx }) => m.runApi(m.parseApiOptions(positionals[0]!, positionals[1]!, raw), ctx);
      }),
    );

  registerAdminCommands(program, dispatch);
  registerWebhooks(program, dispatch);

  program
    .command('completion')
    .description('Print the shell completion script (bash, zsh or fish) for every command and flag.')
    .argument('<shell>', 'bash, zsh or fish')
    .addHelpText(
      'after',
      '\nbash: source <(svc completion bash)   zsh: source <(svc completion zsh)   fish: svc completion fish > ~/.config/fish/completions/svc.fish',
    )
    .action(
      dispatch(async () => {
        const m = await import('./completion/script.js');
        // The whole program, registered by now: the script lists every command, this one included.
        return async ({ positionals, ctx }) => m.runCompletion(m.parseCompletionShell(positionals[0]), program, ctx);
      }),
    );
}
