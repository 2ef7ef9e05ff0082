/**
 * The single front door for loading models: every front end (CLI, tests, transformation pipeline) reads
 * `.pidm` and `.kvlm` files here. All files of one call form one workspace, so a model split across files
 * links, and whatever the input holds ends in diagnostics, never in an exception.
 */
import { readFile } from 'node:fs/promises';
import * as nodePath from 'node:path';
import { NodeFileSystem } from 'langium/node';
import { URI, type LangiumDocument, type ValidationAcceptor, type AstNode } from 'langium';
import { isKvlmModel, isPidmModel, type KvlmModel, type PidmModel } from '../language/generated/ast.js';
import { createKvmodCoreServices, type KvmodCoreServices } from '../language/kvmod-core-module.js';
import { validateBuiltModel, type BuiltModelCheckOptions } from '../language/common/built-model-check.js';
import { releaseSyntaxTree } from '../language/common/syntax-release.js';
import { checkHeapForTexts, checkHeapHeadroom } from './memory-guard.js';

/** One problem found in a model, positioned in the file the user named. */
export interface KvmodDiagnostic {
    /** The path as given by the user (relative stays relative). */
    path: string;
    /** 1-based start line. */
    line: number;
    /** 1-based start column. */
    column: number;
    /** 1-based end line. */
    endLine: number;
    /** 1-based end column (exclusive). */
    endColumn: number;
    /** How bad it is; any `error` makes the load fail. */
    severity: 'error' | 'warning' | 'info';
    /** What is wrong, in the modeler's words. */
    message: string;
    /** Stable issue code, e.g. `pidm.unknown-name`, `syntax.parser`, `kvlm.duplicate-name`. */
    code: string;
}

/** The result of loading a set of files as one workspace. */
export interface LoadedWorkspace {
    /** The services that built the workspace (its documents stay loaded in them). */
    services: KvmodCoreServices;
    /** The PIDM models, in argument order. */
    pidm: { path: string; model: PidmModel }[];
    /** The KVLM models, in argument order. */
    kvlm: { path: string; model: KvlmModel }[];
    /** All diagnostics, sorted by path, line, column. */
    diagnostics: KvmodDiagnostic[];
    /** True when any diagnostic is an error. */
    hasErrors: boolean;
}

/** Stable codes of the diagnostics the loader itself reports (the languages report the others). */
export const LoadIssueCodes = {
    Lexer: 'syntax.lexer',
    Parser: 'syntax.parser',
    TooDeep: 'syntax.too-deep',
    TooComplex: 'syntax.too-complex',
    Unreadable: 'io.unreadable',
    UnsupportedFileType: 'io.unsupported-file-type',
    ValidationCrash: 'internal.validation',
} as const;

/** The parse guards' limits and nesting finder, re-exported for the front ends and tests. */
export { MAX_NESTING_DEPTH, MAX_RECOVERY_SIZE, findExcessiveNesting } from '../language/common/parse-guards.js';

/** At most this many syntax diagnostics per file: garbage input must not bury the first, useful ones. */
export const MAX_SYNTAX_DIAGNOSTICS_PER_FILE = 100;

const LANGUAGE_BY_EXTENSION: Record<string, 'pidm' | 'kvlm'> = { '.pidm': 'pidm', '.kvlm': 'kvlm' };

/**
 * Loads files (one workspace: cross-file references resolve), parses, links, validates. Never throws on
 * bad input; texts too large for the memory this process may use are a `KvmodError` (see memory-guard.ts).
 */
export async function loadWorkspace(paths: string[], memory: MemoryUse = {}): Promise<LoadedWorkspace> {
    const files: SourceFile[] = [];
    for (const path of paths) {
        if (!languageOf(path)) {
            files.push({ path, failure: unsupportedFileType(path) });
            continue;
        }
        try {
            // Editors on Windows may save a byte-order mark; it is not part of the model.
            files.push({ path, text: (await readFile(path, 'utf8')).replace(/^\uFEFF/, '') });
        } catch (error) {
            files.push({ path, failure: unreadable(path, error) });
        }
    }
    return buildWorkspace(files, readSource, memory);
}

/**
 * Reads the PIDM a loaded `.kvlm` names as its `source` when it was not given too, so the KVLM is checked
 * against it (kvlm-source-check.ts). It is loaded only as context: its own diagnostics are not reported.
 */
async function readSource(path: string): Promise<string | undefined> {
    if (languageOf(path) !== 'pidm') return undefined;
    try {
        return (await readFile(path, 'utf8')).replace(/^\uFEFF/, '');
    } catch {
        return undefined;
    }
}

/** Same for in-memory texts (tests, re-validation of generated KVLM). */
export async function loadTexts(files: { path: string; text: string }[]): Promise<LoadedWorkspace> {
    return buildWorkspace(
        files.map((file) =>
            languageOf(file.path) ? { ...file } : { path: file.path, failure: unsupportedFileType(file.path) },
        ),
    );
}

/**
 * Validates a KVLM model built in memory (the transformation's output) as if it were the file `path`:
 * the same checks as a parsed file, without printing and parsing it (see `validateBuiltModel`).
 * Positions are the file start: the model has no text yet.
 */
export async function checkBuiltKvlm(
    model: KvlmModel,
    path: string,
    services: KvmodCoreServices = createBatchServices(),
    options: BuiltModelCheckOptions = {},
): Promise<KvmodDiagnostic[]> {
    const diagnostics = await validateBuiltModel(services.Kvlm, model, URI.file(nodePath.resolve(path)), options);
    return diagnostics.map((diagnostic) => toKvmodDiagnostic(path, diagnostic, 'kvlm'));
}

/**
 * What the caller will do with the loaded models, for the memory check before parsing: `scale` times
 * the heap loading takes (a transformation needs more), `purpose` names it in the message.
 */
export interface MemoryUse {
    scale?: number;
    purpose?: string;
    /**
     * Replace the PIDM files' syntax trees by position stand-ins once they are validated
     * (language/common/syntax-release.ts), for a caller that goes on working with the models. Default: when
     * `scale` is above 1 (a transformation follows).
     */
    releaseSyntax?: boolean;
}

/** `path:line:col: error|warning|info: message [code]` */
export function formatDiagnostic(d: KvmodDiagnostic): string {
    return `${d.path}:${d.line}:${d.column}: ${d.severity}: ${d.message} [${d.code}]`;
}

/** A Langium diagnostic as the document builder leaves it on a document. */
type Diagnostic = NonNullable<LangiumDocument['diagnostics']>[number];

/** A file to load: its text, or why it could not be read. */
interface SourceFile {
    path: string;
    text?: string;
    failure?: KvmodDiagnostic;
}

function languageOf(path: string): 'pidm' | 'kvlm' | undefined {
    // Exact case: Langium picks a language by the URI's extension, and `.PIDM` is not registered.
    return LANGUAGE_BY_EXTENSION[nodePath.extname(path)];
}

/** Builds the workspace: parses every file, then links and validates them together. */
async function buildWorkspace(
    files: SourceFile[],
    readContext?: (path: string) => Promise<string | undefined>,
    memory: MemoryUse = {},
): Promise<LoadedWorkspace> {
    const texts = files.filter((file) => file.text !== undefined);
    checkHeapForTexts(
        texts.length === 1 ? texts[0].path : `the ${texts.length} model files`,
        texts.map((file) => ({ language: languageOf(file.path) ?? 'pidm', text: file.text as string })),
        memory.scale,
        memory.purpose,
    );
    // Reading files, the workspace can tell a `.kvlm`'s missing `source` (kvlm-source-check.ts); given texts only, it cannot.
    const services = createBatchServices(readContext !== undefined);
    const factory = services.shared.workspace.LangiumDocumentFactory;
    const diagnostics: KvmodDiagnostic[] = [];
    const loaded: { path: string; document: LangiumDocument }[] = [];
    const seen = new Set<string>();
    for (const file of files) {
        if (file.failure || file.text === undefined) {
            if (file.failure) diagnostics.push(file.failure);
            continue;
        }
        const uri = URI.file(nodePath.resolve(file.path));
        // The same file named twice (e.g. by a path and a glob) is one document, not a duplicate model.
        if (seen.has(uri.toString())) continue;
        seen.add(uri.toString());
        // The parser's guards (src/language/common/parse-guards.ts) turn text it cannot take into diagnostics.
        const document = factory.fromString(file.text, uri);
        services.shared.workspace.LangiumDocuments.addDocument(document);
        loaded.push({ path: file.path, document });
    }
    for (const { path, document } of readContext ? [...loaded] : []) {
        const root = document.parseResult.value;
        if (!isKvlmModel(root) || !root.source) continue;
        const sourcePath = nodePath.resolve(nodePath.dirname(path), root.source);
        const uri = URI.file(sourcePath);
        if (seen.has(uri.toString())) continue;
        seen.add(uri.toString());
        const text = await readContext!(sourcePath);
        if (text !== undefined) services.shared.workspace.LangiumDocuments.addDocument(factory.fromString(text, uri));
    }
    checkHeapHeadroom('after parsing');
    await withLangiumLogsSilenced(() =>
        services.shared.workspace.DocumentBuilder.build(
            loaded.map((entry) => entry.document),
            { validation: true },
        ),
    );
    const result: LoadedWorkspace = { services, pidm: [], kvlm: [], diagnostics, hasErrors: false };
    const releaseSyntax = memory.releaseSyntax ?? (memory.scale ?? 1) > 1;
    for (const { path, document } of loaded) {
        if (releaseSyntax && isPidmModel(document.parseResult.value)) releaseSyntaxTree(document);
        const syntax: KvmodDiagnostic[] = [];
        for (const diagnostic of document.diagnostics ?? []) {
            const mapped = toKvmodDiagnostic(path, diagnostic, languageOf(path) ?? 'pidm');
            if (mapped.code.startsWith('syntax.')) syntax.push(mapped);
            else diagnostics.push(mapped);
        }
        diagnostics.push(...capSyntaxDiagnostics(path, syntax));
        const root = document.parseResult.value;
        if (isPidmModel(root)) result.pidm.push({ path, model: root });
        else if (isKvlmModel(root)) result.kvlm.push({ path, model: root });
    }
    checkHeapHeadroom('after linking and validation');
    diagnostics.sort(compareDiagnostics);
    result.hasErrors = diagnostics.some((d) => d.severity === 'error');
    return result;
}

/**
 * Services for one batch load. The reference index (what find-references needs in an editor) is skipped:
 * it costs about 45% of the build time and nothing in a batch run reads it. Linking still runs eagerly,
 * so unresolved names are reported.
 */
function createBatchServices(readsFiles = false): KvmodCoreServices {
    const services = createKvmodCoreServices(readsFiles ? NodeFileSystem : {}, { batch: true });
    services.shared.workspace.IndexManager.updateReferences = async () => {};
    // Langium logs a crashing check's stack to the console; report it as a diagnostic instead, stack-free.
    for (const language of [services.Pidm, services.Kvlm]) {
        const registry = language.validation.ValidationRegistry as unknown as {
            handleException: (
                action: () => unknown,
                context: string,
                accept: ValidationAcceptor,
                node: AstNode,
            ) => Promise<void>;
        };
        registry.handleException = async (action, context, accept, node) => {
            try {
                await action();
            } catch (error) {
                if (error instanceof Error && error.name === 'OperationCancelled') throw error;
                const detail = error instanceof Error ? error.message : String(error);
                accept('error', `${context}: ${detail}`, { node, code: LoadIssueCodes.ValidationCrash });
            }
        };
    }
    return services;
}

/**
 * Runs a build with `console.error`/`console.warn` muted. Langium logs a crashing scope provider or check
 * with its stack before turning it into a diagnostic; the diagnostic is what the user needs, the stack is
 * noise (set `KVMOD_DEBUG=1` to see it).
 */
async function withLangiumLogsSilenced<T>(action: () => Promise<T>): Promise<T> {
    if (process.env.KVMOD_DEBUG) return action();
    const { error, warn } = console;
    console.error = () => {};
    console.warn = () => {};
    try {
        return await action();
    } finally {
        console.error = error;
        console.warn = warn;
    }
}

function toKvmodDiagnostic(path: string, diagnostic: Diagnostic, language: 'pidm' | 'kvlm'): KvmodDiagnostic {
    const { start, end } = diagnostic.range;
    return {
        path,
        line: start.line + 1,
        column: start.character + 1,
        endLine: end.line + 1,
        endColumn: end.character + 1,
        severity:
            diagnostic.severity === 1 || diagnostic.severity === undefined
                ? 'error'
                : diagnostic.severity === 2
                  ? 'warning'
                  : 'info',
        message: oneLine(typeof diagnostic.message === 'string' ? diagnostic.message : diagnostic.message.value),
        code: issueCodeOf(diagnostic, language),
    };
}

/**
 * The stable code of a Langium diagnostic: the language's own code (`diagnostic.code`, else `data.code`)
 * wins; Langium's built-in lexer/parser/linker codes get the kvmod names.
 */
function issueCodeOf(diagnostic: Diagnostic, language: 'pidm' | 'kvlm'): string {
    const dataCode = (diagnostic.data as { code?: unknown } | undefined)?.code;
    if (typeof diagnostic.code === 'string' && diagnostic.code !== '') return diagnostic.code;
    if (typeof dataCode === 'string') {
        if (dataCode.startsWith('lexing-')) return LoadIssueCodes.Lexer;
        if (dataCode === 'parsing-error') return LoadIssueCodes.Parser;
        if (dataCode === 'linking-error') return `${language}.unknown-name`;
        return dataCode;
    }
    if (typeof diagnostic.code === 'number') return `${language}.${diagnostic.code}`;
    return `${language}.validation`;
}

/**
 * Makes a message one harmless line: Chevrotain lists alternatives on numbered lines (joined here with
 * commas) and lexer messages quote the offending input, which may be binary (control characters escaped).
 */
function oneLine(message: string): string {
    const lines = message
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter((line) => line !== '');
    let joined = '';
    let previousWasItem = false;
    for (const line of lines) {
        const item = /^\d+\.\s+(.*)$/.exec(line);
        if (item) joined += (previousWasItem ? ', ' : joined ? ' ' : '') + item[1];
        else joined += (joined ? ' ' : '') + line;
        previousWasItem = item !== null;
    }
    return joined.replace(
        /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g,
        (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
}

/** Keeps the first syntax diagnostics of a file and says how many more there were. */
function capSyntaxDiagnostics(path: string, syntax: KvmodDiagnostic[]): KvmodDiagnostic[] {
    if (syntax.length <= MAX_SYNTAX_DIAGNOSTICS_PER_FILE) return syntax;
    syntax.sort(compareDiagnostics);
    const kept = syntax.slice(0, MAX_SYNTAX_DIAGNOSTICS_PER_FILE);
    const last = kept[kept.length - 1];
    kept.push({
        ...last,
        severity: 'info',
        message: `${syntax.length - kept.length} more syntax errors in this file are not shown.`,
        code: 'syntax.truncated',
    });
    return kept;
}

function unsupportedFileType(path: string): KvmodDiagnostic {
    return fileDiagnostic(
        path,
        `unsupported file type '${nodePath.extname(path) || '(none)'}': kvmod reads .pidm and .kvlm files`,
        LoadIssueCodes.UnsupportedFileType,
    );
}

function unreadable(path: string, error: unknown): KvmodDiagnostic {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    const reason =
        code === 'ENOENT'
            ? 'no such file'
            : code === 'EISDIR'
              ? 'is a directory'
              : code === 'EACCES'
                ? 'permission denied'
                : error instanceof Error
                  ? error.message
                  : String(error);
    return fileDiagnostic(path, `cannot read file: ${reason}`, LoadIssueCodes.Unreadable);
}

function fileDiagnostic(path: string, message: string, code: string): KvmodDiagnostic {
    return { path, line: 1, column: 1, endLine: 1, endColumn: 1, severity: 'error', message, code };
}

function compareDiagnostics(a: KvmodDiagnostic, b: KvmodDiagnostic): number {
    if (a.path !== b.path) return a.path < b.path ? -1 : 1;
    return a.line - b.line || a.column - b.column;
}
