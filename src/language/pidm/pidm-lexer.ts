/**
 * The PIDM lexer: Langium's, plus one layout rule. `id code` followed on the next line by `text name`
 * (the Mortadelo notation) and `id code int` followed by `level int` (the paper's) are the same token
 * sequence; only the line break tells them apart. The grammar lets a member end with `;`, and this
 * lexer inserts an invisible `;` after `id NAME` when the next word is a type name on a later line,
 * so that the type starts the next attribute instead of typing the identifier.
 */
import { DefaultLexer, type LexerResult, type TokenizeOptions } from 'langium';

/** A token as the lexer produces it (chevrotain's IToken, named through Langium's types). */
type Token = LexerResult['tokens'][number];

/** The type words of the grammar's DataType rule (keyword token names are the keywords). */
const TYPE_WORDS = new Set([
    'text', 'string', 'int', 'integer', 'long', 'float', 'double', 'decimal', 'real', 'number',
    'boolean', 'bool', 'date', 'time', 'datetime', 'timestamp',
]);

const WORD = /^[_a-zA-Z]\w*$/;

/** Inserts the identifier's invisible terminator where layout says the identifier ends. */
export class PidmLexer extends DefaultLexer {
    override tokenize(text: string, options?: TokenizeOptions): LexerResult {
        const result = super.tokenize(text, options);
        const terminator = this.tokenTypes[';'];
        if (!terminator) return result;
        const tokens: Token[] = [];
        const source = result.tokens;
        for (let i = 0; i < source.length; i++) {
            tokens.push(source[i]);
            const [keyword, name, next] = [source[i], source[i + 1], source[i + 2]];
            if (
                keyword.tokenType.name === 'id' &&
                name && WORD.test(name.image) &&
                next && TYPE_WORDS.has(next.tokenType.name) &&
                (next.startLine ?? 0) > (name.endLine ?? name.startLine ?? 0)
            ) {
                tokens.push(name);
                i++;
                // Marked as inserted so the parser consumes it but builds no CST node: the text is unchanged.
                tokens.push({
                    image: '',
                    startOffset: name.endOffset! + 1,
                    endOffset: name.endOffset!,
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
        return { ...result, tokens };
    }
}
