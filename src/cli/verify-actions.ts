/**
 * The action of `kvmod verify`: loads the data with the generated design, runs every query for sampled
 * parameters and compares the engine's answers with the oracle. Loaded by the command's handler only when
 * it runs (it pulls in Langium and node-redis).
 */
import { verifyOnEngine } from '../runtime/runtime-actions.js';
import { formatVerdicts, verdictStatus, type QueryVerdict } from '../runtime/verify.js';
import { singleModelArgument } from './cli-files.js';
import { processIo, type CliIo } from './cli-io.js';
import { givenTargetOptions } from './target-options.js';
import { progressReporter, type RuntimeArgs } from './load-actions.js';
import { transformOptionsOf, warnUnusedTransformOptions } from './transform-options.js';

/** The arguments of `kvmod verify`. */
export interface VerifyArgs extends RuntimeArgs {
    /** Parameter sets per query drawn from the data (plus one made up). */
    samples?: number;
    /** Seed of the sampling. */
    seed?: number;
    /** An untested query (no rows compared) fails the run instead of warning. */
    strict?: boolean;
    /** `text` (default): the table; `json`: one object (see `VerifyReport`). */
    format?: 'text' | 'json';
}

/** What `kvmod verify --format json` prints. */
export interface VerifyReport {
    model: string;
    /** The target whose design was verified. */
    target: string;
    /** The engine it ran on, as people read it (e.g. the module version the server reports). */
    engine: string;
    rowsLoaded: number;
    /** Parameter sets drawn from the data per query (plus one made up). */
    samples: number;
    queries: (QueryVerdict & { status: ReturnType<typeof verdictStatus> })[];
    summary: { queries: number; match: number; differ: number; untested: number };
    warnings: string[];
    /** True when no query differs (and, with --strict, none is untested): the exit code is 0. */
    ok: boolean;
}

/** Verifies; prints one table line per query; resolves to 0 when every query matches, 1 otherwise. */
export async function runVerify(args: VerifyArgs, io: CliIo = processIo): Promise<number> {
    // A folder or glob (the config's `models`) stands for the one model in it.
    args = { ...args, model: await singleModelArgument(args.model) };
    warnUnusedTransformOptions([args.model], args, io);
    const samples = args.samples ?? 10;
    const progress = await progressReporter(io, 'loading');
    let result;
    try {
        result = await verifyOnEngine({
            modelPath: args.model,
            dataPath: args.data,
            server: args.redis,
            target: args.target,
            targetOptions: givenTargetOptions(args),
            timeoutSeconds: args.timeout,
            ...transformOptionsOf(args),
            pidm: args.pidm,
            batchSize: args.batch,
            samples,
            seed: args.seed,
            onProgress: progress.update,
        });
    } finally {
        progress.stop();
    }
    const queries = result.verdicts.map((verdict) => ({ ...verdict, status: verdictStatus(verdict) }));
    const count = (status: string) => queries.filter((q) => q.status === status).length;
    const untested = queries.filter((q) => q.status === 'untested');
    const warnings = [
        ...result.warnings,
        ...untested.map(
            (q) =>
                `${q.query} was not tested: no parameter set gave a row to compare (its filter matches no data; generate data that holds its values: kvmod data generate --spec)`,
        ),
    ];
    const ok = result.ok && !(args.strict && untested.length > 0);
    if (args.format === 'json') {
        const report: VerifyReport = {
            model: args.model,
            target: result.target,
            engine: result.engine,
            rowsLoaded: result.load.rows,
            samples,
            queries,
            summary: {
                queries: queries.length,
                match: count('match'),
                differ: count('differ'),
                untested: untested.length,
            },
            warnings,
            ok,
        };
        io.out(JSON.stringify(report, null, 2) + '\n');
        return ok ? 0 : 1;
    }
    for (const warning of warnings) io.err(`kvmod: warning: ${warning}\n`);
    io.err(
        `loaded ${result.load.rows} rows into ${result.server} (${result.engine}); ${samples} parameter sets per query drawn from the data, plus one made up\n`,
    );
    io.out(formatVerdicts(result.verdicts) + '\n');
    if (args.strict && untested.length > 0 && result.ok)
        io.err(
            `kvmod: --strict: ${untested.length} untested ${untested.length === 1 ? 'query fails' : 'queries fail'} the run\n`,
        );
    return ok ? 0 : 1;
}
