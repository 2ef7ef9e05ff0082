/**
 * `kvmod doctor --redis URL`: which Redis and which search module a server runs, and so which dialect to
 * generate for — before a 2.x script meets a 1.2 server, where every FT.CREATE answers OK and nothing is
 * ever indexed. The yargs metadata only; the handler loads doctor-actions.ts when it runs.
 */
import type { Argv, CommandModule } from 'yargs';
import { runAction, type CliContext } from './cli-command.js';
import type { DoctorArgs } from './doctor-actions.js';
import { timeoutOption } from './load-command.js';
import { engineTargetOption } from './target-options.js';

/** The yargs module of `kvmod doctor`. */
export function doctorCommand(context: CliContext): CommandModule<object, DoctorArgs> {
    return {
        command: 'doctor',
        describe: 'Check a Redis server: its version, its search module and the dialect to generate for',
        builder: (yargs: Argv<object>) =>
            timeoutOption(engineTargetOption(yargs))
                .option('redis', {
                    describe: 'The server, redis://host:port (default: REDIS_URL, then kvmod.config.json)',
                    type: 'string',
                    demandOption: true,
                })
                .option('format', {
                    describe: 'text: a few lines; json: one JSON object on standard output',
                    choices: ['text', 'json'] as const,
                    default: 'text' as const,
                })
                .example('$0 doctor --redis redis://127.0.0.1:6379', '') as unknown as Argv<DoctorArgs>,
        handler: (args) => runAction(context, async (io) => (await import('./doctor-actions.js')).runDoctor(args, io)),
    };
}
