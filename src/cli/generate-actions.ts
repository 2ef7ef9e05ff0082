/**
 * The action of `kvmod generate`: generate a target's files for each model (`.kvlm`, or `.pidm` transformed
 * first with the transformation options) into `<out>/<database>/<target>/` (see `generateModels`). Continues past a failing model,
 * reports progress (a bar on a terminal, plain lines otherwise) and a summary; exits 1 when any model failed.
 * Loaded by the command's handler only when it runs.
 */
import cliProgress from 'cli-progress';
import { generateModels, type ModelGenerationResult } from '../pipeline/generate.js';
import { flagOf, type RawOptionValues } from '../generation/generation-options.js';
import { getGenerationTarget, type RegisteredTarget } from '../generation/generation-targets.js';
import { KvmodError } from '../pipeline/errors.js';
import { formatDiagnostic, type KvmodDiagnostic } from '../pipeline/load.js';
import { defaultEngine, engineOf, runsOnEngine } from '../runtime/engine-registry.js';
import { moduleLabel } from './doctor-actions.js';
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
    /** `text` (default): diagnostics, progress and a summary; `json`: one `GenerateReport` on standard output. */
    format?: 'text' | 'json';
    /**
     * Generate for the dialect this Redis server runs (`''`: the config's redis or REDIS_URL, handed over as
     * `configRedis`); a dialect given that differs is an error.
     */
    redis?: string;
    /** Seconds to wait for that server. */
    timeout?: number;
    /** The target's options, by name (checked against its declarations). */
    [targetOption: string]: unknown;
}

/** What `kvmod generate --format json` prints: one object for the whole run. */
export interface GenerateReport {
    /** The target generated for. */
    target: string;
    /** One entry per model, in the order of the inputs. */
    models: {
        /** The model's first file, as given. */
        input: string;
        /** The model (database) name, once known. */
        model?: string;
        status: 'generated' | 'failed';
        /** Where its files were written (absent when it failed). */
        outputDir?: string;
        /** The files written, relative to `outputDir`. */
        files: string[];
        /** The diagnostics of loading (and transforming) it, as `validate --format json` prints them. */
        diagnostics: KvmodDiagnostic[];
        /** Why it failed (absent when it was generated). */
        error?: string;
    }[];
    summary: { models: number; generated: number; failed: number };
    /** The server asked with `--redis` and what it runs (the dialect generated for). */
    server?: ServerProbe;
    /** What the text run prints as `kvmod: …` notices (template overrides, ignored options, skipped files). */
    warnings: string[];
    /** True when every model was generated: the exit code is 0. */
    ok: boolean;
}

/** What `generate --redis` learnt from the server. */
export interface ServerProbe {
    /** The server, its password hidden. */
    url: string;
    /** The search module's version as MODULE LIST gives it (`10205`); 0 when it could only be probed. */
    searchVersion: number;
    /** The same as people read it: `RediSearch 1.2.5`. */
    module: string;
    /** The dialect the server speaks, which the run generated for. */
    dialect: string;
    /** The target option values the server implies, which the run used (the target's dialect option, for Redis). */
    options: RawOptionValues;
}

/**
 * Runs the generation and prints progress, warnings and a summary; resolves to the exit code. `configRedis`
 * is the server `--redis` without a URL means (the config's redis, or REDIS_URL).
 */
export async function runGenerate(
    args: GenerateArgs,
    io: CliIo = processIo,
    interactive = io === processIo && Boolean(process.stderr.isTTY),
    configRedis?: string,
): Promise<number> {
    const server = args.redis === undefined ? undefined : await probeServer(args, configRedis);
    if (server) args = { ...args, ...server.options };
    if (args.format === 'json') return runGenerateJson(args, io, server);
    if (server) io.err(`kvmod: ${server.url} runs ${server.module}: generating for ${impliedOptions(server)}\n`);
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
        ...generateOptionsOf(args),
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

/** `--format json`: nothing but the report on standard output (no progress, notices inside it). */
async function runGenerateJson(args: GenerateArgs, io: CliIo, server: ServerProbe | undefined): Promise<number> {
    const inputs = await expandFileArguments(args.inputs);
    const warnings: string[] = [];
    // The notices a text run prints as `kvmod: warning: …` lines become the report's warnings.
    const noticeIo: CliIo = { out: io.out, err: (text) => warnings.push(...noticesIn(text)) };
    warnUnusedTransformOptions(inputs, args, noticeIo);
    const results = await generateModels(inputs, {
        ...generateOptionsOf(args),
        log: (message) => warnings.push(message),
    });
    const models = results.map((result) => ({
        input: result.input,
        ...(result.model !== undefined && { model: result.model }),
        status: result.error === undefined ? ('generated' as const) : ('failed' as const),
        ...(result.outputDir !== undefined && { outputDir: result.outputDir }),
        files: result.files,
        diagnostics: result.diagnostics,
        ...(result.error !== undefined && { error: result.error }),
    }));
    const failed = models.filter((model) => model.status === 'failed').length;
    const report: GenerateReport = {
        target: args.target,
        models,
        summary: { models: models.length, generated: models.length - failed, failed },
        ...(server && { server }),
        warnings,
        ok: failed === 0,
    };
    io.out(JSON.stringify(report, null, 2) + '\n');
    return failed > 0 ? 1 : 0;
}

/**
 * `--redis`: asks the server, through the target's engine runtime (the probe `doctor`, `load` and `verify`
 * use), which options its design must have there (the RediSearch dialect), before anything is generated. A
 * value given (flag or config) that differs is refused: its scripts would be accepted there and do nothing.
 */
async function probeServer(args: GenerateArgs, configRedis: string | undefined): Promise<ServerProbe> {
    const url = args.redis || configRedis;
    if (!url) {
        throw new KvmodError(
            '--redis without a URL uses the redis of the config file or REDIS_URL, and neither is set: give --redis redis://host:port',
            { code: 'cli.option' },
        );
    }
    const target = getGenerationTarget(args.target);
    // A target describing another target's design (a report) is asked through that target's engine; one that
    // runs nowhere itself through the default engine; either for the options it shares with the engine's target.
    const described = describedTarget(target, args);
    const engine = runsOnEngine(described)
        ? await engineOf(described)
        : runsOnEngine(target)
          ? await engineOf(target)
          : await defaultEngine();
    const engineOptions = new Set(getGenerationTarget(engine.target).options.map((option) => option.name));
    const shared = new Set(target.options.map((option) => option.name).filter((name) => engineOptions.has(name)));
    if (shared.size === 0) {
        const what = described === target ? `target ${target.name}` : `the ${described.name} design`;
        throw new KvmodError(
            `--redis asks a server which options the design needs there; ${what} has none that a server decides: drop --redis`,
            { code: 'cli.option' },
        );
    }
    const probe = await engine.use(async (typed) => {
        const session = await typed.connect({ urls: [url], timeoutSeconds: args.timeout });
        await session.close();
        return session.probe;
    });
    const implied = Object.fromEntries(Object.entries(probe.options).filter(([name]) => shared.has(name)));
    const given = givenTargetOptions(args);
    for (const [name, value] of Object.entries(implied)) {
        if (given[name] === undefined || given[name] === value) continue;
        throw new KvmodError(
            `${probe.server} runs ${name} ${String(value)}, but ${name} ${String(given[name])} was asked for (--${flagOf(name)} or the config's ${name}): its scripts would be accepted there and do nothing; drop it to generate for the server, or drop --redis to generate for another one`,
            { code: 'redis.dialect-mismatch' },
        );
    }
    return {
        url: probe.server,
        searchVersion: probe.module?.version ?? 0,
        module: probe.module ? moduleLabel(probe.module) : probe.product,
        dialect: probe.variant,
        options: implied,
    };
}

/** The target whose design `target` describes with these options (its `describesTargetOption`), else itself. */
function describedTarget(target: RegisteredTarget, args: GenerateArgs): RegisteredTarget {
    const option = target.options.find((o) => o.name === target.describesTargetOption);
    if (!option) return target;
    const value = givenTargetOptions(args)[option.name] ?? option.declaration.default;
    return getGenerationTarget(String(value));
}

/** The option values a server implies, as people read them: `<option> <value>`, comma-separated. */
function impliedOptions(server: ServerProbe): string {
    return Object.entries(server.options)
        .map(([name, value]) => `${name} ${String(value)}`)
        .join(', ');
}

/** `kvmod: warning: x\n` → `x`, one per line. */
function noticesIn(text: string): string[] {
    return text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => line.replace(/^kvmod: (warning: )?/, ''));
}

/** What `generateModels` takes from the arguments (the run's callbacks apart). */
function generateOptionsOf(args: GenerateArgs) {
    return {
        target: args.target,
        outDir: args.out,
        targetOptions: givenTargetOptions(args),
        templatesDir: args.templates,
        transform: transformOptionsOf(args),
        dumpViewModel: args.dumpViewModel,
    };
}

function progressLine(result: ModelGenerationResult): string {
    // A model's errors were printed above as diagnostics: the failed line names them without repeating them.
    if (result.error !== undefined && result.diagnostics.some((d) => d.severity === 'error'))
        return `failed ${result.input}: ${result.error.split('\n')[0].replace(/:$/, '')} (listed above)`;
    if (result.error !== undefined) return `failed ${result.input}: ${result.error}`;
    if (result.outputDir === undefined) return `ok ${result.input} (${result.model})`;
    return `ok ${result.input} -> ${result.outputDir} (${result.files.join(', ')})`;
}
