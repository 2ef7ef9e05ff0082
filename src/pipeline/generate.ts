/**
 * Generation as every front end runs it: for each input model (`.kvlm`, or `.pidm` transformed first),
 * load the design (pipeline/design.ts), check the target's options against its declarations, build the
 * target's design, emit its files, write `<out>/<database>/<target>/` (plus a folder named by the value of
 * the target's output-folder option, if it declares one). One failing model does not stop the others; each result says what happened.
 */
import { join } from 'node:path';
import type { KvlmModel } from '../language/generated/ast.js';
import { checkTransformOptions } from '../../transformations/pidm-to-kvlm/index.js';
import { GenerationError } from '../generation/generation-errors.js';
import {
    buildViewModel,
    generateTarget,
    streamTarget,
    type DesignSource,
    type GenerationResult,
    type GenerationStream,
    type RunOptions,
} from '../generation/generation-engine.js';
import type { RawOptionValues } from '../generation/generation-options.js';
import type { DesignWarning, GeneratedFile } from '../generation/generation-target.js';
import {
    checkTargetOptions,
    getGenerationTarget,
    targetOutputFolder,
    type RegisteredTarget,
} from '../generation/generation-targets.js';
import { writeOutputs } from '../generation/generation-writer.js';
import { phaseDone } from './phase-timing.js';
import { loadDesign, ModelLoadError, type LoadedDesign } from './design.js';
import { KvmodError } from './errors.js';
import type { KvmodDiagnostic } from './load.js';
import { TransformIssueCodes, type TransformFilesOptions } from './transform.js';
import { groupModelFiles, sourceFiles } from './model-files.js';

/** Options of a generation run. */
export interface GenerateModelsOptions {
    /** The target name, e.g. `redis`. */
    target: string;
    /** The output root: files go to `<outDir>/<database>/<target>/` (see `targetOutputFolder`). */
    outDir: string;
    /** The target's options as given (flags, settings), checked against its declarations; absent ones default. */
    targetOptions?: RawOptionValues;
    /** A folder of user templates overriding the built-ins by relative file name. */
    templatesDir?: string;
    /** How a `.pidm` input is transformed (threshold, merge policy, key strategy); unused for `.kvlm` inputs. */
    transform?: Pick<TransformFilesOptions, 'threshold' | 'merge' | 'keyStrategy'>;
    /** Build and return the designs (view models) only: nothing is rendered or written. */
    dumpViewModel?: boolean;
    /** Receives notices (template overrides), each once per run. */
    log?: (message: string) => void;
    /** Called before each model. */
    onModelStart?: (input: string, index: number, total: number) => void;
    /** Called after each model, with its result. */
    onModelDone?: (result: ModelGenerationResult, index: number, total: number) => void;
}

/** What happened to one input model. */
export interface ModelGenerationResult {
    /** The model's first file, as given (a model may span several files). */
    input: string;
    /** The model (KVLM database) name, once known. */
    model?: string;
    /** Where the files were written (absent on failure and when dumping). */
    outputDir?: string;
    /** The files written, relative to `outputDir`. */
    files: string[];
    /** The view model (only when dumping). */
    viewModel?: unknown;
    /** Why it failed (absent on success). */
    error?: string;
    /** The diagnostics of loading (and transforming) it. */
    diagnostics: KvmodDiagnostic[];
}

/** The target of that name with the given options checked; a `KvmodError` naming the valid ones otherwise. */
export function checkedTarget(name: string, given: RawOptionValues = {}): RegisteredTarget {
    let target: RegisteredTarget;
    try {
        target = getGenerationTarget(name);
    } catch (error) {
        if (error instanceof GenerationError) throw new KvmodError(error.message, { code: 'cli.option' });
        throw error;
    }
    const problem = checkTargetOptions(target, given);
    if (problem) throw new KvmodError(problem, { code: 'cli.option' });
    return target;
}

/** Generates every input; never throws for one bad model (see each result's `error`). */
export async function generateModels(
    inputs: readonly string[],
    options: GenerateModelsOptions,
): Promise<ModelGenerationResult[]> {
    const given = options.targetOptions ?? {};
    const target = checkedTarget(options.target, given);
    // Checked once here rather than failing every .pidm input with the same message.
    const problem = checkTransformOptions(options.transform ?? {});
    if (problem) throw new KvmodError(problem, { code: TransformIssueCodes.BadOption });
    const seenNotices = new Set<string>();
    const log = (message: string) => {
        if (seenNotices.has(message)) return;
        seenNotices.add(message);
        options.log?.(message);
    };
    const results: ModelGenerationResult[] = [];
    const usedOutputs = new Map<string, string>();
    // The inputs are split into models by the rule every command shares: a model split across files is
    // generated once from all its files, a .kvlm transformed from a .pidm among the inputs is not generated again.
    const models = await groupModelFiles(inputs);
    for (const model of models) {
        for (const derived of model.derived) {
            log(`${derived} was transformed from a model among the inputs: that model is generated instead`);
        }
    }
    for (const [index, model] of models.entries()) {
        const files = sourceFiles(model);
        const input = files[0];
        options.onModelStart?.(input, index, models.length);
        const result: ModelGenerationResult = { input, files: [], diagnostics: [] };
        try {
            const run = { templatesDir: options.templatesDir, log };
            const planned = await planModel(files, target, given, run, options, result);
            if (planned) {
                const earlier = usedOutputs.get(planned.outputDir);
                if (earlier !== undefined) {
                    throw new KvmodError(
                        `model '${result.model}' was already generated from ${earlier} into ${planned.outputDir}`,
                        { code: 'generation.duplicate-model' },
                    );
                }
                // The KVLM model is garbage once the design is built. It is not collected here: the files are written
                // in chunks, so rendering holds little besides the design, and V8's own collection during rendering
                // frees the model (a forced one here costs a full marking and is followed by more anyway, the
                // heap limit it leaves being tight); the peak stays the load's.
                result.files = await writeOutputs(planned.outputDir, planned.files);
                phaseDone('render and write');
                usedOutputs.set(planned.outputDir, input);
                result.outputDir = planned.outputDir;
            }
        } catch (error) {
            result.error = error instanceof Error ? error.message : String(error);
        }
        results.push(result);
        options.onModelDone?.(result, index, models.length);
    }
    return results;
}

/**
 * Loads one model and builds its design: the view model into `result` when dumping, else the output folder
 * and the files, rendered as they are written. Nothing returned holds the KVLM model or the design input,
 * so that they can be freed while the files are rendered (a 1000 × 1000 model's KVLM is 400 MB).
 */
async function planModel(
    files: string[],
    target: RegisteredTarget,
    given: RawOptionValues,
    run: RunOptions,
    options: GenerateModelsOptions,
    result: ModelGenerationResult,
): Promise<{ outputDir: string; files: AsyncIterable<GeneratedFile> } | undefined> {
    const design = await loadDesign(files, {
        transform: options.transform,
        sourceModel: target.usesSourceModel === 'entities' ? 'entities' : target.usesSourceModel ? 'if-named' : 'no',
    }).catch((error: unknown) => {
        if (error instanceof ModelLoadError) result.diagnostics.push(...error.diagnostics);
        throw error;
    });
    result.diagnostics.push(...design.diagnostics);
    result.model = design.kvlm.name;
    if (options.dumpViewModel) {
        result.viewModel = await target.use<Promise<unknown>>((typed) =>
            buildViewModel(typed, design, { ...given, ...run }),
        );
        return undefined;
    }
    const outputDir = join(options.outDir, design.kvlm.name, ...targetOutputFolder(target, given));
    const generated = await target.use<Promise<GenerationStream>>((typed) =>
        streamTarget(typed, design, { ...given, ...run }, { chunks: true }),
    );
    // The schema check runs only when user templates may render the view model (streamTarget).
    phaseDone(run.templatesDir === undefined ? 'view model' : 'view model + schema');
    result.diagnostics.push(...generated.warnings.map((warning) => warningDiagnostic(design, warning)));
    return { outputDir, files: generated.files };
}

/**
 * A target's warning as a diagnostic at the query it concerns: the served query of a `.kvlm` input, or the PIDM
 * query of that name (the design's first line when neither is found).
 */
function warningDiagnostic(design: LoadedDesign, warning: DesignWarning): KvmodDiagnostic {
    const served =
        warning.query === undefined
            ? undefined
            : design.kvlm.collections.flatMap((c) => c.queries).find((q) => q.name === warning.query);
    const range = served?.$cstNode?.range;
    const site = range
        ? {
              path: design.path,
              line: range.start.line + 1,
              column: range.start.character + 1,
              endLine: range.end.line + 1,
              endColumn: range.end.character + 1,
          }
        : (design.querySites.get(warning.query ?? '') ?? {
              path: design.path,
              line: 1,
              column: 1,
              endLine: 1,
              endColumn: 1,
          });
    return { ...site, severity: 'warning', message: warning.message, code: warning.code };
}

/** Runs a registered target on a design: its files, nothing written. */
async function generateRegistered(
    target: RegisteredTarget,
    source: DesignSource,
    given: RawOptionValues,
    run: RunOptions,
): Promise<GenerationResult> {
    return target.use<Promise<GenerationResult>>((typed) => generateTarget(typed, source, { ...given, ...run }));
}

/** Renders a KVLM model in memory (tests, scripts): the view model and the files, nothing written. */
export async function generateFromKvlm(
    kvlm: KvlmModel | DesignSource,
    options: Pick<GenerateModelsOptions, 'target' | 'targetOptions' | 'templatesDir' | 'log'>,
): Promise<GenerationResult> {
    const given = options.targetOptions ?? {};
    return generateRegistered(checkedTarget(options.target, given), kvlm, given, {
        templatesDir: options.templatesDir,
        log: options.log,
    });
}

/** Re-exported for front ends that print generation failures. */
export { GenerationError };
