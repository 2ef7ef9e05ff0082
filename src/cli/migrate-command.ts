/**
 * `kvmod migrate <old> <new> --redis URL`: moves the server from one design to the other online.
 * The yargs metadata only; the handler loads `runMigrate` (migrate-actions.ts) when it runs.
 */
import type { Argv, CommandModule } from 'yargs';
import { runAction, type CliContext } from './cli-command.js';
import { batchOption } from './load-command.js';
import type { MigrateArgs } from './migrate-actions.js';
import { migrationOptions } from './plan-command.js';

/** The yargs module of `kvmod migrate`. */
export function migrateCommand(context: CliContext): CommandModule<object, MigrateArgs> {
    return {
        command: 'migrate <old> [new]',
        describe:
            'Move the server from the old design to the new one online: build changed indexes beside the old ones, switch all stable names at once, drop what the new design no longer uses (resumable: run it again after an interruption)',
        builder: (yargs: Argv<object>) =>
            batchOption(migrationOptions(yargs, true)).example(
                '$0 migrate old.pidm new.pidm --redis redis://127.0.0.1:6379',
                '',
            ) as unknown as Argv<MigrateArgs>,
        handler: (args) =>
            runAction(context, async (io) => (await import('./migrate-actions.js')).runMigrate(args, io)),
    };
}
