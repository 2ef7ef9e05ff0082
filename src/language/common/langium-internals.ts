/**
 * The one place kvmod reaches into Langium's internals (members its API does not export). Each use elsewhere
 * goes through these accessors, and test/language/common/langium-internals.test.ts checks every member named
 * here on the installed Langium: an upgrade that renames or reshapes one fails that test instead of quietly
 * disabling a speed-up or breaking a batch run.
 *
 * - Langium's parser (`LangiumParser`): its CST builder, AST node stack, Chevrotain wrapper and the steps
 *   of `consume`/`subrule` (lean-cst.ts, kvmod-parser.ts, parse-guards.ts);
 * - the CST builder's stack of open nodes (lean-cst.ts);
 * - the linker's reference resolver, which the batch runs' compact references call (ast-traversal.ts), and the
 *   fields of Langium's reference class (`DefaultReferenceImpl`, not exported), which they copy; its `$refNode` is a
 *   writable own field, which syntax-release.ts clears once a batch document is validated.
 */
import type { IToken, TokenType } from 'chevrotain';
import type {
    AstNode,
    CompositeCstNode,
    CstNode,
    CstNodeBuilder,
    DefaultLinker,
    GrammarAST,
    LangiumParser,
} from 'langium';

/** The Langium version whose internals these are (the test compares it with the installed one). */
export const LANGIUM_INTERNALS_VERSION = '4.4.0';

/** The members of Langium's parser kvmod reads or replaces. */
export interface LangiumParserInternals {
    /** The CST builder (`CstNodeBuilder`; its `rootNode` and `nodeStack` are private). */
    nodeBuilder: CstBuilderInternals;
    /** The AST nodes under construction. */
    stack: object[];
    current: unknown;
    wrapper: { recoveryEnabled: boolean; input: unknown[]; wrapConsume(idx: number, tokenType: TokenType): IToken };
    unorderedGroups?: Map<unknown, unknown>;
    lexerResult?: unknown;
    isRecording(): boolean;
    isValidToken(token: IToken): boolean;
    extractHiddenTokens(token: IToken): IToken[];
    getAssignment(feature: GrammarAST.AbstractElement): { assignment?: unknown };
    consume(idx: number, tokenType: TokenType, feature: GrammarAST.AbstractElement): void;
    performSubruleAssignment(result: unknown, feature: GrammarAST.AbstractElement, cstNode: CstNode): void;
    construct(): unknown;
    rule(rule: GrammarAST.ParserRule, impl: (args: unknown) => void): unknown;
    startImplementation(
        type: unknown,
        infixName: string | undefined,
        impl: (args: unknown) => void,
    ): (args: unknown) => unknown;
}

/** The CST builder as the parser holds it: the members kvmod calls, replaces or clears. */
export interface CstBuilderInternals {
    addHiddenNodes(tokens: IToken[]): void;
    rootNode?: unknown;
    nodeStack: unknown[];
    /** The lean builder's pending keywords (lean-cst.ts). */
    pending?: unknown[];
}

/** The parser's internals (see `LangiumParserInternals`). */
export function parserInternals(parser: LangiumParser): LangiumParserInternals {
    return parser as unknown as LangiumParserInternals;
}

/** The CST builder's open composite nodes, innermost last. */
export function openCstNodes(builder: CstNodeBuilder): CompositeCstNode[] {
    return (builder as unknown as { nodeStack: CompositeCstNode[] }).nodeStack;
}

/** What resolves a reference when its target is read (`DefaultLinker.referenceResolver`). */
export interface ReferenceResolver {
    resolveReference(reference: object, node: AstNode, property: string): AstNode | undefined;
}

/** The linker's reference resolver. */
export function referenceResolverOf(linker: DefaultLinker): ReferenceResolver {
    return (linker as unknown as { referenceResolver: ReferenceResolver }).referenceResolver;
}

/**
 * The fields of Langium's reference (`DefaultReferenceImpl`) that the batch runs' references copy (ast-traversal.ts
 * `BatchReference`, batch-cst.ts `BatchStepNode`): `ref` reads `resolver.resolveReference(this, node, property)`,
 * which stores the target or the linking error in `_ref` and the description in `_nodeDescription`.
 */
export const REFERENCE_FIELDS = ['resolver', 'node', 'property', '_ref', '$refNode', '$refText'] as const;
export const REFERENCE_GETTERS = ['ref', '$nodeDescription', 'error'] as const;
