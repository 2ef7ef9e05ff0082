/**
 * The model-to-text engine: one Handlebars environment per run (`strict`, no HTML escaping), the target's
 * escaping helpers, partials from `partials/`, layered template lookup, view-model validation against the
 * target's JSON Schema, and template errors mapped to `file:line`. Generators return text; only
 * `generation-writer.ts` touches the disk for outputs.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import Handlebars from 'handlebars';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { KvlmModel } from '../language/generated/ast.js';
import { GenerationError } from './generation-errors.js';
import { packageRoot } from './generation-paths.js';
import type { CommonTargetOptions, GeneratedFile, GenerationTarget, TemplateEntry } from './generation-target.js';
import { readTemplate, resolveTemplates, type TemplateSource } from './generation-templates.js';
import { commonHelpers } from './generation-helpers.js';

/** What a generation run needs besides the model. */
export interface GenerateOptions extends CommonTargetOptions {
    /** A user folder whose templates override the built-ins by relative file name. */
    templatesDir?: string;
    /** Receives one line per template override (and other notices). */
    log?: (message: string) => void;
    /** Target-specific options (e.g. `dbPrefix`, `limit` for Redis). */
    [option: string]: unknown;
}

/** The result of a run: the view model the templates saw and the files they produced. */
export interface GenerationResult {
    viewModel: unknown;
    files: GeneratedFile[];
}

/** The compile options of every template: strict lookups (a misspelt field is an error), no HTML escaping. */
const COMPILE_OPTIONS = { strict: true, noEscape: true } as const;

const validators = new Map<string, ValidateFunction>();

/** Validates a view model against its target's JSON Schema; throws a `GenerationError` listing the violations. */
export async function validateViewModel(target: GenerationTarget, viewModel: unknown): Promise<void> {
    let validate = validators.get(target.name);
    if (!validate) {
        const schema = JSON.parse(await readFile(join(packageRoot(), target.viewModelSchema), 'utf8')) as object;
        validate = new Ajv2020({ allErrors: true, strict: true }).compile(schema);
        validators.set(target.name, validate);
    }
    if (!validate(viewModel)) {
        const problems = (validate.errors ?? []).slice(0, 10).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
        throw new GenerationError(
            `the ${target.name} view model does not match ${target.viewModelSchema}: ${problems.join('; ')}`,
            {
                code: 'generation.view-model',
            },
        );
    }
}

/** Builds and validates the view model of a KVLM model: exactly what the templates receive. */
export async function buildViewModel(
    target: GenerationTarget,
    kvlm: KvlmModel,
    options: GenerateOptions = {},
): Promise<unknown> {
    const { templatesDir: _templatesDir, log: _log, ...targetOptions } = options;
    const viewModel = target.buildViewModel(kvlm, {
        ...targetOptions,
        dialect: options.dialect ?? target.defaultDialect,
    });
    await validateViewModel(target, viewModel);
    return viewModel;
}

/** Generates a target's files for a KVLM model. */
export async function generateTarget(
    target: GenerationTarget,
    kvlm: KvlmModel,
    options: GenerateOptions = {},
): Promise<GenerationResult> {
    const viewModel = await buildViewModel(target, kvlm, options);
    const files = await renderTemplates(target, viewModel, options);
    return { viewModel, files };
}

/** Renders the entry templates (built-in entries, then user-added ones) for a view model. */
export async function renderTemplates(
    target: GenerationTarget,
    viewModel: unknown,
    options: { templatesDir?: string; log?: (message: string) => void } = {},
): Promise<GeneratedFile[]> {
    const { templates, notices } = await resolveTemplates(target.name, options.templatesDir);
    for (const notice of notices) options.log?.(notice);
    const hb = Handlebars.create();
    for (const [name, helper] of Object.entries({ ...commonHelpers, ...target.helpers }))
        hb.registerHelper(name, locatedHelper(helper));
    const sources = new Map<string, string>();
    for (const source of templates.values()) sources.set(source.name, await readTemplate(source));
    for (const source of templates.values()) {
        if (!source.name.startsWith('partials/')) continue;
        const text = sources.get(source.name)!;
        const compiled = compileChecked(hb, source, text);
        const partialName = source.name.slice('partials/'.length).replace(/\.hbs$/, '');
        hb.registerPartial(partialName, ((context: unknown, runtimeOptions: unknown) => {
            try {
                return compiled(context, runtimeOptions as Handlebars.RuntimeOptions);
            } catch (error) {
                throw templateError(error, source, text);
            }
        }) as unknown as Handlebars.TemplateDelegate);
    }
    const builtInEntries = target.entries.map((e) => e.template);
    const userEntries = [...templates.values()]
        .filter((s) => s.origin === 'user' && !s.name.startsWith('partials/') && !builtInEntries.includes(s.name))
        .map((s): TemplateEntry => ({ template: s.name }));
    const files: GeneratedFile[] = [];
    for (const entry of [...target.entries, ...userEntries]) {
        if (entry.when && !entry.when(viewModel)) continue;
        const source = templates.get(entry.template);
        if (!source)
            throw new GenerationError(`the ${target.name} target has no template '${entry.template}'`, {
                code: 'template.missing',
            });
        const text = sources.get(source.name)!;
        const compiled = compileChecked(hb, source, text);
        let content: string;
        try {
            content = compiled(viewModel);
        } catch (error) {
            throw templateError(error, source, text);
        }
        files.push({ path: entry.template.replace(/\.hbs$/, ''), content });
    }
    return files;
}

/** Wraps a helper so that its errors carry the line and column of the call (Handlebars passes `options.loc`). */
function locatedHelper(helper: Handlebars.HelperDelegate): Handlebars.HelperDelegate {
    return function (this: unknown, ...args: unknown[]) {
        try {
            return (helper as (...a: unknown[]) => unknown).apply(this, args);
        } catch (error) {
            const loc = (args[args.length - 1] as { loc?: { start?: { line: number; column: number } } } | undefined)
                ?.loc?.start;
            if (error instanceof Error && loc && (error as { lineNumber?: number }).lineNumber === undefined) {
                Object.assign(error, { lineNumber: loc.line, column: loc.column });
            }
            throw error;
        }
    };
}

/** Compiles eagerly (Handlebars compiles lazily), so a syntax error names its file even if never rendered. */
function compileChecked(hb: typeof Handlebars, source: TemplateSource, text: string): Handlebars.TemplateDelegate {
    try {
        hb.precompile(text, COMPILE_OPTIONS);
        return hb.compile(text, COMPILE_OPTIONS);
    } catch (error) {
        throw templateError(error, source, text, 'template.parse');
    }
}

/** Maps a Handlebars error (parse, compile or strict-mode runtime) to `path:line: message`. */
function templateError(
    error: unknown,
    source: TemplateSource,
    text: string,
    code = 'template.runtime',
): GenerationError {
    if (error instanceof GenerationError) return error; // already attributed to the innermost template
    const raw = error instanceof Error ? error.message : String(error);
    const withLoc = error as { lineNumber?: number; column?: number };
    const parse = /^Parse error on line (\d+):\n([\s\S]*)$/.exec(raw);
    if (parse) {
        return new GenerationError(`template syntax error: ${parse[2]!.split('\n').slice(-1)[0]}\n${parse[2]}`, {
            code: 'template.parse',
            where: `${source.displayPath}:${parse[1]}`,
            cause: error,
        });
    }
    const missing = /^"([^"]+)" not defined in .* - \d+:\d+$/s.exec(raw);
    if (missing && withLoc.lineNumber !== undefined) {
        return new GenerationError(
            `'${missing[1]}' is not defined here (templates run in strict mode: the view model has no such field)`,
            {
                code: 'template.runtime',
                where: `${source.displayPath}:${withLoc.lineNumber}:${(withLoc.column ?? 0) + 1}`,
                cause: error,
            },
        );
    }
    const partial = /^The partial (.+) could not be found$/.exec(raw);
    if (partial) {
        const line = lineOf(text, new RegExp(`\\{\\{~?#?>\\s*${escapeRegExp(partial[1]!)}[\\s}~]`));
        return new GenerationError(`no partial named '${partial[1]}' (partials are the files under partials/)`, {
            code: 'template.runtime',
            where: line ? `${source.displayPath}:${line}` : source.displayPath,
            cause: error,
        });
    }
    const message = raw.replace(/ - \d+:\d+$/, '');
    const line = withLoc.lineNumber;
    return new GenerationError(message, {
        code,
        where:
            line !== undefined
                ? `${source.displayPath}:${line}${withLoc.column !== undefined ? `:${withLoc.column + 1}` : ''}`
                : source.displayPath,
        cause: error,
    });
}

function lineOf(text: string, pattern: RegExp): number | undefined {
    const lines = text.split('\n');
    const index = lines.findIndex((l) => pattern.test(l));
    return index >= 0 ? index + 1 : undefined;
}

function escapeRegExp(text: string): string {
    return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
