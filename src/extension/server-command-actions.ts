/**
 * The kvmod commands' work, run inside the language server: which files make up the model, the settings
 * turned into pipeline options, and the results turned into lines for the client's output channel. No
 * `vscode` import here, so it is bundled into the server and tested over stdio like the rest of it.
 */
import { basename, dirname, extname, isAbsolute, join, resolve } from 'node:path';
import { URI } from 'langium';
import type { LangiumSharedServices } from 'langium/lsp';
import type {
    KvmodCommandActions,
    KvmodCommandArgs,
    KvmodCommandResult,
    KvmodCommandSettings,
    KvmodExplainResult,
    KvmodTargetInfo,
    KvmodTargetVariantInfo,
} from '../language/lsp/kvmod-command-handler.js';
import { formatDiagnostic, type KvmodDiagnostic } from '../pipeline/index.js';
import { explainDecisions, transformFiles, type TransformFilesOptions } from '../pipeline/transform.js';
import { writeFileAtomically } from '../generation/generation-writer.js';
import { loadConfig } from '../pipeline/config.js';
import { refusalMessage } from '../pipeline/errors.js';
import { generateModels } from '../pipeline/generate.js';
import {
    DEFAULT_TARGET,
    generationTargets,
    targetVariants,
    type RegisteredTarget,
} from '../generation/generation-targets.js';
import { loadIntoConfiguredServer, verifyOnConfiguredServer } from './server-runtime-actions.js';
import { modelFiles } from './server-workspace.js';

/** Creates the actions the server's command handler dispatches to. */
export function createPipelineCommandActions(shared: LangiumSharedServices): KvmodCommandActions {
    return {
        transform: (args) => guarded(async () => transformCommand(shared, await withProjectConfig(args))),
        generate: (args) => guarded(async () => generateCommand(shared, await withProjectConfig(args))),
        explainMerges: (args) =>
            guarded(async () => explainCommand(shared, await withProjectConfig(args))).then((result) => ({
                text: '',
                ...result,
            })),
        listTargets: async () => listTargets(),
        load: (args) => guarded(() => loadIntoConfiguredServer(args)),
        verify: (args) => guarded(() => verifyOnConfiguredServer(args)),
    };
}

/**
 * The editor reads the same `kvmod.config.json` as the command line (the nearest above the model): its
 * settings win over the `kvmod.*` editor settings, which keep their role for projects without one.
 */
async function withProjectConfig(args: KvmodCommandArgs): Promise<KvmodCommandArgs> {
    if (typeof args?.uri !== 'string') return args;
    const { config } = await loadConfig(dirname(URI.parse(args.uri).fsPath), {});
    const settings: KvmodCommandSettings = { ...args.settings };
    if (config.threshold !== undefined) settings.threshold = config.threshold;
    if (config.merge !== undefined) settings.policy = config.merge;
    if (config.output !== undefined) settings.outputFolder = config.output;
    if (config.templates !== undefined) settings.templatesFolder = config.templates;
    if (config.target !== undefined) settings.target = config.target;
    return { ...args, settings };
}

function transformOptions(settings: KvmodCommandSettings | undefined): TransformFilesOptions {
    const options: TransformFilesOptions = {};
    if (settings?.threshold !== undefined) options.threshold = settings.threshold;
    if (settings?.policy !== undefined) options.merge = settings.policy;
    return options;
}

/** A setting's folder, relative to the model's folder unless absolute. */
function folderSetting(folder: string | undefined, modelPath: string, fallback: string): string {
    const value = folder && folder.trim() !== '' ? folder : fallback;
    return isAbsolute(value) ? value : resolve(dirname(modelPath), value);
}

/** Transforms the model and writes `<model>.kvlm` next to its first file; undefined `kvlmPath` on errors. */
async function transformAndWrite(
    shared: LangiumSharedServices,
    args: KvmodCommandArgs,
): Promise<{ messages: string[]; kvlmPath?: string }> {
    const paths = modelFiles(shared, args.uri);
    const result = await transformFiles(paths, transformOptions(args.settings));
    const messages = result.diagnostics.map((d: KvmodDiagnostic) => formatDiagnostic(d));
    if (result.diagnostics.some((d: KvmodDiagnostic) => d.severity === 'error') || !result.kvlmText || !result.kvlm)
        return { messages };
    const kvlmPath = join(dirname(paths[0]), `${basename(paths[0], extname(paths[0]))}.kvlm`);
    await writeFileAtomically(kvlmPath, result.kvlmText);
    messages.push(`wrote ${kvlmPath} (${result.kvlm.collections.length} collection(s) from ${paths.length} file(s))`);
    return { messages, kvlmPath };
}

async function transformCommand(shared: LangiumSharedServices, args: KvmodCommandArgs): Promise<KvmodCommandResult> {
    const { messages, kvlmPath } = await transformAndWrite(shared, args);
    return kvlmPath
        ? { ok: true, messages, written: [URI.file(kvlmPath).toString()] }
        : { ok: false, messages, written: [] };
}

/** The merge trace as the CLI prints it (`kvmod transform --explain`), for the output channel. */
async function explainCommand(shared: LangiumSharedServices, args: KvmodCommandArgs): Promise<KvmodExplainResult> {
    const paths = modelFiles(shared, args.uri);
    const result = await transformFiles(paths, transformOptions(args.settings));
    const messages = result.diagnostics.map((d: KvmodDiagnostic) => formatDiagnostic(d));
    if (!result.kvlm) return { ok: false, messages, written: [], text: '' };
    messages.push(...result.warnings.map((warning) => `warning: ${warning}`));
    return { ok: true, messages, written: [], text: explainDecisions(result.decisions, result.options) };
}

/** The registered targets, the default first (the client falls back to the first). */
function listTargets(): KvmodTargetInfo[] {
    const targets = [...generationTargets.values()];
    const ordered = [
        ...targets.filter((t) => t.name === DEFAULT_TARGET),
        ...targets.filter((t) => t.name !== DEFAULT_TARGET),
    ];
    return ordered.map((target) => ({
        name: target.name,
        description: target.description,
        options: target.options.map(({ name, declaration }) => ({
            name,
            type: declaration.type,
            choices: declaration.type === 'choice' ? [...declaration.choices] : undefined,
            default: declaration.default,
            description: declaration.description,
            outputFolder: declaration.type === 'choice' ? declaration.outputFolder : undefined,
        })),
        variants: targetVariantInfos(target),
    }));
}

/**
 * The target's output folders as quick pick items. Each carries every folder-deciding option, so picking one
 * folder also resets a configured value of another such option that would write elsewhere.
 */
function targetVariantInfos(target: RegisteredTarget): KvmodTargetVariantInfo[] {
    const deciding: Record<string, string | number | boolean> = {};
    for (const { name, declaration } of target.options)
        if (declaration.type === 'choice' && (declaration.outputFolder || declaration.folderValues))
            deciding[name] = declaration.default;
    return targetVariants(target).map(({ options, folder }) => {
        const chosen = { ...deciding };
        for (const [name, value] of Object.entries(options)) if (value !== undefined) chosen[name] = value;
        return {
            label: folder.length > 1 ? `${target.name}: ${folder.slice(1).join('/')}` : target.name,
            options: chosen,
        };
    });
}

/**
 * Transform (writing the `.kvlm`, so the merge settings and multi-file models apply), then generate from
 * that `.kvlm` exactly as `kvmod generate` does, into the same folders.
 */
async function generateCommand(shared: LangiumSharedServices, args: KvmodCommandArgs): Promise<KvmodCommandResult> {
    const settings = args.settings ?? {};
    const { messages, kvlmPath } = await transformAndWrite(shared, args);
    if (!kvlmPath) return { ok: false, messages, written: [] };
    const modelPath = URI.parse(args.uri).fsPath;
    const [result] = await generateModels([kvlmPath], {
        target: settings.target ?? DEFAULT_TARGET,
        targetOptions: settings.targetOptions,
        outDir: folderSetting(settings.outputFolder, modelPath, 'generated'),
        templatesDir: settings.templatesFolder ? folderSetting(settings.templatesFolder, modelPath, '.') : undefined,
        log: (message) => messages.push(message),
    });
    messages.push(...result.diagnostics.map((d) => formatDiagnostic(d)));
    if (result.error || !result.outputDir) {
        messages.push(`kvmod: ${result.error ?? 'generation failed'}`);
        return { ok: false, messages, written: [] };
    }
    const written = result.files.map((file) => URI.file(join(result.outputDir!, file)).toString());
    messages.push(`generated ${result.files.length} file(s) into ${result.outputDir}`);
    return { ok: true, messages, written };
}

async function guarded<T extends KvmodCommandResult>(run: () => Promise<T>): Promise<T | KvmodCommandResult> {
    try {
        return await run();
    } catch (error) {
        if (error instanceof Error) {
            return { ok: false, messages: [`kvmod: ${refusalMessage(error) ?? error.message}`], written: [] };
        }
        throw error;
    }
}
