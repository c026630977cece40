import { Command } from 'commander';
import { SVC_VERSION } from '../shared/version.js';

/** The admin CLI's root command. Subcommands arrive with the CLI issue; this is their home. */
export function buildProgram(): Command {
  return new Command('svc')
    .description('svc admin CLI: drives administration of an svc control plane through its HTTP API.')
    .version(SVC_VERSION, '-V, --version', 'print the version of svc');
}

await buildProgram().parseAsync(process.argv);
