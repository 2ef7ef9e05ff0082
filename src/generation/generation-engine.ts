/**
 * The model-to-text engine: the target's options checked against its declarations and typed, its design
 * built, then its files emitted: one Handlebars environment per run (`strict`, no HTML escaping), the target's
 * escaping helpers, partials from `partials/`, layered template lookup, view-model validation against the
 * target's JSON Schema, and template errors mapped to `file:line`. Generators return text; only
 * `generation-writer.ts` touches the disk for outputs.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type Handlebars from 'handlebars';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { isKvlmModel, type KvlmModel } from '../language/generated/ast.js';
import { GenerationError } from './generation-errors.js';
import { packageRoot } from './generation-paths.js';
import {
    OptionValueError,
    resolveOptions,
    type OptionDeclarations,
    type OptionValues,
    type RawOptionValues,
} from './generation-options.js';
import { type ChunkedFile } from './generation-target.js';
import type {
    DesignInput,
    DesignWarning,
    GeneratedFile,
    GenerationTarget,
    TemplateEntry,
} from './generation-target.js';
import { readTemplate, resolveTemplates, type TemplateSource } from './generation-templates.js';
import { commonHelpers } from './generation-helpers.js';
import { VIEW_MODEL_VALIDATORS } from './generated/view-model-validators.js';

/** What a generation run needs besides the model and the target's options. */
export interface RunOptions {
    /** A user folder whose templates override the built-ins by relative file name. */
    templatesDir?: string;
    /** Receives one line per template override (and other notices). */
    log?: (message: string) => void;
}

/** A run's options: the run's own, and the target's options as given (checked against its declarations). */
export type GenerateOptions = RunOptions & { [option: string]: RawOptionValues[string] | RunOptions['log'] };

/** The result of a run: the design (for a template target, the view model the templates saw) and the files. */
export interface GenerationResult<Design = unknown> {
    viewModel: Design;
    files: GeneratedFile[];
    /** The target's warnings about the design (`GenerationTarget.warnings`). */
    warnings: DesignWarning[];
}

/** A KVLM model alone, or with its source PIDM and the transformation's decisions. */
export type DesignSource = KvlmModel | DesignInput;

/** The compile options of every template: strict lookups (a misspelt field is an error), no HTML escaping. */
const COMPILE_OPTIONS = { strict: true, noEscape: true } as const;

const validators = new Map<string, ValidateFunction>();

/**
 * The validator of a view-model schema: the one compiled at build time for a built-in schema
 * (scripts/build-view-model-validators.mjs, same options; its module loaded on first need), else the schema compiled
 * now (Ajv loaded on first need).
 */
async function viewModelValidator(schemaFile: string): Promise<ValidateFunction> {
    let validate = validators.get(schemaFile);
    if (!validate) {
        const prebuilt = VIEW_MODEL_VALIDATORS.get(schemaFile);
        if (prebuilt) {
            validate = await prebuilt();
            validators.set(schemaFile, validate);
            return validate;
        }
        // ajv is CommonJS: its `module.exports` (the default export, under Node and in the CLI bundle alike) carries
        // the class; a named export of a dynamic import exists only where Node's lexer finds it, not in a bundle.
        const { Ajv2020 } = (await import('ajv/dist/2020.js')).default;
        const schema = JSON.parse(await readFile(join(packageRoot(), schemaFile), 'utf8')) as object;
        validate = new Ajv2020({ allErrors: true, strict: true }).compile(schema);
        validators.set(schemaFile, validate);
    }
    return validate;
}

/** Validates a design against its target's view-model JSON Schema; throws a `GenerationError` listing the violations. */
export async function validateViewModel<O extends OptionDeclarations, D>(
    target: GenerationTarget<O, D>,
    viewModel: unknown,
): Promise<void> {
    const schemaFile = target.templates?.viewModelSchema;
    if (schemaFile === undefined) return;
    const validate = await viewModelValidator(schemaFile);
    if (!validate(viewModel)) {
        const problems = (validate.errors ?? []).slice(0, 10).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
        throw new GenerationError(
            `the ${target.name} view model does not match ${schemaFile}: ${problems.join('; ')}`,
            {
                code: 'generation.view-model',
            },
        );
    }
}

/** Splits a run's options into the run's own and the target's given options. */
function splitOptions(options: GenerateOptions): { run: RunOptions; given: RawOptionValues } {
    const given: Record<string, RawOptionValues[string]> = {};
    for (const [name, value] of Object.entries(options)) {
        if (name === 'templatesDir' || name === 'log' || typeof value === 'function') continue;
        given[name] = value;
    }
    return { run: { templatesDir: options.templatesDir, log: options.log }, given };
}

/** The target's options, typed; a value that does not fit its declaration is a `GenerationError` (code `generation.option`). */
export function targetOptions<O extends OptionDeclarations, D>(
    target: GenerationTarget<O, D>,
    given: RawOptionValues,
): OptionValues<O> {
    try {
        return resolveOptions(target.name, target.options, given);
    } catch (error) {
        if (error instanceof OptionValueError) throw new GenerationError(error.message, { code: 'generation.option' });
        throw error;
    }
}

/** Builds and validates the design of a model: for a template target, exactly what the templates receive. */
export async function buildViewModel<O extends OptionDeclarations, D>(
    target: GenerationTarget<O, D>,
    source: DesignSource,
    options: GenerateOptions = {},
): Promise<D> {
    const { given } = splitOptions(options);
    const design = await target.buildDesign(designInput(source), targetOptions(target, given));
    await validateViewModel(target, design);
    return design;
}

/** Generates a target's files for a model: its templates' files, then its code emitters' files. */
export async function generateTarget<O extends OptionDeclarations, D>(
    target: GenerationTarget<O, D>,
    source: DesignSource,
    options: GenerateOptions = {},
): Promise<GenerationResult<D>> {
    const { viewModel, files, warnings } = await streamTarget(target, source, options);
    const collected: GeneratedFile[] = [];
    for await (const file of files) collected.push(file);
    return { viewModel, files: collected, warnings };
}

/** How `streamTarget` hands over the files. */
export interface StreamOptions {
    /**
     * Let a large template file come as `chunks` (UTF-8 bytes) rather than one string: for a writer, which
     * writes them in order (see `ChunkedFile`). Off, every file's `content` is its text.
     */
    chunks?: boolean;
}

/** `GenerationResult` with the files made one at a time, as they are read (see `streamTarget`). */
export interface GenerationStream<Design = unknown> {
    viewModel: Design;
    /** The files, each rendered when the iteration reaches it; read it once. */
    files: AsyncIterable<GeneratedFile>;
    warnings: DesignWarning[];
}

/**
 * Like `generateTarget`, but each file is rendered only when the caller asks for it, so that a writer can
 * put one on disk and let it go before the next is made: the files of a 1000 × 1000 model are hundreds of
 * megabytes of text. The design is built (validated against its schema when user templates may render it)
 * and the warnings made before this resolves.
 */
export async function streamTarget<O extends OptionDeclarations, D>(
    target: GenerationTarget<O, D>,
    source: DesignSource,
    options: GenerateOptions = {},
    how: StreamOptions = {},
): Promise<GenerationStream<D>> {
    const { run, given } = splitOptions(options);
    const values = targetOptions(target, given);
    const design = await target.buildDesign(designInput(source), values);
    // The schema is the contract user templates are written against: checked when a templates folder may hold
    // them. The built-in templates get the target's own design, which the tests check against the schema for
    // every example (test/generation/generation-engine.test.ts); on a 1000 × 1000 model the check is a second.
    if (run.templatesDir !== undefined) await validateViewModel(target, design);
    return {
        viewModel: design,
        files: targetFiles(target, design, values, run, how.chunks === true),
        warnings: target.warnings?.(design) ?? [],
    };
}

/** The templates' files, then the code emitters'; a second file with the same path is an error. */
async function* targetFiles<O extends OptionDeclarations, D>(
    target: GenerationTarget<O, D>,
    design: D,
    values: OptionValues<O>,
    run: RunOptions,
    chunks = false,
): AsyncGenerator<GeneratedFile> {
    const seen = new Set<string>();
    const checked = (file: GeneratedFile): GeneratedFile => {
        if (seen.has(file.path))
            throw new GenerationError(`the ${target.name} target produced ${file.path} twice`, {
                code: 'generation.duplicate-file',
            });
        seen.add(file.path);
        return file;
    };
    if (target.templates) for await (const file of templateFiles(target, design, run, chunks)) yield checked(file);
    for (const emitter of target.codeEmitters ?? [])
        for (const file of await emitter.emit(design, values, run)) yield checked(file);
}

function designInput(source: DesignSource): DesignInput {
    return isKvlmModel(source) ? { kvlm: source } : source;
}

/** Renders the entry templates (built-in entries, then user-added ones) for a design. */
export async function renderTemplates<O extends OptionDeclarations, D>(
    target: GenerationTarget<O, D>,
    viewModel: D,
    options: RunOptions = {},
): Promise<GeneratedFile[]> {
    const files: GeneratedFile[] = [];
    for await (const file of templateFiles(target, viewModel, options)) files.push(file);
    return files;
}

/**
 * One entry's file, rendered alone: the entries before it are compiled and rendered (in order, as `renderTemplates`
 * would), those after it are not. Undefined when no entry writes `path`.
 */
export async function renderTemplate<O extends OptionDeclarations, D>(
    target: GenerationTarget<O, D>,
    viewModel: D,
    path: string,
    options: RunOptions = {},
): Promise<string | undefined> {
    for await (const file of templateFiles(target, viewModel, options)) if (file.path === path) return file.content;
    return undefined;
}

/** `renderTemplates` one file at a time: each entry is rendered when the iteration reaches it. */
async function* templateFiles<O extends OptionDeclarations, D>(
    target: GenerationTarget<O, D>,
    viewModel: D,
    options: RunOptions,
    chunks = false,
): AsyncGenerator<GeneratedFile> {
    const emitter = target.templates;
    if (!emitter) return;
    const { templates, notices } = await resolveTemplates(target.name, options.templatesDir);
    for (const notice of notices) options.log?.(notice);
    // Loaded when a target renders templates: `load` and `verify` build view models and never pay for it (~650 KB).
    const { default: handlebars } = await import('handlebars');
    const hb = handlebars.create();
    const nesting = { depth: 0, sink: undefined as ChunkSink | undefined };
    flattenEachIterations(hb, nesting);
    for (const [name, helper] of Object.entries({ ...commonHelpers, ...emitter.helpers }))
        hb.registerHelper(name, locatedHelper(helper));
    const sources = new Map<string, string>();
    for (const source of templates.values()) sources.set(source.name, await readTemplate(source));
    // Inline partials and partial blocks are invoked past the partial wrappers below (and may be indented):
    // a template set that has any is rendered whole.
    const streamable = ![...sources.values()].some((text) => /\*inline|#>/.test(text));
    for (const source of templates.values()) {
        if (!source.name.startsWith('partials/')) continue;
        const text = sources.get(source.name)!;
        const compiled = compileChecked(hb, source, text);
        const partialName = source.name.slice('partials/'.length).replace(/\.hbs$/, '');
        const renderer = emitter.partialRenderers?.[partialName];
        const fast = renderer && renderer.sha256 === sha256(text) ? renderer : undefined;
        hb.registerPartial(partialName, ((context: unknown, runtimeOptions: unknown) => {
            nesting.depth++;
            try {
                const rendered = fast?.render(context);
                if (rendered !== undefined) return rendered;
                return compiled(context, runtimeOptions as Handlebars.RuntimeOptions);
            } catch (error) {
                throw templateError(error, source, text);
            } finally {
                nesting.depth--;
            }
        }) as unknown as Handlebars.TemplateDelegate);
    }
    const builtInEntries = emitter.entries.map((e) => e.template);
    const userEntries = [...templates.values()]
        .filter((s) => s.origin === 'user' && !s.name.startsWith('partials/') && !builtInEntries.includes(s.name))
        .map((s): TemplateEntry<D> => ({ template: s.name }));
    for (const entry of [...emitter.entries, ...userEntries]) {
        if (entry.when && !entry.when(viewModel)) continue;
        const source = templates.get(entry.template);
        if (!source)
            throw new GenerationError(`the ${target.name} target has no template '${entry.template}'`, {
                code: 'template.missing',
            });
        const text = sources.get(source.name)!;
        const compiled = compileChecked(hb, source, text);
        const path = entry.template.replace(/\.hbs$/, '');
        const render = (sink?: ChunkSink): string => {
            nesting.sink = sink;
            try {
                return compiled(viewModel);
            } catch (error) {
                throw templateError(error, source, text);
            } finally {
                nesting.sink = undefined;
            }
        };
        if (chunks && streamable) {
            const sink = new ChunkSink();
            const rendered = render(sink);
            const pieces = sink.splice(rendered);
            if (pieces) {
                yield chunkedFile(path, pieces);
                continue;
            }
            // The template did something with a loop's text besides placing it (see ChunkSink): render it whole.
        }
        yield { path, content: render() };
    }
}

/** A file of UTF-8 chunks, its `content` decoded on demand. */
function chunkedFile(path: string, chunks: Uint8Array[]): ChunkedFile {
    return {
        path,
        chunks,
        get content(): string {
            return Buffer.concat(chunks).toString('utf8');
        },
    };
}

/**
 * Where the iterations of a top-level `{{#each}}` of an entry template go when its file is written in chunks: a
 * large README built as one string is a rope of its sections, flattened (two bytes a character as soon as one is
 * not Latin-1) before being encoded, all of it live at once.
 * Each iteration's text is encoded as it is made and the loop answers a marker; the template's text is then split
 * at the markers and the pieces interleaved with the iterations' bytes. Only a loop outside every partial (whose
 * text Handlebars may indent) is taken; if a marker is missing, repeated or out of order (the loop's text went
 * somewhere other than the output), or a surrogate pair would be cut at a seam, `splice` answers undefined and
 * the file is rendered whole — the bytes are the same either way.
 */
class ChunkSink {
    private readonly nonce = `\u0000kvmod-loop-${randomBytes(6).toString('hex')}-`;
    private readonly loops: Uint8Array[][] = [];
    private seamless = true;
    private readonly slabs = new Utf8Slabs();

    /** Takes one loop: its iterations' texts go to `add`; the marker it answers stands for them. */
    open(): { marker: string; add(text: string): void } {
        const chunks: Uint8Array[] = [];
        const marker = `${this.nonce}${this.loops.length}\u0000`;
        this.loops.push(chunks);
        return {
            marker,
            add: (text) => {
                if (text.length === 0) return;
                if (isLowSurrogate(text.charCodeAt(0)) || isHighSurrogate(text.charCodeAt(text.length - 1)))
                    this.seamless = false;
                this.slabs.encode(text, chunks);
            },
        };
    }

    /** The file's chunks in order: `rendered` cut at the markers, each loop's bytes in its place. */
    splice(rendered: string): Uint8Array[] | undefined {
        if (!this.seamless) return undefined;
        const out: Uint8Array[] = [];
        let at = 0;
        for (const [n, chunks] of this.loops.entries()) {
            const marker = `${this.nonce}${n}\u0000`;
            const found = rendered.indexOf(marker, at);
            if (found < 0 || rendered.indexOf(marker, found + marker.length) >= 0) return undefined;
            const before = rendered.slice(at, found);
            if (before.length > 0) {
                if (isHighSurrogate(before.charCodeAt(before.length - 1))) return undefined;
                if (at > 0 && isLowSurrogate(before.charCodeAt(0))) return undefined;
                out.push(Buffer.from(before, 'utf8'));
            }
            out.push(...chunks);
            at = found + marker.length;
        }
        const rest = rendered.slice(at);
        if (rest.includes(this.nonce)) return undefined;
        if (rest.length > 0) {
            if (this.loops.length > 0 && isLowSurrogate(rest.charCodeAt(0))) return undefined;
            out.push(Buffer.from(rest, 'utf8'));
        }
        return out;
    }
}

/** The size of the buffers a file's loop iterations are encoded into. */
const SLAB_BYTES = 4 * 1024 * 1024;

const utf8 = new TextEncoder();

/**
 * Encodes texts into large buffers, each text's bytes a view of one: the bytes `Buffer.from(text, 'utf8')` makes
 * (a lone surrogate becomes U+FFFD either way; a pair is never cut), without its scan for the length first and a
 * buffer per iteration (a 1000 × 1000 model's README is a thousand iterations of 124 KB).
 */
class Utf8Slabs {
    private slab = Buffer.allocUnsafe(SLAB_BYTES);
    private used = 0;

    encode(text: string, out: Uint8Array[]): void {
        let rest = text;
        for (;;) {
            const { read, written } = utf8.encodeInto(rest, this.slab.subarray(this.used));
            if (written > 0) out.push(this.slab.subarray(this.used, this.used + written));
            this.used += written;
            if (read === rest.length) return;
            rest = rest.slice(read);
            // A text longer than a slab gets a buffer of its own size.
            const size = rest.length * 3 > SLAB_BYTES ? Buffer.byteLength(rest, 'utf8') : 0;
            this.slab = Buffer.allocUnsafe(Math.max(SLAB_BYTES, size));
            this.used = 0;
        }
    }
}

function isHighSurrogate(code: number): boolean {
    return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
    return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * Handlebars' `each` appends every iteration's text to its result (`ret = ret + fn(item)`), so a large file is
 * built as a rope of millions of small strings that all live until the file is written, many times the file's
 * size in heap, and copying it from collection to collection dominates rendering's time. The same helper here flattens each iteration's text before it is appended (reading a character makes
 * V8 copy a rope into one string in place), so the pieces die young; the text is the same.
 */
function flattenEachIterations(hb: typeof Handlebars, nesting: { depth: number; sink?: ChunkSink }): void {
    const each = hb.helpers.each as (this: unknown, context: unknown, options: Handlebars.HelperOptions) => unknown;
    hb.registerHelper('each', function (this: unknown, context: unknown, options: Handlebars.HelperOptions) {
        const body = options?.fn;
        if (typeof body !== 'function') return each.call(this, context, options);
        // A loop of the entry template itself (not inside another loop or a partial) goes to the file's chunks.
        const loop =
            nesting.sink && nesting.depth === 0 && Array.isArray(context) && context.length > 0
                ? nesting.sink.open()
                : undefined;
        const flat = (item: unknown, runtime?: Handlebars.RuntimeOptions): string => {
            nesting.depth++;
            let text: string;
            try {
                text = body(item, runtime);
            } finally {
                nesting.depth--;
            }
            if (loop) {
                loop.add(text);
                return '';
            }
            if (text.length > 0) text.charCodeAt(0);
            return text;
        };
        const text = each.call(this, context, { ...options, fn: flat });
        return loop ? loop.marker : text;
    });
}

function sha256(text: string): string {
    return createHash('sha256').update(text).digest('hex');
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
