/**
 * The action of `kvmod generate`: generate a target's files for each model (`.kvlm`, or `.pidm` transformed
 * first with the transformation options) into `<out>/<database>/<target>/` (see `generateModels`). Continues past a failing model,
 * reports progress (a bar on a terminal, plain lines otherwise) and a summary; exits 1 when any model failed.
 * Loaded by the command's handler only when it runs.
 */
import cliProgress from 'cli-progress';
import { generateModels, type ModelGenerationResult } from '../pipeline/generate.js';
import { formatDiagnostic } from '../pipeline/load.js';
import { expandFileArguments } from './cli-files.js';
import { processIo, type CliIo } from './cli-io.js';
import { givenTargetOptions, type TargetArgs } from './target-options.js';
import { transformOptionsOf, warnUnusedTransformOptions, type TransformOptionArgs } from './transform-options.js';

/** The arguments of `kvmod generate`; the target's options come by their declared names. */
export interface GenerateArgs extends TransformOptionArgs, TargetArgs {
    /** Model files or globs: `.kvlm`, or `.pidm` (transformed to KVLM first). */
    inputs: string[];
    /** The output root (default `generated`). */
    out: string;
    /** A folder whose templates override the built-ins by relative file name. */
    templates?: string;
    /** Print the view model the templates receive (JSON) instead of generating. */
    dumpViewModel?: boolean;
    /** The target's options, by name (checked against its declarations). */
    [targetOption: string]: unknown;
}

/** Runs the generation and prints progress, warnings and a summary; resolves to the exit code. */
export async function runGenerate(
    args: GenerateArgs,
    io: CliIo = processIo,
    interactive = io === processIo && Boolean(process.stderr.isTTY),
): Promise<number> {
    const inputs = await expandFileArguments(args.inputs);
    warnUnusedTransformOptions(inputs, args, io);
    let bar: cliProgress.SingleBar | undefined;
    // Diagnostics go to standard output like every command's (the README's one stream), each model's before
    // its ok/failed line; with --dump-view-model standard output carries JSON only, so they go to stderr.
    const lines: { stream: 'out' | 'err'; text: string }[] = [];
    const write = (stream: 'out' | 'err', text: string) =>
        bar ? lines.push({ stream, text }) : stream === 'out' ? io.out(text + '\n') : io.err(text + '\n');
    const say = (text: string) => write('err', text);
    const diagnosticStream = args.dumpViewModel ? 'err' : 'out';
    const results = await generateModels(inputs, {
        target: args.target,
        outDir: args.out,
        targetOptions: givenTargetOptions(args),
        templatesDir: args.templates,
        transform: transformOptionsOf(args),
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
            for (const diagnostic of result.diagnostics) write(diagnosticStream, formatDiagnostic(diagnostic));
            write('err', progressLine(result));
        },
    });
    bar?.stop();
    for (const line of lines) (line.stream === 'out' ? io.out : io.err)(line.text + '\n');
    if (args.dumpViewModel) {
        for (const result of results)
            if (result.viewModel !== undefined) io.out(JSON.stringify(result.viewModel, null, 2) + '\n');
    }
    const failed = results.filter((r) => r.error !== undefined);
    io.err(
        `${results.length} model${results.length === 1 ? '' : 's'}: ${results.length - failed.length} ${args.dumpViewModel ? 'dumped' : 'generated'}, ${failed.length} failed\n`,
    );
    return failed.length > 0 ? 1 : 0;
}

function progressLine(result: ModelGenerationResult): string {
    // A model's errors were printed above as diagnostics: the failed line names them without repeating them.
    if (result.error !== undefined && result.diagnostics.some((d) => d.severity === 'error'))
        return `failed ${result.input}: ${result.error.split('\n')[0].replace(/:$/, '')} (listed above)`;
    if (result.error !== undefined) return `failed ${result.input}: ${result.error}`;
    if (result.outputDir === undefined) return `ok ${result.input} (${result.model})`;
    return `ok ${result.input} -> ${result.outputDir} (${result.files.join(', ')})`;
}
