/**
 * The actions of `kvmod data generate|check|schema`: synthetic instance data for a model, checking a data
 * file against a model, and the JSON Schema of a model's data (format: schemas/instance-data.md). Loaded by
 * the command's handlers only when they run.
 */
import { writeFile } from 'node:fs/promises';
import { KvmodError } from '../pipeline/errors.js';
import { generateInstanceData } from '../runtime/data-generator.js';
import { readDataSpec } from '../runtime/data-spec.js';
import { instanceDataSchema, readInstanceData } from '../runtime/instance-data.js';
import { loadRuntimeModel } from '../runtime/runtime-design.js';
import { checkServableData } from '../runtime/runtime-actions.js';
import { processIo, type CliIo } from './cli-io.js';
import { givenTargetOptions, type TargetArgs } from './target-options.js';

/** The arguments of `kvmod data generate`. */
export interface DataGenerateArgs {
    /** The PIDM model whose entities get objects. */
    model: string;
    /** Objects per entity (default 100). */
    scale?: number;
    /** Seed: the same seed gives the same data (default 1). */
    seed?: number;
    /** Output file; standard output when absent or `-`. */
    output?: string;
    /** A data spec file (JSON): counts per entity, attribute domains. */
    spec?: string;
}

/** Generates data for a model and writes it; resolves to the exit code. */
export async function runDataGenerate(args: DataGenerateArgs, io: CliIo = processIo): Promise<number> {
    if (args.scale !== undefined && (!Number.isInteger(args.scale) || args.scale < 1))
        throw new KvmodError(`--scale must be a positive integer, got ${args.scale}`, { code: 'cli.option' });
    if (args.seed !== undefined && !Number.isInteger(args.seed))
        throw new KvmodError(`--seed must be an integer, got ${args.seed}`, { code: 'cli.option' });
    const model = await loadRuntimeModel(args.model);
    const spec = args.spec ? await readDataSpec(args.spec, model) : undefined;
    const scale = args.scale ?? spec?.scale ?? 100;
    const seed = args.seed ?? spec?.seed ?? 1;
    const data = generateInstanceData(model, { scale, seed, spec });
    const text = JSON.stringify(data, null, 1) + '\n';
    if (args.output && args.output !== '-') {
        await writeFile(args.output, text, 'utf8');
        const objects = Object.values(data).reduce((sum, list) => sum + list.length, 0);
        io.err(
            `wrote ${objects} objects of ${Object.keys(data).length} entities to ${args.output} (scale ${scale}, seed ${seed}${args.spec ? `, spec ${args.spec}` : ''})\n`,
        );
    } else io.out(text);
    return 0;
}

/** The arguments of `kvmod data check`. */
export interface DataCheckArgs extends Partial<TargetArgs> {
    model: string;
    data: string;
    /** The target's options, by name: its design's rules decide which values a query can find. */
    [targetOption: string]: unknown;
}

/** Checks a data file against a model; problems are a KvmodError (exit 1). */
export async function runDataCheck(args: DataCheckArgs, io: CliIo = processIo): Promise<number> {
    const model = await loadRuntimeModel(args.model);
    const data = await readInstanceData(args.data, model);
    await checkServableData(model, data, args.data, args.target, givenTargetOptions(args));
    const objects = Object.values(data).reduce((sum, list) => sum + list.length, 0);
    io.err(`${args.data}: ${objects} objects fit ${args.model}\n`);
    return 0;
}

/** Prints the JSON Schema of a model's instance data. */
export async function runDataSchema(args: { model: string }, io: CliIo = processIo): Promise<number> {
    io.out(JSON.stringify(instanceDataSchema(await loadRuntimeModel(args.model)), null, 2) + '\n');
    return 0;
}
