/**
 * `kvmod generate <inputs..> --target redis`: generate a target's files for each model (`.kvlm`, or `.pidm`
 * transformed first) into `<out>/<model>/<target>/`. Continues past a failing model, reports progress (a bar
 * on a terminal, plain lines otherwise) and a summary; exits 1 when any model failed.
 */
import cliProgress from 'cli-progress';
import type { Argv, CommandModule } from 'yargs';
import { generationTargets } from '../generation/generation-targets.js';
import { generateModels, type ModelGenerationResult } from '../pipeline/generate.js';
import { formatDiagnostic } from '../pipeline/load.js';
import { expandFileArguments } from './cli-files.js';
import { processIo, setExitCode, type CliIo } from './cli-io.js';

/** The arguments of `kvmod generate`. */
export interface GenerateArgs {
    /** Model files or globs: `.kvlm`, or `.pidm` (transformed to KVLM first). */
    inputs: string[];
    /** The target (`redis`). */
    target: string;
    /** The output root; files go to `<out>/<model>/<target>/`. Default `generated`. */
    out: string;
    /** The dialect: `redisearch2` (default) or `redisearch1` for the Redis target. */
    dialect?: string;
    /** A folder whose templates override the built-ins by relative file name. */
    templates?: string;
    /** Print the view model the templates receive (JSON) instead of generating. */
    dumpViewModel?: boolean;
    /** Prefix index names and keys with the database name (`airflights_C`). */
    dbPrefix?: boolean;
    /** The `LIMIT 0 <n>` of every query (default 10000). */
    limit?: number;
}

/** Runs the generation and prints progress, warnings and a summary; resolves to the exit code. */
export async function runGenerate(
    args: GenerateArgs,
    io: CliIo = processIo,
    interactive = io === processIo && Boolean(process.stderr.isTTY),
): Promise<number> {
    const inputs = await expandFileArguments(args.inputs);
    let bar: cliProgress.SingleBar | undefined;
    const lines: string[] = [];
    const say = (text: string) => (bar ? lines.push(text) : io.err(text + '\n'));
    const results = await generateModels(inputs, {
        target: args.target,
        outDir: args.out,
        dialect: args.dialect,
        templatesDir: args.templates,
        dbPrefix: args.dbPrefix,
        limit: args.limit,
        dumpViewModel: args.dumpViewModel,
        log: (message) => say(`kvmod: ${message}`),
        onModelStart: (input, index, total) => {
            if (interactive && !bar && total > 1) {
                bar = new cliProgress.SingleBar(
                    {
                        format: 'generating [{bar}] {value}/{total} {input}',
                        stream: process.stderr,
                        hideCursor: true,
                        clearOnComplete: true,
                    },
                    cliProgress.Presets.shades_classic,
                );
                bar.start(total, 0, { input });
            } else if (bar) {
                bar.update(index, { input });
            }
        },
        onModelDone: (result, index) => {
            bar?.update(index + 1, { input: result.input });
            if (!bar) io.err(progressLine(result) + '\n');
            else lines.push(progressLine(result));
        },
    });
    bar?.stop();
    for (const line of lines) io.err(line + '\n');
    if (args.dumpViewModel) {
        for (const result of results)
            if (result.viewModel !== undefined) io.out(JSON.stringify(result.viewModel, null, 2) + '\n');
    }
    for (const result of results) {
        for (const diagnostic of result.diagnostics)
            if (diagnostic.severity !== 'error') io.err(formatDiagnostic(diagnostic) + '\n');
    }
    const failed = results.filter((r) => r.error !== undefined);
    io.err(
        `${results.length} model${results.length === 1 ? '' : 's'}: ${results.length - failed.length} ${args.dumpViewModel ? 'dumped' : 'generated'}, ${failed.length} failed\n`,
    );
    return failed.length > 0 ? 1 : 0;
}

function progressLine(result: ModelGenerationResult): string {
    if (result.error !== undefined) return `failed ${result.input}: ${result.error}`;
    if (result.outputDir === undefined) return `ok ${result.input} (${result.model})`;
    return `ok ${result.input} -> ${result.outputDir} (${result.files.join(', ')})`;
}

/** The yargs module of `kvmod generate`. */
export const generateCommand: CommandModule<object, GenerateArgs> = {
    command: 'generate <inputs..>',
    describe: 'Generate target files (Redis scripts) from .kvlm models, or .pidm models through the transformation',
    builder: (yargs: Argv<object>) =>
        yargs
            .positional('inputs', {
                describe: 'Model files or globs (.kvlm, .pidm; quote globs)',
                type: 'string',
                array: true,
                default: undefined,
            })
            .option('target', {
                alias: 't',
                describe: 'The target',
                choices: [...generationTargets.keys()],
                default: 'redis',
            })
            .option('out', {
                alias: 'o',
                describe: 'Output root: files go to <out>/<model>/<target>/',
                type: 'string',
                default: 'generated',
            })
            .option('dialect', {
                describe: 'Redis: redisearch2 (RediSearch 2.x+, Redis Stack, Redis 8) or redisearch1 (RediSearch 1.2)',
                type: 'string',
            })
            .option('templates', {
                describe: 'A folder of templates overriding the built-ins by relative file name',
                type: 'string',
            })
            .option('dump-view-model', {
                describe:
                    'Print the view model the templates receive (one JSON document per model) instead of generating',
                type: 'boolean',
            })
            .option('db-prefix', {
                describe: 'Prefix index names and keys with the database name (<db>_<collection>)',
                type: 'boolean',
            })
            .option('limit', { describe: 'The LIMIT 0 <n> of every query', type: 'number' })
            .example(
                '$0 generate examples/airflights/airflights.pidm --target redis -o out',
                'Redis scripts for RediSearch 2.x+',
            )
            .example(
                '$0 generate "models/*.kvlm" --dialect redisearch1 --templates my-templates',
                'RediSearch 1.2, own templates',
            ) as unknown as Argv<GenerateArgs>,
    handler: async (args) => {
        setExitCode(await runGenerate(args));
    },
};
