/**
 * Langium's parser without one quadratic no-op. Before every token the parser asks its CST builder to add
 * the hidden tokens (comments) that precede it — usually none. With none, the builder still searches the
 * parent's children for the node being built (`indexOf`), so a list of 100,000 projections costs
 * 100,000² steps for nothing, most of parsing such a query. Adding an empty
 * list changes nothing, so skipping it changes no tree (the tests compare CSTs with comments).
 */
import {
    GrammarAST,
    LangiumParser,
    createParser,
    type AstReflection,
    type LangiumCoreServices,
    type Linker,
    type Module,
} from 'langium';
import type { IToken } from 'chevrotain';
import { KvmodBatchLinker } from './ast-traversal.js';
import { parserInternals } from './langium-internals.js';
import { makeLean } from './lean-cst.js';
import { guardParser } from './parse-guards.js';

/**
 * Creates Langium's parser for a language, with the empty-hidden-tokens fast path and the parse guards;
 * `lean` builds the batch runs' smaller CST (lean-cst.ts).
 */
export function createKvmodParser(services: LangiumCoreServices, lean = false): LangiumParser {
    // `createLangiumParser`, with the node shapes and the lean CST builder installed before the grammar is recorded.
    const fresh = new LangiumParser(services);
    declareNodeShapes(fresh, services.shared.AstReflection);
    const prepared = createParser(services.Grammar, fresh, services.parser.Lexer.definition);
    const parser = lean ? makeLean(prepared) : prepared;
    parser.finalize();
    releaseLastTree(parser);
    const builder = parserInternals(parser).nodeBuilder;
    {
        const addHiddenNodes = builder.addHiddenNodes.bind(builder);
        builder.addHiddenNodes = (tokens: IToken[]) => {
            if (tokens.length > 0) addHiddenNodes(tokens);
        };
    }
    return guardParser(parser);
}

/**
 * Makes the parser create every AST node of a type with the same fields in the same order: `$type`, the
 * container fields (`$container`, `$containerProperty`, `$containerIndex`, `$cstNode`), then the type's
 * properties in the order the grammar assigns them (arrays and booleans with their default value, the
 * others `undefined`). Langium starts each node as `{ $type }` and adds fields as it meets them — the
 * properties in the order present, the defaults of the absent ones, the CST node, the container last —
 * so nodes of one type had many hidden classes and every check, scope and link reading them went
 * megamorphic, and V8 kept their fields out of object. The keys that hold content keep their order
 * (the grammar's), so everything that walks `Object.keys` (Langium's streams) visits the same children
 * in the same order. Must run before the grammar is recorded (`createParser`).
 */
function declareNodeShapes(parser: LangiumParser, reflection: AstReflection): void {
    const internals = parserInternals(parser);
    const startImplementation = internals.startImplementation.bind(parser);
    const rule = internals.rule.bind(parser);
    let recording: GrammarAST.ParserRule | undefined;
    internals.rule = (parserRule, impl) => {
        recording = parserRule;
        try {
            return rule(parserRule, impl);
        } finally {
            recording = undefined;
        }
    };
    internals.startImplementation = (type, infixName, impl) => {
        const create =
            typeof type === 'string' && infixName === undefined && recording
                ? shapeOf(type, recording, reflection)
                : undefined;
        if (!create) return startImplementation(type, infixName, impl);
        return (args) => {
            const createNode = !internals.isRecording();
            if (createNode) internals.stack.push(create());
            impl(args);
            return createNode ? internals.construct() : undefined;
        };
    };
}

/** A function creating an empty node of `type` with all its fields (see `declareNodeShapes`); none for a type without properties. */
export function shapeOf(
    type: string,
    rule: GrammarAST.ParserRule,
    reflection: AstReflection,
): (() => object) | undefined {
    const properties = reflection.getTypeMetaData(type).properties as Record<
        string,
        { name: string; defaultValue?: unknown }
    >;
    const names = Object.keys(properties);
    if (names.length === 0) return undefined;
    const order = assignedFeatures(rule.definition, new Set());
    const ordered = [...order.filter((name) => name in properties), ...names.filter((name) => !order.includes(name))];
    const fields = ordered.map((name) => {
        const value = properties[name].defaultValue;
        const literal =
            Array.isArray(value) && value.length === 0
                ? '[]'
                : typeof value === 'boolean'
                  ? String(value)
                  : 'undefined';
        return `${JSON.stringify(name)}: ${literal}`;
    });
    // An object literal: V8 gives all nodes from it one map with every field in object.
    return new Function(
        `return () => ({ $type: ${JSON.stringify(type)}, $container: undefined, $containerProperty: undefined, $containerIndex: undefined, $cstNode: undefined, ${fields.join(', ')} });`,
    )() as () => object;
}

/** The features a rule's body assigns, in text order, through the fragments it calls. */
function assignedFeatures(
    element: GrammarAST.AbstractElement | undefined,
    visited: Set<GrammarAST.AbstractRule>,
): string[] {
    const names: string[] = [];
    const visit = (node: GrammarAST.AbstractElement | undefined): void => {
        if (!node) return;
        if (GrammarAST.isAssignment(node) || GrammarAST.isAction(node)) {
            if (node.feature && !names.includes(node.feature)) names.push(node.feature);
            if (GrammarAST.isAssignment(node)) visit(node.terminal);
        } else if (GrammarAST.isRuleCall(node)) {
            const called = node.rule.ref;
            if (GrammarAST.isParserRule(called) && called.fragment && !visited.has(called)) {
                visited.add(called);
                for (const name of assignedFeatures(called.definition, visited))
                    if (!names.includes(name)) names.push(name);
            }
        } else if (GrammarAST.isGroup(node) || GrammarAST.isAlternatives(node) || GrammarAST.isUnorderedGroup(node)) {
            for (const child of node.elements) visit(child);
        }
    };
    visit(element);
    return names;
}

/**
 * The CST builder keeps the last tree it built (`rootNode`, and through it the AST): a document that is
 * dropped stays in memory until the next parse. The builder lets go of it when the parse is done.
 */
function releaseLastTree(parser: LangiumParser): void {
    const parse = parser.parse.bind(parser);
    const builder = parserInternals(parser).nodeBuilder;
    parser.parse = ((input: string, options?: Parameters<LangiumParser['parse']>[1]) => {
        try {
            return parse(input, options);
        } finally {
            builder.rootNode = undefined;
            builder.nodeStack = [];
            // The lean builder's pending keywords (lean-cst.ts) hold tokens.
            if (builder.pending) builder.pending = [];
        }
    }) as LangiumParser['parse'];
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
