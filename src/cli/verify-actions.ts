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
import { progressReporter, type ServerArgs } from './load-actions.js';
import { transformOptionsOf, warnUnusedTransformOptions } from './transform-options.js';

/** The arguments of `kvmod verify`. */
export interface VerifyArgs extends ServerArgs {
    /** The instance data (absent with `live`). */
    data?: string;
    /** Check the server as it is, read-only: no data file, no load, no drop. */
    live?: boolean;
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
    if (args.live) return runVerifyLive(args, samples, io);
    if (args.data === undefined) throw new Error('verify needs --data or --live');
    const data = args.data;
    const progress = await progressReporter(io, 'loading');
    let result;
    try {
        result = await verifyOnEngine({
            modelPath: args.model,
            dataPath: data,
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

/** What `kvmod verify --live --format json` prints. */
export interface LiveVerifyReport {
    model: string;
    target: string;
    engine: string;
    /** Entities read back from the server. */
    entities: number;
    /** Every key-for-key difference, a sentence each. */
    differences: string[];
    samples: number;
    queries: (QueryVerdict & { status: ReturnType<typeof verdictStatus> })[];
    warnings: string[];
    /** No difference and no query differs: the exit code is 0. */
    ok: boolean;
}

/** `kvmod verify --live`: prints the differences, then the query table; 1 on any difference. */
async function runVerifyLive(args: VerifyArgs, samples: number, io: CliIo): Promise<number> {
    const { verifyLive } = await import('../runtime/live-check.js');
    const result = await verifyLive({
        modelPath: args.model,
        server: args.redis,
        target: args.target,
        targetOptions: givenTargetOptions(args),
        timeoutSeconds: args.timeout,
        ...transformOptionsOf(args),
        pidm: args.pidm,
        samples,
        seed: args.seed,
    });
    const queries = result.verdicts.map((verdict) => ({ ...verdict, status: verdictStatus(verdict) }));
    const ok = result.ok && !(args.strict && queries.some((q) => q.status === 'untested'));
    if (args.format === 'json') {
        const report: LiveVerifyReport = {
            model: args.model,
            target: result.target,
            engine: result.engine,
            entities: result.entities,
            differences: result.differences,
            samples,
            queries,
            warnings: result.warnings,
            ok,
        };
        io.out(JSON.stringify(report, null, 2) + '\n');
        return ok ? 0 : 1;
    }
    for (const warning of result.warnings) io.err(`kvmod: warning: ${warning}\n`);
    io.err(
        `read ${result.entities} entities from ${result.server} (${result.engine}); ${samples} parameter sets per query drawn from them, plus one made up\n`,
    );
    for (const difference of result.differences) io.out(`${difference}\n`);
    io.out(
        result.differences.length === 0
            ? 'every row, index entry and reverse reference is what the entities imply\n'
            : `${result.differences.length} ${result.differences.length === 1 ? 'difference' : 'differences'} between the server and what its entities imply\n`,
    );
    io.out(formatVerdicts(result.verdicts) + '\n');
    return ok ? 0 : 1;
}
