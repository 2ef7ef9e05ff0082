/**
 * The actions of `kvmod data generate|check|schema`: synthetic instance data for a model, checking a data
 * file against a model, and the JSON Schema of a model's data (format: schemas/instance-data.md). Loaded by
 * the command's handlers only when they run.
 */
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { once } from 'node:events';
import { constants as bufferConstants } from 'node:buffer';
import type { Writable } from 'node:stream';
import { KvmodError } from '../pipeline/errors.js';
import { checkHeapBudget } from '../pipeline/memory-guard.js';
import {
    estimateGeneratorHeap,
    generateInstanceEntities,
    instanceDataJsonPieces,
    type GenerateOptions,
} from '../runtime/data-generator.js';
import { readDataSpec } from '../runtime/data-spec.js';
import { instanceDataSchema, readInstanceData } from '../runtime/instance-data.js';
import { loadRuntimeModel } from '../runtime/runtime-design.js';
import { checkServableData } from '../runtime/runtime-actions.js';
import { processIo, type CliIo } from './cli-io.js';
import { progressReporter } from './load-actions.js';
import { numberOptionProblem } from './number-options.js';
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

/**
 * Generates data for a model and writes it as it is made, with a progress bar on a terminal: any scale whose value
 * pools fit in memory is written, however large the file; a scale whose pools do not is refused before anything is
 * written, with the largest that fits. Resolves to the exit code.
 */
export async function runDataGenerate(args: DataGenerateArgs, io: CliIo = processIo): Promise<number> {
    // The command line checks these when it parses them; a caller of the action may not have.
    for (const problem of [
        numberOptionProblem('scale', args.scale, 'count'),
        numberOptionProblem('seed', args.seed, 'whole'),
    ])
        if (problem) throw new KvmodError(problem, { code: 'cli.option' });
    const model = await loadRuntimeModel(args.model);
    const spec = args.spec ? await readDataSpec(args.spec, model) : undefined;
    const scale = args.scale ?? spec?.scale ?? 100;
    const seed = args.seed ?? spec?.seed ?? 1;
    const options: GenerateOptions = { scale, seed, spec };
    const needed = estimateGeneratorHeap(model, options);
    const counted = needed.entity !== undefined && spec?.entities?.[needed.entity]?.count !== undefined;
    checkHeapBudget(
        counted ? `the spec's count of ${needed.entity}` : `--scale ${scale}`,
        needed.bytes,
        `for the values objects draw from (a third as many per attribute as ${needed.entity} has objects)`,
        (budget) => {
            const largest = largestScale(
                budget,
                (candidate) => estimateGeneratorHeap(model, { ...options, scale: candidate }).bytes,
            );
            return largest === undefined ? undefined : `at most --scale ${largest} here`;
        },
    );

    const entities = [...generateInstanceEntities(model, options)];
    const total = entities.reduce((sum, entity) => sum + entity.count, 0);
    const toFile = args.output !== undefined && args.output !== '-';
    const sink = toFile ? await openOutput(args.output!) : io === processIo ? process.stdout : undefined;
    const progress = await progressReporter(io, 'generating', 'objects');
    let written = 0;
    let characters = 0;
    const onObject = progress.update
        ? () => {
              // Every object would redraw the bar millions of times.
              if (++written % 1024 === 0 || written === total) progress.update!(written, total);
          }
        : undefined;
    // A write can fail while no one waits on the stream (a full disk): kept here, thrown at the next piece.
    let failure: unknown;
    sink?.on('error', (error) => (failure ??= error));
    try {
        for (const piece of instanceDataJsonPieces(entities, onObject)) {
            characters += piece.length;
            if (!sink) io.out(piece);
            else if (!sink.write(piece)) await once(sink, 'drain');
            if (failure) throw failure;
        }
        if (toFile) {
            sink!.end();
            await once(sink!, 'finish');
        }
    } catch (error) {
        if (!toFile) throw error;
        sink!.destroy();
        // Half a JSON document is no data file.
        await rm(args.output!, { force: true });
        throw unwritable(args.output!, error);
    } finally {
        progress.stop();
    }
    if (toFile) {
        io.err(
            `wrote ${total} objects of ${entities.length} entities to ${args.output} (scale ${scale}, seed ${seed}${args.spec ? `, spec ${args.spec}` : ''})\n`,
        );
    }
    if (characters > bufferConstants.MAX_STRING_LENGTH) {
        io.err(
            `kvmod: warning: ${toFile ? args.output : 'the data'} is ${Math.round(characters / 1024 ** 2)} MB: data check, load and verify read a data file of at most about ${Math.floor(bufferConstants.MAX_STRING_LENGTH / 1024 ** 2)} MB\n`,
        );
    }
    return 0;
}

/** The largest scale from 1 whose estimate fits `budget` (the estimate grows with the scale); undefined if none. */
function largestScale(budget: number, estimate: (scale: number) => number): number | undefined {
    if (estimate(1) > budget) return undefined;
    let [low, high] = [1, 2];
    while (estimate(high) <= budget) [low, high] = [high, high * 2];
    while (high - low > 1) {
        const middle = Math.floor((low + high) / 2);
        if (estimate(middle) <= budget) low = middle;
        else high = middle;
    }
    // A round figure: the estimate is one.
    const magnitude = 10 ** Math.max(0, Math.floor(Math.log10(low)) - 1);
    return Math.max(1, Math.floor(low / magnitude) * magnitude);
}

/** A file stream once it is open: a path that cannot be written is an error before anything is generated. */
async function openOutput(path: string): Promise<Writable> {
    const stream = createWriteStream(path);
    try {
        await once(stream, 'open');
    } catch (error) {
        throw unwritable(path, error);
    }
    return stream;
}

function unwritable(path: string, error: unknown): unknown {
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code !== 'string') return error;
    const reason =
        code === 'ENOENT'
            ? 'no such folder'
            : code === 'ENOSPC'
              ? 'no space left on the device'
              : (error as Error).message;
    return new KvmodError(`cannot write ${path}: ${reason}`, { code: 'io.unwritable', path });
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
