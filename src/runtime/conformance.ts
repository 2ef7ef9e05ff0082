/**
 * The conformance run: `kvmod verify` for every example × merge policy (safe, none) × key strategy (natural,
 * counter) × data seed on one server, so a user can check the engine they have (Redis Stack, Redis 8, any
 * RediSearch 2.x, or 1.2) before trusting a design. One table, one line per run; ok only when every run matches.
 */
import { readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../generation/generation-paths.js';
import { generateInstanceData } from './data-generator.js';
import { loadRuntimeModel } from './runtime-design.js';
import { verifyOnEngine } from './runtime-actions.js';
import { verdictStatus } from './verify.js';

/** The merge policies and key strategies every example is verified with. */
export const CONFORMANCE_MERGES = ['safe', 'none'] as const;
/** The key strategies every example is verified with. */
export const CONFORMANCE_KEYS = ['natural', 'counter'] as const;

/** Options of `runConformance`. */
export interface ConformanceOptions {
    /** The server, as `kvmod verify --redis` takes it. */
    server: string | readonly string[];
    /** The target whose design is verified (default: the default target). */
    target?: string;
    /** Objects per entity of the generated data (default 40). */
    scale?: number;
    /** Data seeds (default 1, 2, 3). */
    seeds?: readonly number[];
    /** Parameter sets per query (default 8). */
    samples?: number;
    /** Seconds to wait for the connection and each reply (verify's default when absent). */
    timeoutSeconds?: number;
    /** The example models (default: every `examples/<name>/<name>.pidm` of the package). */
    models?: readonly string[];
    /** Called after each run, for progress. */
    onRun?: (run: ConformanceRun, done: number, total: number) => void;
}

/** One verify run of the matrix. */
export interface ConformanceRun {
    model: string;
    merge: (typeof CONFORMANCE_MERGES)[number];
    key: (typeof CONFORMANCE_KEYS)[number];
    seed: number;
    /** The engine variant the design ran on (`redisearch1`). */
    variant: string;
    rowsLoaded: number;
    queries: number;
    rowsCompared: number;
    /** Queries whose answers differ from the oracle. */
    differ: number;
    /** Queries no parameter set gave a row to compare. */
    untested: number;
    /** The first difference, `query: difference`, when a query differs. */
    firstDifference?: string;
}

/** The outcome of a conformance run. */
export interface ConformanceResult {
    /** The engine variant of the runs (the server's, detected), undefined when nothing ran. */
    variant: string | undefined;
    runs: ConformanceRun[];
    /** True when every run matches the oracle. */
    ok: boolean;
}

/** The example models shipped with kvmod: `examples/<name>/<name>.pidm`. */
export function exampleModels(): string[] {
    const root = join(packageRoot(), 'examples');
    return readdirSync(root, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => join(root, entry.name, `${entry.name}.pidm`))
        .sort();
}

/** Runs verify over the whole matrix on one server (it drops and recreates the examples' indexes). */
export async function runConformance(options: ConformanceOptions): Promise<ConformanceResult> {
    const models = options.models ?? exampleModels();
    const seeds = options.seeds ?? [1, 2, 3];
    const scale = options.scale ?? 40;
    const total = models.length * seeds.length * CONFORMANCE_MERGES.length * CONFORMANCE_KEYS.length;
    const runs: ConformanceRun[] = [];
    const dir = await mkdtemp(join(tmpdir(), 'kvmod-conformance-'));
    try {
        for (const model of models) {
            const entities = await loadRuntimeModel(model);
            for (const seed of seeds) {
                const dataPath = join(dir, `data-${runs.length}.json`);
                await writeFile(dataPath, JSON.stringify(generateInstanceData(entities, { scale, seed })));
                for (const merge of CONFORMANCE_MERGES) {
                    for (const key of CONFORMANCE_KEYS) {
                        const result = await verifyOnEngine({
                            modelPath: model,
                            dataPath,
                            server: options.server,
                            target: options.target,
                            timeoutSeconds: options.timeoutSeconds,
                            merge,
                            keyStrategy: key,
                            samples: options.samples ?? 8,
                            seed,
                        });
                        const differing = result.verdicts.filter((v) => verdictStatus(v) === 'differ');
                        const run: ConformanceRun = {
                            model,
                            merge,
                            key,
                            seed,
                            variant: result.variant,
                            rowsLoaded: result.load.rows,
                            queries: result.verdicts.length,
                            rowsCompared: result.verdicts.reduce((sum, v) => sum + v.rowsCompared, 0),
                            differ: differing.length,
                            untested: result.verdicts.filter((v) => verdictStatus(v) === 'untested').length,
                            firstDifference: differing[0]
                                ? `${differing[0].query}: ${differing[0].firstDifference ?? ''}`
                                : undefined,
                        };
                        runs.push(run);
                        options.onRun?.(run, runs.length, total);
                    }
                }
            }
        }
    } finally {
        await rm(dir, { recursive: true, force: true });
    }
    return { variant: runs[0]?.variant, runs, ok: runs.every((run) => run.differ === 0) };
}

/** The result as one table (a line per run), the differences, and a summary line. */
export function formatConformance(result: ConformanceResult, modelName: (path: string) => string): string {
    const header = ['example', 'merge', 'key', 'seed', 'rows loaded', 'queries', 'rows compared', 'untested', 'result'];
    const rows = result.runs.map((run) => [
        modelName(run.model),
        run.merge,
        run.key,
        String(run.seed),
        String(run.rowsLoaded),
        String(run.queries),
        String(run.rowsCompared),
        String(run.untested),
        run.differ === 0 ? 'match' : `${run.differ} differ`,
    ]);
    const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
    const line = (cells: string[]) =>
        cells
            .map((cell, column) => cell.padEnd(widths[column]!))
            .join('  ')
            .trimEnd();
    const failed = result.runs.filter((run) => run.differ > 0);
    const differences = failed.map(
        (run) => `${modelName(run.model)} ${run.merge} ${run.key} seed ${run.seed}: ${run.firstDifference}`,
    );
    const summary =
        failed.length === 0
            ? `all ${result.runs.length} runs match the oracle on ${result.variant ?? 'the server'}`
            : `${failed.length} of ${result.runs.length} runs differ from the oracle on ${result.variant ?? 'the server'}`;
    return [line(header), ...rows.map(line), '', ...differences, ...(differences.length > 0 ? [''] : []), summary].join(
        '\n',
    );
}
