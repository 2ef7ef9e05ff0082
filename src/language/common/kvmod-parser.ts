/**
 * Langium's parser without one quadratic no-op. Before every token the parser asks its CST builder to add
 * the hidden tokens (comments) that precede it — usually none. With none, the builder still searches the
 * parent's children for the node being built (`indexOf`), so a list of 100,000 projections costs
 * 100,000² steps for nothing: parsing such a query took ~7 s, ~3 s with this guard. Adding an empty
 * list changes nothing, so skipping it changes no tree (the tests compare CSTs with comments).
 */
import { LangiumParser, createParser, type LangiumCoreServices, type Linker, type Module } from 'langium';
import { KvmodBatchLinker } from './ast-traversal.js';
import { makeLean } from './lean-cst.js';
import { guardParser } from './parse-guards.js';

interface HiddenNodeAdder {
    addHiddenNodes(tokens: readonly unknown[]): void;
}

/**
 * Creates Langium's parser for a language, with the empty-hidden-tokens fast path and the parse guards;
 * `lean` builds the batch runs' smaller CST (lean-cst.ts).
 */
export function createKvmodParser(services: LangiumCoreServices, lean = false): LangiumParser {
    // `createLangiumParser`, with the lean CST builder installed before the grammar is recorded.
    const prepared = createParser(services.Grammar, new LangiumParser(services), services.parser.Lexer.definition);
    const parser = lean ? makeLean(prepared) : prepared;
    parser.finalize();
    // `nodeBuilder` is internal to Langium 4.4; if a later version renames it, the guard is simply absent.
    const builder = (parser as unknown as { nodeBuilder?: HiddenNodeAdder }).nodeBuilder;
    if (builder && typeof builder.addHiddenNodes === 'function') {
        const addHiddenNodes = builder.addHiddenNodes.bind(builder);
        builder.addHiddenNodes = (tokens) => {
            if (tokens.length > 0) addHiddenNodes(tokens);
        };
    }
    return guardParser(parser);
}

/** The module that installs `createKvmodParser` in a language. */
export const KvmodParserModule: Module<
    LangiumCoreServices,
    { parser: { LangiumParser: (services: LangiumCoreServices) => LangiumParser } }
> = {
    parser: {
        LangiumParser: (services) => createKvmodParser(services),
    },
};

/**
 * For batch runs (the command line), where nothing walks the CST like an editor and nothing is unlinked:
 * the lean CST (lean-cst.ts) and compact references (ast-traversal.ts).
 */
export const KvmodBatchModule: Module<
    LangiumCoreServices,
    {
        parser: { LangiumParser: (services: LangiumCoreServices) => LangiumParser };
        references: { Linker: (services: LangiumCoreServices) => Linker };
    }
> = {
    parser: {
        LangiumParser: (services) => createKvmodParser(services, true),
    },
    references: {
        Linker: (services) => new KvmodBatchLinker(services),
    },
};
