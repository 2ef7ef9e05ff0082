/**
 * The PIDM lexer: Langium's, plus one layout rule. `id code` followed on the next line by `text name`
 * (the Mortadelo notation) and `id code int` followed by `level int` (the paper's) are the same token
 * sequence; only the line break tells them apart. The grammar lets a member end with `;`, and this
 * lexer inserts an invisible `;` after `id NAME` when the next word is a type name on a later line,
 * so that the type starts the next attribute instead of typing the identifier.
 */
import { DefaultLexer, type LangiumCoreServices, type LexerResult, type TokenizeOptions } from 'langium';
import type { TokenType } from 'chevrotain';
import { pidmWords, type PidmWords } from './pidm-grammar-words.js';

/** A token as the lexer produces it (chevrotain's IToken, named through Langium's types). */
type Token = LexerResult['tokens'][number];

const WORD = /^[_a-zA-Z]\w*$/;

/** Inserts the identifier's invisible terminator where layout says the identifier ends. */
export class PidmLexer extends DefaultLexer {
    private readonly words: PidmWords;

    constructor(services: LangiumCoreServices) {
        super(services);
        this.words = pidmWords(services.Grammar);
    }

    override tokenize(text: string, options?: TokenizeOptions): LexerResult {
        const result = this.withSqlParameters(text, super.tokenize(text, options));
        const terminator = this.tokenTypes[';'];
        if (!terminator) return result;
        const tokens = withIdTerminators(
            result.tokens,
            terminator,
            this.words,
            (name, next) => (next.startLine ?? 0) > (name.endLine ?? name.startLine ?? 0),
        );
        return { ...result, tokens };
    }

    /**
     * SQL's parameters `?city`, `$city` (unexpected characters) and `:city` after a comparison operator: one
     * lexer error at the sign (its advice comes from `sqlHabitAt`), and the sign and the name become the
     * string `"?city"` so that the parser goes on as if the modeler had written it, without echo errors.
     */
    private withSqlParameters(text: string, result: LexerResult): LexerResult {
        const string = this.tokenTypes['STRING'];
        if (!string) return result;
        const source = result.tokens;
        const signs = new Set<number>(); // offsets of signs that may start a parameter
        for (const error of result.errors) {
            if (error.length === 1 && (text[error.offset] === '?' || text[error.offset] === '$'))
                signs.add(error.offset);
        }
        for (let i = 1; i < source.length - 1; i++) {
            const token = source[i];
            if (
                token.image === ':' &&
                this.words.comparisonOperators.has(source[i - 1].tokenType.name) &&
                source[i + 1].startOffset === token.endOffset! + 1
            ) {
                signs.add(token.startOffset);
            }
        }
        if (signs.size === 0) return result;
        const errors = [...result.errors];
        const tokens: Token[] = [];
        for (const token of source) {
            const sign = token.startOffset - 1;
            if (!signs.has(sign) || !WORD.test(token.image)) {
                tokens.push(token);
                continue;
            }
            const previous = tokens.at(-1);
            if (previous && previous.image === ':' && previous.startOffset === sign) {
                tokens.pop();
                errors.push({
                    offset: sign,
                    length: 1,
                    line: previous.startLine,
                    column: previous.startColumn,
                    message: `unexpected character: ->:<- at offset: ${sign}`,
                });
            }
            tokens.push({
                ...token,
                image: `"?${token.image}"`,
                startOffset: sign,
                startColumn: (token.startColumn ?? 1) - 1,
                tokenType: string,
                tokenTypeIdx: string.tokenTypeIdx!,
            });
        }
        errors.sort((a, b) => a.offset - b.offset);
        return { ...result, tokens, errors };
    }
}

/**
 * The layout rule (see the file comment) on a token list: after `id NAME` whose next word is a type name
 * on a later line (`lineBreak(name, next)`), an invisible `;`. Also the batch parser's lexing
 * (pidm-batch-parser.ts), which tracks offsets only.
 */
export function withIdTerminators(
    source: readonly Token[],
    terminator: TokenType,
    words: PidmWords,
    lineBreak: (name: Token, next: Token) => boolean,
): Token[] {
    const { idKeyword, typeWords } = words;
    // Copied from the first terminator on, else `source` itself: most texts need few or none, and a large one has
    // millions of tokens.
    let tokens: Token[] | undefined;
    for (let i = 0; i < source.length; i++) {
        const keyword = source[i];
        tokens?.push(keyword);
        const name = source[i + 1];
        const next = source[i + 2];
        if (
            keyword.tokenType.name === idKeyword &&
            name &&
            WORD.test(name.image) &&
            next &&
            typeWords.has(next.tokenType.name) &&
            lineBreak(name, next)
        ) {
            tokens ??= source.slice(0, i + 1);
            tokens.push(name);
            i++;
            const end = name.endOffset !== undefined ? name.endOffset + 1 : name.startOffset + name.image.length;
            // Marked as inserted so the parser consumes it but builds no CST node: the text is unchanged.
            tokens.push({
                image: '',
                startOffset: end,
                endOffset: end - 1,
                startLine: name.endLine,
                endLine: name.endLine,
                startColumn: name.endColumn! + 1,
                endColumn: name.endColumn,
                tokenTypeIdx: terminator.tokenTypeIdx!,
                tokenType: terminator,
                isInsertedInRecovery: true,
            });
        }
    }
    return tokens ?? (source as Token[]);
}

/** Whether the tokens hold an SQL parameter written `:name` after a comparison operator (which `PidmLexer` reports). */
export function hasColonParameter(tokens: readonly Token[], words: PidmWords): boolean {
    for (let i = 1; i < tokens.length - 1; i++) {
        const token = tokens[i];
        if (
            token.image === ':' &&
            words.comparisonOperators.has(tokens[i - 1].tokenType.name) &&
            tokens[i + 1].startOffset === token.startOffset + 1 &&
            WORD.test(tokens[i + 1].image)
        )
            return true;
    }
    return false;
}
