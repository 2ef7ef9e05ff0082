/**
 * The batch runs' PIDM parser (the command line: `validate`, `transform`, `generate`, …; never the editor):
 * the grammar compiled at start-up into a parser that builds no CST (common/grammar-batch-parser.ts), from the
 * same tokens (the PIDM lexer's layout rule, and Langium's token vocabulary).
 *
 * It only takes text that lexes and parses without an error: on the first lexer or parser error it gives
 * up and the text goes to Langium's (lean) parser, so every syntax error, its code, recovery and position
 * stay Langium's. So does text the parse guards stop (parse-guards.ts). test/language/pidm/
 * pidm-batch-parser.test.ts compares both parsers' trees and diagnostics.
 */
import { Lexer, type TokenType } from 'chevrotain';
import type { LangiumCoreServices, LangiumParser, Linker, Module, ParseResult } from 'langium';
import { BatchGrammar, BatchSource } from '../common/batch-cst.js';
import { PidmGrammar } from '../generated/grammar.js';
import { GrammarBatchParser, declarationKeywords, type BatchNode } from '../common/grammar-batch-parser.js';
import { KvmodBatchModule, createKvmodParser } from '../common/kvmod-parser.js';
import { MAX_NESTING_DEPTH, findExcessiveNesting } from '../common/parse-guards.js';
import { hasColonParameter, withIdTerminators } from './pidm-lexer.js';
import { pidmWords, type PidmWords } from './pidm-grammar-words.js';

/** How often the batch runs' parser left a text without a syntax error to Langium's (a test reads it: zero). */
export const FALLBACKS = { count: 0, texts: [] as string[] };

/**
 * The batch runs' PIDM parser: the batch parser first, then `createFallback()` (Langium's guarded, lean PIDM
 * parser): text that lexes and parses without error gets the batch parser's tree, any other text (and a text
 * the nesting guard stops) Langium's.
 *
 * Langium's parser is created the first time something needs it — a text the batch parser gives up on, or any
 * other member of the parser — not with the services: recording and analysing the grammar for it took ~30 ms of
 * every command's start-up, and a model without a syntax error never uses it (nor the PIDM lexer: see
 * `batchTokenTypes`). The answer stands for it (a proxy whose `parse` is the batch parser's and whose other
 * members are the Langium parser's).
 */
export function installPidmBatchParser(
    services: LangiumCoreServices,
    createFallback: () => LangiumParser,
): LangiumParser {
    const grammar = services.Grammar;
    const batchGrammar = new BatchGrammar(grammar);
    const definition = batchTokenTypes(services);
    const words = pidmWords(grammar);
    const declarationLine = declarationLinePattern(declarationKeywords(grammar));
    let batchLexer: Lexer | undefined;
    let recognizer: GrammarBatchParser | undefined;
    let fallback: LangiumParser | undefined;
    const langium = (): LangiumParser => (fallback ??= createFallback());
    const parse: LangiumParser['parse'] = (text, options) => langium().parse(text, options);
    // A text that lexes but does not parse: counted when Langium's parser finds no syntax error in it either.
    const leave = (text: string, options?: Parameters<LangiumParser['parse']>[1]): ParseResult => {
        const result = parse(text, options);
        if (result.parserErrors.length === 0 && result.lexerErrors.length === 0) {
            FALLBACKS.count++;
            if (FALLBACKS.texts.length < 10) FALLBACKS.texts.push(text);
        }
        return result;
    };
    const batchParse = ((text: string, options?: Parameters<LangiumParser['parse']>[1]) => {
        if (options?.rule || findExcessiveNesting(text, MAX_NESTING_DEPTH)) return parse(text, options);
        // PIDM's lexer (pidm-lexer.ts) on the same token types, tracking offsets only: the stand-ins need no
        // more, and a token without lines and columns is 40 of ~120 bytes less (4 M tokens in a 10 MB model).
        batchLexer ??= new Lexer(Object.values(definition), { positionTracking: 'onlyOffset', skipValidations: true });
        recognizer ??= new GrammarBatchParser(
            grammar,
            definition,
            {
                reflection: services.shared.AstReflection,
                converter: services.parser.ValueConverter,
                linker: services.references.Linker,
            },
            (feature) => batchGrammar.featureCode(feature),
        );
        const starts = chunkStarts(text, declarationLine);
        if (starts.length > 1) {
            const chunked = parseInChunks(
                text,
                starts,
                batchLexer,
                recognizer,
                new BatchSource(text, batchGrammar),
                definition[';'],
                words,
            );
            if (chunked === LEXER_ERROR) return parse(text, options);
            if (chunked) {
                const report = services.parser.TokenBuilder.flushLexingReport?.(text) ?? { diagnostics: [] };
                if (report.diagnostics.length > 0) return parse(text, options);
                return {
                    value: chunked,
                    lexerErrors: [],
                    lexerReport: report,
                    parserErrors: [],
                } as unknown as ParseResult;
            }
        }
        const lexed = batchLexer.tokenize(text);
        const report = services.parser.TokenBuilder.flushLexingReport?.(text) ?? { diagnostics: [] };
        // A lexer error, or what PidmLexer turns into one (`= :name`): Langium's parser reports it.
        if (lexed.errors.length > 0 || report.diagnostics.length > 0 || hasColonParameter(lexed.tokens, words))
            return parse(text, options);
        // No token: Langium's root spans the comments, if any; such a text costs nothing to parse.
        if (lexed.tokens.length === 0) return parse(text, options);
        const tokens = withIdTerminators(lexed.tokens, definition[';'], words, (name, next) =>
            lineBreakBetween(text, name.startOffset + name.image.length, next.startOffset),
        );
        let model: BatchNode | undefined;
        try {
            model = recognizer.parseTokens(tokens, new BatchSource(text, batchGrammar));
        } catch {
            model = undefined;
        }
        if (!model) return leave(text, options);
        return { value: model, lexerErrors: [], lexerReport: report, parserErrors: [] } as unknown as ParseResult;
    }) as LangiumParser['parse'];
    return new Proxy({} as LangiumParser, {
        get(_, key) {
            if (key === 'parse') return batchParse;
            const parser = langium();
            const value: unknown = Reflect.get(parser, key);
            return typeof value === 'function' ? value.bind(parser) : value;
        },
        set: (_, key, value) => Reflect.set(langium(), key, value),
        has: (_, key) => key === 'parse' || Reflect.has(langium(), key),
    });
}

/**
 * The batch parser's token types: the PIDM lexer's (Langium's token builder makes both from the grammar, in the
 * same order), but objects of their own, so that the batch runs do not build the PIDM lexer (`services.parser.Lexer`,
 * a second Chevrotain lexer with its analysis) for a text without a syntax error: Langium's parser builds it when
 * it is first needed, with the token types it is built on. A token builder that answers more than a plain list of
 * token types gets the lexer's.
 */
function batchTokenTypes(services: LangiumCoreServices): Record<string, TokenType> {
    const built = services.parser.TokenBuilder.buildTokens(services.Grammar, {
        caseInsensitive: services.LanguageMetaData.caseInsensitive,
    });
    if (!Array.isArray(built)) return services.parser.Lexer.definition as Record<string, TokenType>;
    const types: Record<string, TokenType> = {};
    for (const type of built as TokenType[]) types[type.name] = type;
    return types;
}

/**
 * Text a chunk holds at least: a large model is lexed and parsed a chunk at a time, so that its tokens (4 M
 * objects and their images in a 10 MB model) die young instead of being copied into the old generation and
 * collected there; the AST is the same. (An object so that tests can make chunks small.)
 * Small enough that a chunk's token arrays (the lexer's, and `withIdTerminators`' copy; ~2.6 characters a token)
 * stay under V8's regular object size (128 KB, ~16 K slots): a larger backing store is allocated in the large
 * object space, outside the young generation, and every young token stored in it is then an old-to-new pointer the
 * scavenger has to record and visit.
 */
export const CHUNKING = { chars: 16 * 1024 };

/** A line that starts with a declaration's keyword (`entity`, `query`): where a chunk may start (see `chunkStarts`). */
export function declarationLinePattern(keywords: readonly string[] | undefined): RegExp | undefined {
    if (!keywords || keywords.length === 0) return undefined;
    const escaped = keywords.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    return new RegExp(`[\\n\\r](?:${escaped.join('|')})(?!\\w)`, 'gi');
}

/**
 * Where the text's chunks start: 0, then at least `CHUNKING.chars` apart, the first character of a line that starts
 * with `entity` or `query`. A token never spans a line break (strings and `//` comments end at one), so lexing
 * the chunks apart gives the whole text's tokens unless a block comment spans a chunk start: a text with
 * `/*` is one chunk. A chunk start that is no declaration's (an attribute named `query` at the start of a line)
 * makes a chunk fail to parse, and the text is parsed whole.
 */
export function chunkStarts(text: string, search: RegExp | undefined = pidmDeclarationLine()): number[] {
    const starts = [0];
    const chars = CHUNKING.chars;
    if (!search || text.length < 2 * chars || text.includes('/*')) return starts;
    search.lastIndex = chars;
    for (let match = search.exec(text); match; match = search.exec(text)) {
        const start = match.index + 1;
        starts.push(start);
        search.lastIndex = start + chars;
    }
    return starts;
}

let pidmLine: RegExp | undefined;
/** PIDM's own `declarationLinePattern` (of the grammar the build generated). */
function pidmDeclarationLine(): RegExp | undefined {
    return (pidmLine ??= declarationLinePattern(declarationKeywords(PidmGrammar())));
}

/** `parseInChunks`' answer when a chunk does not lex (the whole text would not either). */
const LEXER_ERROR = Symbol('lexer error');

/**
 * Lexes and parses the text a chunk at a time (`chunkStarts`) into one model: its tree, undefined when a chunk
 * does not parse (the caller parses the text whole), `LEXER_ERROR` when one does not lex or holds an SQL
 * parameter `:name`.
 */
function parseInChunks(
    text: string,
    starts: readonly number[],
    lexer: Lexer,
    recognizer: GrammarBatchParser,
    source: BatchSource,
    terminator: TokenType,
    words: PidmWords,
): BatchNode | undefined | typeof LEXER_ERROR {
    const model = recognizer.newModel();
    let first = -1;
    let end = -1;
    for (let c = 0; c < starts.length; c++) {
        const base = starts[c];
        const lexed = lexer.tokenize(
            c + 1 < starts.length ? text.substring(base, starts[c + 1]) : text.substring(base),
        );
        if (lexed.errors.length > 0) return LEXER_ERROR;
        const raw = lexed.tokens;
        if (raw.length === 0) continue;
        for (const token of raw) {
            token.startOffset += base;
            if (token.endOffset !== undefined) token.endOffset += base;
        }
        if (hasColonParameter(raw, words)) return LEXER_ERROR;
        const tokens = withIdTerminators(raw, terminator, words, (name, next) =>
            lineBreakBetween(text, name.startOffset + name.image.length, next.startOffset),
        );
        try {
            if (!recognizer.parseChunk(tokens, source, model)) return undefined;
        } catch {
            return undefined;
        }
        if (first < 0) first = tokens[0].startOffset;
        let last = tokens[tokens.length - 1];
        if (last.isInsertedInRecovery) last = tokens[tokens.length - 2];
        end = last.startOffset + last.image.length;
    }
    if (first < 0) return undefined;
    return recognizer.finishModel(model, source, first, end);
}

/** Whether a line ends between two offsets (what a token's line number would tell). */
function lineBreakBetween(text: string, from: number, to: number): boolean {
    for (let i = from; i < to; i++) {
        const c = text.charCodeAt(i);
        if (c === 10 || c === 13) return true;
    }
    return false;
}

/** For PIDM in batch runs: `KvmodBatchModule` (kvmod-parser.ts) with the batch parser in front of Langium's. */
export const PidmBatchModule: Module<
    LangiumCoreServices,
    {
        parser: { LangiumParser: (services: LangiumCoreServices) => LangiumParser };
        references: { Linker: (services: LangiumCoreServices) => Linker };
    }
> = {
    ...KvmodBatchModule,
    parser: {
        LangiumParser: (services) => installPidmBatchParser(services, () => createKvmodParser(services, true)),
    },
};
