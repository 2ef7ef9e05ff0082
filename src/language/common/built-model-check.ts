/**
 * Validation of a model built in memory (the transformation's KVLM) without printing and parsing it: the
 * model is wrapped in a document, every cross-reference must be the node its written name links to — what
 * the linker would pick had the text been parsed — and then the language's checks run as on a parsed
 * file. The printer's faithfulness (printed text parses back to the same model) is a test property, so
 * this check and the round trip agree.
 */
import {
    DefaultScopeComputation,
    MultiMap,
    URI,
    type AstNode,
    type AstNodeDescription,
    type AstNodeLocator,
    type LangiumDocument,
    type LocalSymbols,
    type ReferenceInfo,
} from 'langium';
import type { LangiumCoreServices } from 'langium';
import type { Diagnostic } from 'vscode-languageserver';
import { forEachReference, pushChildren } from './ast-traversal.js';

/** Stable code of a cross-reference that would not link to the node the model holds. */
export const BUILT_MODEL_LINK_CODE = 'internal.unlinked-reference';

/** What `validateBuiltModel` checks besides the language's validation. */
export interface BuiltModelCheckOptions {
    /**
     * Check that every reference is the node its name links to (default true). A producer whose output the
     * tests prove (the transformation: its printed KVLM parses back to the same model, test/pipeline/transform.test.ts
     * and test/transformations/optimize-schema-property.test.ts) skips it: on a 1000 × 1000 model it is most of
     * the check's time, and it can only find a bug of the producer, never one of the user's model.
     */
    links?: boolean;
}

/**
 * Checks `model` as if it had been parsed from a file at `uri`: references first (a diagnostic with
 * `BUILT_MODEL_LINK_CODE` for each one that would link elsewhere or nowhere; see `BuiltModelCheckOptions.links`),
 * then the language's validation checks. The diagnostics have no position beyond the document start: there is no text.
 */
export async function validateBuiltModel(
    services: LangiumCoreServices,
    model: AstNode,
    uri: URI,
    options: BuiltModelCheckOptions = {},
): Promise<Diagnostic[]> {
    const document: LangiumDocument = services.shared.workspace.LangiumDocumentFactory.fromModel(model, uri);
    const diagnostics = options.links === false ? [] : await linkDiagnostics(services, document, model);
    diagnostics.push(...(await services.validation.DocumentValidator.validateDocument(document)));
    return diagnostics;
}

/** A diagnostic for each reference of `model` that would not link to the node it holds. */
async function linkDiagnostics(
    services: LangiumCoreServices,
    document: LangiumDocument,
    model: AstNode,
): Promise<Diagnostic[]> {
    // One walk for both passes: the nodes in `walkAst` order, parents first (millions on a large model, and a walk
    // reads every key of every node).
    const nodes: AstNode[] = [];
    for (const stack = [model]; stack.length > 0;) {
        const node = stack.pop()!;
        nodes.push(node);
        pushChildren(node, stack);
    }
    document.localSymbols = await localSymbolsOf(services, document, nodes);
    const scopes = services.references.ScopeProvider;
    const diagnostics: Diagnostic[] = [];
    const origin = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
    const check = (info: ReferenceInfo): void => {
        const { reference } = info;
        const target = 'ref' in reference ? reference.ref : undefined;
        const linked = scopes.getScope(info).getElement(reference.$refText)?.node;
        if (target !== undefined && linked === target) return;
        const node = info.container;
        const where = `${node.$type}.${info.property}${info.index !== undefined ? `[${info.index}]` : ''}`;
        diagnostics.push({
            range: origin,
            severity: 1,
            code: BUILT_MODEL_LINK_CODE,
            message:
                target === undefined
                    ? `The reference '${reference.$refText}' (${where}) points to nothing.`
                    : `The reference '${reference.$refText}' (${where}) would link to ${linked ? `another ${linked.$type}` : 'nothing'} in the printed text.`,
        });
    };
    for (const node of nodes) forEachReference(node, check);
    nodes.length = 0;
    return diagnostics;
}

/**
 * The document's local symbols, as the language's scope computation collects them. Langium's default
 * walks the AST with a stream, awaits `interruptAndCheck` before every node and makes a description per
 * named node that holds its path string and a closure: on a 1000 × 1000 model's KVLM (millions of nodes)
 * that was a gigabyte of heap and seconds of collection. For the default computation (the KVLM's) the same
 * nodes are visited in the same order (`walkAst` is `streamAllContents`' order; the root, having no container,
 * adds nothing), each named node is added to its container's symbols under the name provider's name, as
 * `addLocalSymbol` does, and its description computes the path only if asked: the scope provider reads
 * `name`, `type` and `node`. Another computation runs as it is.
 */
async function localSymbolsOf(
    services: LangiumCoreServices,
    document: LangiumDocument,
    nodes: readonly AstNode[],
): Promise<LocalSymbols> {
    const computation = services.references.ScopeComputation;
    const proto = DefaultScopeComputation.prototype as unknown as Record<string, unknown>;
    const own = computation as unknown as Record<string, unknown>;
    if (
        !(computation instanceof DefaultScopeComputation) ||
        own.collectLocalSymbols !== proto.collectLocalSymbols ||
        own.addLocalSymbol !== proto.addLocalSymbol
    )
        return computation.collectLocalSymbols(document);
    const names = services.references.NameProvider;
    const locator = services.workspace.AstNodeLocator;
    const symbols = new MultiMap<AstNode, AstNodeDescription>();
    for (const node of nodes) {
        const container = node.$container;
        if (!container) continue;
        const name = names.getName(node);
        if (name) symbols.add(container, new BuiltNodeDescription(node, name, document.uri, locator));
    }
    return symbols;
}

/** A description of a node built in memory: no text (so no segments), the path computed when read. */
class BuiltNodeDescription implements AstNodeDescription {
    readonly type: string;
    readonly nameSegment = undefined;
    readonly selectionSegment = undefined;
    constructor(
        readonly node: AstNode,
        readonly name: string,
        readonly documentUri: URI,
        private readonly locator: AstNodeLocator,
    ) {
        this.type = node.$type;
    }

    get path(): string {
        return this.locator.getAstNodePath(this.node);
    }
}
