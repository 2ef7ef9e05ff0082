/**
 * Syntax error messages a modeler can act on. Chevrotain lists every token sequence the parser could
 * have taken ("one of these possible Token sequences: 1. [text] 2. [string] … 16. [timestamp]"); PIDM
 * says what kind of thing was expected: "Expecting a type (text, int, …) but found 'ref'."
 */
import { LangiumParserErrorMessageProvider } from 'langium';
import { SyntaxIssueCodes } from '../common/syntax-codes.js';

type MismatchOptions = Parameters<LangiumParserErrorMessageProvider['buildMismatchTokenMessage']>[0];
type NotAllInputOptions = Parameters<LangiumParserErrorMessageProvider['buildNotAllInputParsedMessage']>[0];
type NoViableAltOptions = Parameters<LangiumParserErrorMessageProvider['buildNoViableAltMessage']>[0];
type EarlyExitOptions = Parameters<LangiumParserErrorMessageProvider['buildEarlyExitMessage']>[0];
type TokenType = MismatchOptions['expected'];
type Token = MismatchOptions['actual'];

const TYPE_WORDS = new Set([
    'text', 'string', 'int', 'integer', 'long', 'float', 'double', 'decimal', 'real', 'number',
    'boolean', 'bool', 'date', 'time', 'datetime', 'timestamp',
]);

/** Keywords the grammar also accepts as names (the `Name` rule): folded into "a name". */
const NAME_KEYWORDS = new Set(['entity', 'query', 'order', 'by', 'asc', 'desc', 'id', 'ref', 'unique', ...TYPE_WORDS]);

const TYPE_LIST = 'a type (text, int, float, boolean, date, time or datetime)';

/** The expected tokens, described as kinds of things, in the order the grammar offers them. */
export function describeExpected(tokenTypes: readonly TokenType[]): string {
    const names = [...new Set(tokenTypes.map((type) => type.name.replace(/:KW$/, '')))];
    const hasName = names.includes('ID');
    const hasNumber = names.includes('NUMBER');
    const parts: string[] = [];
    const add = (part: string) => {
        if (!parts.includes(part)) parts.push(part);
    };
    for (const name of names) {
        if (name === 'ID') add('a name');
        else if (hasName && NAME_KEYWORDS.has(name)) continue;
        else if (hasNumber && name === '-') continue;
        else if (TYPE_WORDS.has(name)) add(TYPE_LIST);
        else if (name === 'NUMBER') add('a number');
        else if (name === 'STRING') add('a string');
        // Only the top level ends at the end of the file, where another declaration may start.
        else if (name === 'EOF') add("'entity' or 'query'");
        else add(`'${name}'`);
    }
    if (parts.length <= 1) return parts[0] ?? 'something else';
    return `${parts.slice(0, -1).join(', ')} or ${parts.at(-1)}`;
}

function found(token: Token | undefined): string {
    if (!token || token.tokenType?.name === 'EOF') return 'the end of the file';
    // The lexer's invisible end of an identifier (see pidm-lexer.ts) stands for a line break.
    if (token.image === '') return 'a line break';
    return `'${token.image}'`;
}

/** PIDM's syntax error messages. */
export class PidmParserErrorMessageProvider extends LangiumParserErrorMessageProvider {
    override buildMismatchTokenMessage({ expected, actual }: MismatchOptions): string {
        return `Expecting ${describeExpected([expected])} but found ${found(actual)}.`;
    }

    override buildNotAllInputParsedMessage({ firstRedundant }: NotAllInputOptions): string {
        return `Expecting 'entity' or 'query' but found ${found(firstRedundant)}.`;
    }

    override buildNoViableAltMessage({ expectedPathsPerAlt, actual }: NoViableAltOptions): string {
        const first = expectedPathsPerAlt.flatMap((paths) => paths.map((path) => path[0])).filter((type) => type !== undefined);
        return `Expecting ${describeExpected(first)} but found ${found(actual[0])}.`;
    }

    override buildEarlyExitMessage({ expectedIterationPaths, actual }: EarlyExitOptions): string {
        const first = expectedIterationPaths.map((path) => path[0]).filter((type) => type !== undefined);
        return `Expecting at least one ${describeExpected(first)} but found ${found(actual[0])}.`;
    }
}

/** An SQL habit found where a syntax error is: its code and the sentence that replaces the parser's. */
export interface SqlHabit {
    code: string;
    message: string;
}

const sql = (written: string, advice: string) => `'${written}' is SQL, not PIDM: ${advice}.`;

/** Habits recognised by the word where the syntax error is (upper-cased). */
const WORD_HABITS: Record<string, (word: string) => SqlHabit> = {
    LIMIT: (w) => ({ code: SyntaxIssueCodes.SqlLimit, message: sql(w, 'queries are not limited in PIDM; see --limit / pagination') }),
    OFFSET: (w) => ({ code: SyntaxIssueCodes.SqlLimit, message: sql(w, 'queries are not limited in PIDM; see --limit / pagination') }),
    BETWEEN: (w) => ({ code: SyntaxIssueCodes.SqlBetween, message: sql(w, 'write a >= and a <= (fare >= 10 and fare <= 20)') }),
    IN: (w) => ({ code: SyntaxIssueCodes.SqlIn, message: sql(w, 'use or (city = "Lyon" or city = "Paris")') }),
    LIKE: (w) => ({ code: SyntaxIssueCodes.SqlLike, message: sql(w, 'PIDM compares whole values; use = (or >= and < for a prefix)') }),
    ILIKE: (w) => ({ code: SyntaxIssueCodes.SqlLike, message: sql(w, 'PIDM compares whole values; use = (or >= and < for a prefix)') }),
    JOIN: (w) => ({ code: SyntaxIssueCodes.SqlJoin, message: sql(w, 'use INCLUDE with a reference path (FROM Ride INCLUDE Ride.driver AS D)') }),
    GROUP: (w) => ({ code: SyntaxIssueCodes.SqlAggregate, message: sql(`${w} BY`, 'a query returns rows, not groups; list the attributes and group in the application') }),
    HAVING: (w) => ({ code: SyntaxIssueCodes.SqlAggregate, message: sql(w, 'a query returns rows, not groups; list the attributes and group in the application') }),
};

/** `INNER`, `LEFT`, … start a join only when `JOIN` follows. */
const JOIN_PREFIXES = new Set(['INNER', 'LEFT', 'RIGHT', 'FULL', 'OUTER', 'CROSS', 'NATURAL']);
const AGGREGATES = new Set(['COUNT', 'SUM', 'AVG', 'MIN', 'MAX']);

/**
 * The SQL habit behind a syntax error at `offset` of `text`, if it is one: a parameter written `?x`, `$x` or
 * `:x`, `LIMIT`, `BETWEEN`, `IN`, `LIKE`, `SELECT *`, `COUNT(*)`, `JOIN`, `GROUP BY`.
 */
export function sqlHabitAt(text: string, offset: number): SqlHabit | undefined {
    const parameter = /^[?$:]([_a-zA-Z]\w*)/.exec(text.slice(offset, offset + 200));
    if (parameter) {
        return {
            code: SyntaxIssueCodes.SqlParameter,
            message: `Write a parameter as "?${parameter[1]}" (a string starting with ?), not ${parameter[0]}.`,
        };
    }
    const before = text.slice(Math.max(0, offset - 200), offset);
    if (text[offset] === '*' && /\bselect\s*$/i.test(before)) {
        return { code: SyntaxIssueCodes.SqlSelectStar, message: sql('SELECT *', 'list the attributes (SELECT code, city FROM Ride)') };
    }
    const called = /\b([_a-zA-Z]\w*)\s*$/.exec(before);
    if (text[offset] === '(' && called && AGGREGATES.has(called[1].toUpperCase())) {
        return {
            code: SyntaxIssueCodes.SqlAggregate,
            message: sql(`${called[1]}(…)`, 'a query returns rows, not aggregates; list the attributes and count in the application'),
        };
    }
    const word = /^[_a-zA-Z]\w*/.exec(text.slice(offset, offset + 100))?.[0];
    if (!word) return undefined;
    const upper = word.toUpperCase();
    if (JOIN_PREFIXES.has(upper) && /^\s+(outer\s+)?join\b/i.test(text.slice(offset + word.length, offset + word.length + 20))) {
        return WORD_HABITS.JOIN(`${word} JOIN`);
    }
    return WORD_HABITS[upper]?.(word);
}
