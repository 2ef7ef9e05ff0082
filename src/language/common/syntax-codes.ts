/**
 * Every syntax diagnostic carries a stable code, in the editor as on the command line: Langium marks lexer
 * and parser errors only in `data`, which the editor does not show. A language may also recognise what
 * went wrong (PIDM: SQL habits) and replace the parser's sentence with advice under its own code.
 */
import { DocumentValidator, type LangiumDocument } from 'langium';
import type { Diagnostic } from 'vscode-languageserver';

/** Stable codes of syntax errors; the `sql-*` ones are PIDM's answers to SQL habits (docs/pidm-language.md). */
export const SyntaxIssueCodes = {
    Lexer: 'syntax.lexer',
    Parser: 'syntax.parser',
    SqlParameter: 'syntax.sql-parameter',
    SqlLimit: 'syntax.sql-limit',
    SqlBetween: 'syntax.sql-between',
    SqlIn: 'syntax.sql-in',
    SqlLike: 'syntax.sql-like',
    SqlSelectStar: 'syntax.sql-select-star',
    SqlAggregate: 'syntax.sql-aggregate',
    SqlJoin: 'syntax.sql-join',
} as const;

/** Where the next top-level declaration of either language starts. */
const DECLARATION_START = /\n\s*(query|entity|database|collection)\b/gi;

/** A recognised mistake at a syntax error: the code and the sentence that replace the parser's. */
export interface SyntaxAdvice {
    code: string;
    message: string;
}

/** Finds advice for the syntax error starting at `offset` of the document's text. */
export type SyntaxAdvisor = (text: string, offset: number) => SyntaxAdvice | undefined;

/**
 * Gives every lexer and parser diagnostic its code, and the advisor's message where it has one. After an
 * advised error, the parser's follow-on errors up to the next top-level declaration (`query`, `entity`,
 * `database`, `collection` at the start of a line) are dropped: they are echoes of the same mistake.
 */
export function codeSyntaxDiagnostics(
    document: LangiumDocument,
    diagnostics: Diagnostic[],
    advisor?: SyntaxAdvisor,
): Diagnostic[] {
    const kindOf = (d: Diagnostic) => (d.data as { code?: unknown } | undefined)?.code;
    if (
        !diagnostics.some(
            (d) => kindOf(d) === DocumentValidator.LexingError || kindOf(d) === DocumentValidator.ParsingError,
        )
    )
        return diagnostics;
    const text = document.textDocument.getText();
    const kept: Diagnostic[] = [];
    const echoes: [from: number, until: number][] = [];
    for (const diagnostic of diagnostics) {
        const kind = kindOf(diagnostic);
        const lexing = kind === DocumentValidator.LexingError;
        // Not a syntax error, or one already coded (the parse guards' syntax.too-deep and the like).
        if (
            (!lexing && kind !== DocumentValidator.ParsingError) ||
            (typeof diagnostic.code === 'string' && diagnostic.code !== '')
        ) {
            kept.push(diagnostic);
            continue;
        }
        const offset = document.textDocument.offsetAt(diagnostic.range.start);
        if (!lexing && echoes.some(([from, until]) => offset > from && offset < until)) continue;
        const advice = advisor?.(text, offset);
        if (!advice) {
            kept.push(
                lexing
                    ? { ...diagnostic, code: SyntaxIssueCodes.Lexer, message: lexerMessage(text, offset) }
                    : { ...diagnostic, code: SyntaxIssueCodes.Parser },
            );
            continue;
        }
        kept.push({ ...diagnostic, code: advice.code, message: advice.message });
        DECLARATION_START.lastIndex = offset;
        const next = DECLARATION_START.exec(text);
        echoes.push([offset, next ? next.index : text.length]);
    }
    return kept;
}

/**
 * A lexer error in a modeler's words: Chevrotain's own (`unexpected character: ->~<- at offset: 98, skipped 1
 * characters.`) names offsets no editor shows.
 */
function lexerMessage(text: string, offset: number): string {
    const character = String.fromCodePoint(text.codePointAt(offset) ?? 0x3f);
    const shown = /\s/.test(character)
        ? `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`
        : `'${character}'`;
    if (character === '?' || character === '$')
        return `Unexpected character ${shown}: a parameter is a string starting with ?, with its name ("?city").`;
    if (character === '"' || character === "'")
        return `Unexpected character ${shown}: a string ends on the line it starts.`;
    return `Unexpected character ${shown}: it has no meaning here; names are letters, digits and _.`;
}
