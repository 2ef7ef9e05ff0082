/**
 * Generation as every front end runs it: for each input model (`.kvlm`, or `.pidm` transformed first),
 * load and validate, build the target's view model, render the templates, write `<out>/<model>/<target>/`.
 * One failing model does not stop the others; each result says what happened.
 */
import { join } from 'node:path';
import type { KvlmModel } from '../language/generated/ast.js';
import { checkTransformOptions } from '../../transformations/pidm-to-kvlm/index.js';
import { GenerationError } from '../generation/generation-errors.js';
import { buildViewModel, generateTarget, type GenerationResult } from '../generation/generation-engine.js';
import { getGenerationTarget } from '../generation/generation-targets.js';
import { writeOutputs } from '../generation/generation-writer.js';
import { KvmodError } from './errors.js';
import { formatDiagnostic, loadWorkspace, type KvmodDiagnostic } from './load.js';
import { groupModelFiles, sourceFiles } from './model-files.js';
import { TransformIssueCodes, transformFiles, type TransformFilesOptions } from './transform.js';

/** Options of a generation run. */
export interface GenerateModelsOptions {
    /** The target name, e.g. `redis`. */
    target: string;
    /** The output root: files go to `<outDir>/<model>/<target>/`. */
    outDir: string;
    /** The target's dialect (default: the target's default). */
    dialect?: string;
    /** A folder of user templates overriding the built-ins by relative file name. */
    templatesDir?: string;
    /** Redis: prefix index names and keys with the database name. */
    dbPrefix?: boolean;
    /** Redis: the `LIMIT 0 <n>` of every query. */
    limit?: number;
    /** How a `.pidm` input is transformed (threshold, merge policy, key strategy); unused for `.kvlm` inputs. */
    transform?: Pick<TransformFilesOptions, 'threshold' | 'merge' | 'keyStrategy'>;
    /** Build and return the view models only: nothing is rendered or written. */
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

/** Generates every input; never throws for one bad model (see each result's `error`). */
export async function generateModels(
    inputs: readonly string[],
    options: GenerateModelsOptions,
): Promise<ModelGenerationResult[]> {
    const target = getGenerationTarget(options.target);
    if (options.dialect !== undefined && !target.dialects.includes(options.dialect)) {
        throw new KvmodError(
            `unknown dialect '${options.dialect}' for target ${target.name} (known: ${target.dialects.join(', ')})`,
            { code: 'cli.option' },
        );
    }
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
            const kvlm = await loadKvlmModel(files, result, options.transform ?? {});
            result.model = kvlm.name;
            const generateOptions = {
                dialect: options.dialect,
                templatesDir: options.templatesDir,
                dbPrefix: options.dbPrefix,
                limit: options.limit,
                log,
            };
            if (options.dumpViewModel) {
                result.viewModel = await buildViewModel(target, kvlm, generateOptions);
            } else {
                const outputDir = join(options.outDir, kvlm.name, target.name);
                const earlier = usedOutputs.get(outputDir);
                if (earlier !== undefined) {
                    throw new KvmodError(
                        `model '${kvlm.name}' was already generated from ${earlier} into ${outputDir}`,
                        { code: 'generation.duplicate-model' },
                    );
                }
                const { files } = await generateTarget(target, kvlm, generateOptions);
                await writeOutputs(outputDir, files);
                usedOutputs.set(outputDir, input);
                result.outputDir = outputDir;
                result.files = files.map((f) => f.path);
            }
        } catch (error) {
            result.error = error instanceof Error ? error.message : String(error);
        }
        results.push(result);
        options.onModelDone?.(result, index, models.length);
    }
    return results;
}

/** Renders a KVLM model in memory (tests, scripts): the view model and the files, nothing written. */
export async function generateFromKvlm(
    kvlm: KvlmModel,
    options: Omit<GenerateModelsOptions, 'outDir' | 'onModelStart' | 'onModelDone' | 'dumpViewModel'>,
): Promise<GenerationResult> {
    return generateTarget(getGenerationTarget(options.target), kvlm, {
        dialect: options.dialect,
        templatesDir: options.templatesDir,
        dbPrefix: options.dbPrefix,
        limit: options.limit,
        log: options.log,
    });
}

/** Loads one model as KVLM: a `.kvlm` file directly, `.pidm` files (one model) through the transformation. */
async function loadKvlmModel(
    files: string[],
    result: ModelGenerationResult,
    transform: NonNullable<GenerateModelsOptions['transform']>,
): Promise<KvlmModel> {
    const input = files[0];
    const lower = input.toLowerCase();
    if (lower.endsWith('.pidm')) {
        const transformed = await transformFiles(files, {
            threshold: transform.threshold,
            merge: transform.merge,
            keyStrategy: transform.keyStrategy,
        });
        result.diagnostics.push(...transformed.diagnostics);
        if (transformed.diagnostics.some((d) => d.severity === 'error') || !transformed.kvlm) {
            throw new KvmodError(failedLoadMessage(transformed.diagnostics), {
                code: 'generation.invalid-model',
                path: input,
            });
        }
        return transformed.kvlm;
    }
    if (!lower.endsWith('.kvlm')) {
        throw new KvmodError('not a model file (expected .kvlm or .pidm)', {
            code: 'io.unsupported-file-type',
            path: input,
        });
    }
    const workspace = await loadWorkspace([input]);
    result.diagnostics.push(...workspace.diagnostics);
    const kvlm = workspace.kvlm[0]?.model;
    if (workspace.hasErrors || !kvlm) {
        throw new KvmodError(failedLoadMessage(workspace.diagnostics), {
            code: 'generation.invalid-model',
            path: input,
        });
    }
    return kvlm;
}

function failedLoadMessage(diagnostics: readonly KvmodDiagnostic[]): string {
    const errors = diagnostics.filter((d) => d.severity === 'error');
    const shown = errors.slice(0, 5).map(formatDiagnostic);
    const more = errors.length > shown.length ? `\n… and ${errors.length - shown.length} more` : '';
    return `${errors.length} error${errors.length === 1 ? '' : 's'} in the model:\n${shown.join('\n')}${more}`;
}

/** Re-exported for front ends that print generation failures. */
export { GenerationError };
