/**
 * Syntax error messages a modeler can act on, in both languages. Chevrotain lists every token sequence the
 * parser could have taken ("one of these possible Token sequences: [ID], [text], … [of]": 50 of them where a
 * KVLM name is expected); these messages say what kind of thing was expected: "Expecting a name but found '}'."
 * Each language gives its vocabulary (`SyntaxVocabulary`): which keywords may also be names, its type words.
 */
import { LangiumParserErrorMessageProvider } from 'langium';

type MismatchOptions = Parameters<LangiumParserErrorMessageProvider['buildMismatchTokenMessage']>[0];
type NotAllInputOptions = Parameters<LangiumParserErrorMessageProvider['buildNotAllInputParsedMessage']>[0];
type NoViableAltOptions = Parameters<LangiumParserErrorMessageProvider['buildNoViableAltMessage']>[0];
type EarlyExitOptions = Parameters<LangiumParserErrorMessageProvider['buildEarlyExitMessage']>[0];
/** A token type as the parser's error options give it. */
export type SyntaxTokenType = MismatchOptions['expected'];
/** A token as the parser's error options give it. */
export type SyntaxToken = MismatchOptions['actual'];

/** What a language's messages call its tokens. */
export interface SyntaxVocabulary {
    /** Keywords the grammar also accepts as names: folded into "a name" when a name is expected too. */
    nameKeywords: ReadonlySet<string>;
    /** The type words: any of them expected reads as `typeList`. */
    typeWords: ReadonlySet<string>;
    /** How the types are described: "a type (text, int, …)". */
    typeList: string;
    /** What may come where the parser would also accept the end of the file (the top level's next declaration). */
    atEnd: string;
    /** What the remaining input after a complete model should have been. */
    notAllInput: string;
    /** Descriptions of single tokens (by token name) that read better than the token: `?` is "a parameter (?name)". */
    special?: Readonly<Record<string, string>>;
}

/** The expected tokens, described as kinds of things, in the order the grammar offers them. */
export function describeExpectedTokens(tokenTypes: readonly SyntaxTokenType[], vocabulary: SyntaxVocabulary): string {
    const names = [...new Set(tokenTypes.map((type) => type.name.replace(/:KW$/, '')))];
    const hasName = names.includes('ID');
    const hasNumber = names.includes('NUMBER');
    const parts: string[] = [];
    const add = (part: string) => {
        if (!parts.includes(part)) parts.push(part);
    };
    for (const name of names) {
        if (name === 'ID') add('a name');
        else if (hasName && vocabulary.nameKeywords.has(name)) continue;
        else if (hasNumber && name === '-') continue;
        else if (vocabulary.typeWords.has(name)) add(vocabulary.typeList);
        else if (vocabulary.special?.[name]) add(vocabulary.special[name]);
        else if (name === 'NUMBER') add('a number');
        else if (name === 'STRING') add('a string');
        else if (name === 'EOF') add(vocabulary.atEnd);
        else add(`'${name}'`);
    }
    if (parts.length <= 1) return parts[0] ?? 'something else';
    return `${parts.slice(0, -1).join(', ')} or ${parts.at(-1)}`;
}

/** What was found, in words: a token's text in quotes, or the end of the file. */
export function foundToken(token: SyntaxToken | undefined): string {
    if (!token || token.tokenType?.name === 'EOF') return 'the end of the file';
    // PIDM's invisible end of an identifier (see pidm-lexer.ts) stands for a line break.
    if (token.image === '') return 'a line break';
    return `'${token.image}'`;
}

/** The grammar rule an error happened in: Langium suffixes its rule names with a zero-width space. */
export function grammarRuleName(ruleName: string | undefined): string {
    return (ruleName ?? '').replace(/\u200B$/, '');
}

/** Syntax error messages in a language's vocabulary. */
export class KvmodParserErrorMessageProvider extends LangiumParserErrorMessageProvider {
    constructor(protected readonly vocabulary: SyntaxVocabulary) {
        super();
    }

    protected describe(tokenTypes: readonly SyntaxTokenType[]): string {
        return describeExpectedTokens(tokenTypes, this.vocabulary);
    }

    override buildMismatchTokenMessage({ expected, actual }: MismatchOptions): string {
        // The end of the file alone: the model is complete, and more of its declarations may follow.
        const what = expected.name === 'EOF' ? this.vocabulary.notAllInput : this.describe([expected]);
        return `Expecting ${what} but found ${foundToken(actual)}.`;
    }

    override buildNotAllInputParsedMessage({ firstRedundant }: NotAllInputOptions): string {
        return `Expecting ${this.vocabulary.notAllInput} but found ${foundToken(firstRedundant)}.`;
    }

    override buildNoViableAltMessage({ expectedPathsPerAlt, actual }: NoViableAltOptions): string {
        const first = expectedPathsPerAlt
            .flatMap((paths) => paths.map((path) => path[0]))
            .filter((type) => type !== undefined);
        return `Expecting ${this.describe(first)} but found ${foundToken(actual[0])}.`;
    }

    override buildEarlyExitMessage({ expectedIterationPaths, actual }: EarlyExitOptions): string {
        const first = expectedIterationPaths.map((path) => path[0]).filter((type) => type !== undefined);
        return `Expecting at least one ${this.describe(first)} but found ${foundToken(actual[0])}.`;
    }
}
