/**
 * The action of `kvmod transform`: PIDM → KVLM (Algorithms 1–3), written as `<dir>/<model>.kvlm` (or
 * `.kvlm.json`) after the model has passed every KVLM check in memory; `--explain` prints the merge
 * decisions as a table. Loaded by the command's handler only when it runs.
 */
import { basename, dirname, extname, join, relative } from 'node:path';
import { kvlmToJson } from '../language/kvlm/kvlm-json.js';
import { formatDiagnostic } from '../pipeline/load.js';
import { writeFileAtomically } from '../generation/generation-writer.js';
import { EXPLAINED_NEAR_MISSES, explainDecisions, transformFiles } from '../pipeline/transform.js';
import { expandFileArguments } from './cli-files.js';
import { groupModelFiles, sourceFiles } from '../pipeline/model-files.js';
import { KvmodError } from '../pipeline/errors.js';
import { processIo, type CliIo } from './cli-io.js';
import { transformOptionsOf, type TransformOptionArgs } from './transform-options.js';

/** The arguments of `kvmod transform`. */
export interface TransformArgs extends TransformOptionArgs {
    /** PIDM files or globs, loaded as one model; the output is named after the first. */
    models: string[];
    /** Output folder (default: the first model's folder). */
    out?: string;
    /** Print the merge decisions as a table on stdout. */
    explain?: boolean;
    /** `kvlm` (text, default) or `json`. */
    format?: 'kvlm' | 'json';
}

/**
 * Transforms and writes; resolves to the exit code (0 written, 1 model errors). A bad option value is a
 * `KvmodError` (the command line rejects it earlier, as a usage error).
 */
export async function runTransform(args: TransformArgs, io: CliIo = processIo): Promise<number> {
    const models = await groupModelFiles(await expandFileArguments(args.models));
    // One model per run: a folder with a copy of the model would otherwise be merged into one database.
    if (models.length > 1) {
        throw new KvmodError(
            `the files hold ${models.length} separate models (${models.map((model) => model.files[0]).join(', ')}): transform one model at a time`,
            { code: 'cli.several-models' },
        );
    }
    // A .kvlm transformed from this model earlier is output, not input.
    const paths = sourceFiles(models[0]);
    const first = paths[0];
    const outDir = args.out ?? dirname(first);
    const format = args.format ?? 'kvlm';
    const target = join(outDir, `${basename(first, extname(first))}.${format === 'json' ? 'kvlm.json' : 'kvlm'}`);
    // `source` is read relative to the .kvlm file (the runtime finds the PIDM through it).
    const sourceName = relative(outDir, first).split('\\').join('/');
    const result = await transformFiles(paths, {
        ...transformOptionsOf(args),
        sourceName,
        ...(args.explain ? { closestPairs: EXPLAINED_NEAR_MISSES } : {}),
    });
    // Diagnostics on standard output like every command's, unless it carries the --explain table.
    const report = args.explain ? io.err : io.out;
    for (const diagnostic of result.diagnostics) report(formatDiagnostic(diagnostic) + '\n');
    if (!result.kvlm || result.kvlmText === undefined) {
        const errors = result.diagnostics.filter((d) => d.severity === 'error').length;
        io.err(`kvmod: ${first} has ${errors} error${errors === 1 ? '' : 's'}; nothing written\n`);
        return 1;
    }
    for (const warning of result.warnings) io.err(`kvmod: warning: ${warning}\n`);
    const text = format === 'json' ? JSON.stringify(kvlmToJson(result.kvlm), null, 2) + '\n' : result.kvlmText;
    await writeFileAtomically(target, text);
    if (args.explain) io.out(explainDecisions(result.decisions, result.options, result.nearMisses, result.cost));
    const merges = result.decisions.filter((decision) => decision.result !== undefined).length;
    const refused = result.decisions.length - merges;
    io.err(
        `wrote ${target} (${result.kvlm.collections.length} collection${result.kvlm.collections.length === 1 ? '' : 's'}, ` +
            `${merges} merge${merges === 1 ? '' : 's'}, ${refused} refused)\n`,
    );
    return 0;
}
