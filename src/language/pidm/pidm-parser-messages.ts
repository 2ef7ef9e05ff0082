/**
 * Syntax error messages a modeler can act on. Chevrotain lists every token sequence the parser could
 * have taken ("one of these possible Token sequences: 1. [text] 2. [string] … 16. [timestamp]"); PIDM
 * says what kind of thing was expected: "Expecting a type (text, int, …) but found 'ref'."
 */
import { LangiumParserErrorMessageProvider } from 'langium';

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
