/**
 * `kvmod templates list` and `kvmod templates eject <target> <dir>`: see which templates a target renders,
 * and copy the built-ins out to edit them (then pass the folder to `generate --templates`). The yargs metadata
 * only; the handlers load templates-actions.ts when they run.
 */
import type { Argv, CommandModule } from 'yargs';
import { runAction, type CliContext } from './cli-command.js';

/** The yargs module of `kvmod templates`. */
export function templatesCommand(context: CliContext): CommandModule<object, object> {
    return {
        command: 'templates',
        describe: 'List the templates of each target, or eject the built-ins to customize them',
        builder: (yargs: Argv<object>) =>
            yargs
                .command({
                    command: 'list',
                    describe: 'List the targets with their engine, options, output folder and templates',
                    builder: (y: Argv<object>) =>
                        y.option('templates', {
                            describe: 'Also show which files of this folder override built-ins',
                            type: 'string',
                        }),
                    handler: (args: { templates?: string }) =>
                        runAction(context, async (io) =>
                            (await import('./templates-actions.js')).runTemplatesList(args, io),
                        ),
                } as CommandModule<object, { templates?: string }>)
                .command({
                    command: 'eject <target> <dir> [templates..]',
                    describe: "Copy a target's built-in templates into <dir>: all, or only the named ones",
                    builder: (y: Argv<object>) =>
                        y
                            .positional('target', { describe: 'The target', type: 'string', demandOption: true })
                            .positional('dir', {
                                describe: 'The folder to copy into',
                                type: 'string',
                                demandOption: true,
                            })
                            .positional('templates', {
                                describe: 'Templates to eject, by name as `templates list` shows it (.hbs optional)',
                                type: 'string',
                                array: true,
                            })
                            .option('force', { describe: 'Overwrite existing files', type: 'boolean' })
                            .example('$0 templates eject redis my-templates queries.redis partials/command', ''),
                    handler: (args: { target: string; dir: string; templates?: string[]; force?: boolean }) =>
                        runAction(context, async (io) =>
                            (await import('./templates-actions.js')).runTemplatesEject(args, io),
                        ),
                } as unknown as CommandModule<
                    object,
                    { target: string; dir: string; templates?: string[]; force?: boolean }
                >)
                .demandCommand(1, 'Name an action: list or eject.'),
        handler: () => undefined,
    };
}
