/**
 * The guards every parse goes through, in the command line and in the language server alike: text that
 * the recursive-descent parser cannot take (nesting deeper than the stack, a WHERE of 100,000 terms) is
 * reported as a syntax diagnostic instead of overflowing the stack, and error recovery, which costs about
 * 5 ms per KB of broken input, is off for large files. A parser that overflowed anyway is reset, so the
 * next text parses as on fresh services (the language server cannot start over on new services).
 */
import {
    DefaultDocumentValidator,
    type AstNode,
    type LangiumDocument,
    type LangiumParser,
    type ParseResult,
    type ValidationAcceptor,
    type ValidationOptions,
} from 'langium';
import type { CancellationToken, Diagnostic } from 'vscode-languageserver';
import { validateAstNodes } from './ast-traversal.js';
import { parserInternals } from './langium-internals.js';

/** Nesting deeper than this is reported instead of parsed: the recursive-descent parser would overflow the stack. */
export const MAX_NESTING_DEPTH = 100;

/** Files larger than this (in characters) are parsed without error recovery; see `guardedParse`. */
export const MAX_RECOVERY_SIZE = 256 * 1024;

/** The codes of the diagnostics the guards report. */
export const ParseGuardCodes = {
    TooDeep: 'syntax.too-deep',
    TooComplex: 'syntax.too-complex',
    RecoveryOff: 'syntax.recovery-off',
} as const;

/** A guard's finding, carried in the parse result's lexer report like a lexer diagnostic, plus its code. */
interface GuardDiagnostic {
    line: number;
    column: number;
    length: number;
    offset: number;
    message: string;
    severity: 'error' | 'info';
    code: string;
}

/**
 * Installs the guards on a parser: `parse` checks the nesting first, turns recovery off for large
 * texts, and turns a stack overflow into a `syntax.too-complex` diagnostic on an empty model.
 */
export function guardParser(parser: LangiumParser): LangiumParser {
    const parse = parser.parse.bind(parser);
    const internals = parserInternals(parser);
    const emptyWith = (finding: GuardDiagnostic, options: Parameters<LangiumParser['parse']>[1]): ParseResult => {
        const result = parse('', options);
        return {
            ...result,
            lexerReport: { diagnostics: [...(result.lexerReport?.diagnostics ?? []), finding] },
        } as ParseResult;
    };
    parser.parse = ((text: string, options?: Parameters<LangiumParser['parse']>[1]) => {
        const tooDeep = findExcessiveNesting(text, MAX_NESTING_DEPTH);
        if (tooDeep) {
            return emptyWith(
                finding(
                    tooDeep,
                    `Nesting is deeper than ${MAX_NESTING_DEPTH} levels (parentheses or 'not'); the file was not parsed.`,
                    ParseGuardCodes.TooDeep,
                ),
                options,
            );
        }
        const recover = text.length <= MAX_RECOVERY_SIZE;
        internals.wrapper.recoveryEnabled = recover;
        try {
            const result = parse(text, options);
            if (recover || result.parserErrors.length === 0) return result;
            const note: GuardDiagnostic = {
                ...finding(
                    { line: 1, column: 1, offset: 0 },
                    `Only the first syntax error is reported: error recovery is off for files over ${MAX_RECOVERY_SIZE / 1024} KB.`,
                    ParseGuardCodes.RecoveryOff,
                ),
                severity: 'info',
            };
            return {
                ...result,
                lexerReport: { diagnostics: [...(result.lexerReport?.diagnostics ?? []), note] },
            } as ParseResult;
        } catch (error) {
            if (!(error instanceof RangeError)) throw error;
            // The overflow left half-built nodes on the parser's stack; the next parse must start clean.
            internals.stack = [];
            internals.unorderedGroups?.clear();
            internals.lexerResult = undefined;
            internals.wrapper.recoveryEnabled = true;
            return emptyWith(
                finding(
                    { line: 1, column: 1, offset: 0 },
                    'The parser ran out of stack (a huge string or token, or very deep nesting); the file was not parsed.',
                    ParseGuardCodes.TooComplex,
                ),
                options,
            );
        } finally {
            internals.wrapper.recoveryEnabled = true;
            // Chevrotain keeps the token vector until the next parse: ~100 bytes per token (4 M tokens in a
            // 10 MB model) that nothing reads once the CST holds the positions.
            internals.wrapper.input = [];
        }
    }) as LangiumParser['parse'];
    return parser;
}

function finding(at: { line: number; column: number; offset: number }, message: string, code: string): GuardDiagnostic {
    return { line: at.line, column: at.column, offset: at.offset, length: 1, message, severity: 'error', code };
}

/**
 * The document validator of both languages: lexer diagnostics as Langium reports them, with the guards'
 * codes (`syntax.too-deep`, …) kept; `codeSyntaxDiagnostics` codes the plain lexer and parser errors.
 */
export class GuardedDocumentValidator extends DefaultDocumentValidator {
    /** Langium's node checks without its streams (ast-traversal.ts): same nodes, order and checks. */
    protected override validateAstNodes(
        rootNode: AstNode,
        options: ValidationOptions,
        acceptor: ValidationAcceptor,
        cancelToken?: CancellationToken,
    ): Promise<void> {
        if (this.profiler?.isActive('validating'))
            return super.validateAstNodes(rootNode, options, acceptor, cancelToken);
        const validator = {
            validationRegistry: this.validationRegistry,
            validateSingleNodeOptions: (node: AstNode, nodeOptions: ValidationOptions) =>
                this.validateSingleNodeOptions(node, nodeOptions),
        };
        return validateAstNodes(validator, rootNode, options, acceptor, cancelToken);
    }

    protected override processLexingErrors(
        parseResult: ParseResult,
        diagnostics: Diagnostic[],
        options: ValidationOptions,
    ): void {
        const start = diagnostics.length;
        super.processLexingErrors(parseResult, diagnostics, options);
        const sources = [...parseResult.lexerErrors, ...(parseResult.lexerReport?.diagnostics ?? [])];
        sources.forEach((source, index) => {
            const code = (source as Partial<GuardDiagnostic>).code;
            const diagnostic = diagnostics[start + index];
            if (code && diagnostic) diagnostic.code = code;
        });
    }
}

/** Whether a document was not parsed because a guard stopped it (its model is empty). */
export function stoppedByGuard(document: LangiumDocument): boolean {
    return (document.parseResult.lexerReport?.diagnostics ?? []).some((d) => {
        const code = (d as Partial<GuardDiagnostic>).code;
        return code === ParseGuardCodes.TooDeep || code === ParseGuardCodes.TooComplex;
    });
}

/**
 * Finds the first place where parentheses plus a run of `not`s nest deeper than `limit`, skipping strings
 * and comments. Cheap (one pass) and conservative: real queries nest a few levels.
 */
export function findExcessiveNesting(
    text: string,
    limit: number,
): { line: number; column: number; offset: number } | undefined {
    let depth = 0;
    let notRun = 0;
    let line = 1;
    let lineStart = 0;
    let i = 0;
    const n = text.length;
    while (i < n) {
        const c = text.charCodeAt(i);
        if (c === 10 /* \n */) {
            line++;
            lineStart = i + 1;
            i++;
        } else if (c === 47 /* / */ && text.charCodeAt(i + 1) === 47) {
            while (i < n && text.charCodeAt(i) !== 10) i++;
        } else if (c === 47 && text.charCodeAt(i + 1) === 42 /* * */) {
            const end = text.indexOf('*/', i + 2);
            const stop = end < 0 ? n : end + 2;
            for (let j = i; j < stop; j++) {
                if (text.charCodeAt(j) === 10) {
                    line++;
                    lineStart = j + 1;
                }
            }
            i = stop;
        } else if (c === 34 /* " */ || c === 39 /* ' */) {
            i++;
            while (i < n) {
                const d = text.charCodeAt(i);
                if (d === c || d === 10 || d === 13) break;
                i += d === 92 /* \ */ ? 2 : 1;
            }
            i++;
        } else if (c === 40 /* ( */) {
            depth++;
            if (depth + notRun > limit) return { line, column: i - lineStart + 1, offset: i };
            i++;
        } else if (c === 41 /* ) */) {
            depth = Math.max(0, depth - 1);
            i++;
        } else if (isWordStart(c)) {
            let j = i + 1;
            while (j < n && isWordPart(text.charCodeAt(j))) j++;
            if (j - i === 3 && text.slice(i, j).toLowerCase() === 'not') {
                notRun++;
                if (depth + notRun > limit) return { line, column: i - lineStart + 1, offset: i };
            } else {
                notRun = 0;
            }
            i = j;
        } else {
            i++;
        }
    }
    return undefined;
}

function isWordStart(c: number): boolean {
    return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

function isWordPart(c: number): boolean {
    return isWordStart(c) || (c >= 48 && c <= 57);
}
