/**
 * Validation of a model built in memory (the transformation's KVLM) without printing and parsing it: the
 * model is wrapped in a document, every cross-reference must be the node its written name links to — what
 * the linker would pick had the text been parsed — and then the language's checks run as on a parsed
 * file. The printer's faithfulness (printed text parses back to the same model) is a test property, so
 * this check and the round trip agree.
 */
import { URI, type AstNode, type LangiumDocument, type ReferenceInfo } from 'langium';
import type { LangiumServices } from 'langium/lsp';
import type { Diagnostic } from 'vscode-languageserver';
import { forEachReference, walkAst } from './ast-traversal.js';

/** Stable code of a cross-reference that would not link to the node the model holds. */
export const BUILT_MODEL_LINK_CODE = 'internal.unlinked-reference';

/**
 * Checks `model` as if it had been parsed from a file at `uri`: references first (a diagnostic with
 * `BUILT_MODEL_LINK_CODE` for each one that would link elsewhere or nowhere), then the language's
 * validation checks. The diagnostics have no position beyond the document start: there is no text.
 */
export async function validateBuiltModel(services: LangiumServices, model: AstNode, uri: URI): Promise<Diagnostic[]> {
    const document: LangiumDocument = services.shared.workspace.LangiumDocumentFactory.fromModel(model, uri);
    document.localSymbols = await services.references.ScopeComputation.collectLocalSymbols(document);
    const scopes = services.references.ScopeProvider;
    const diagnostics: Diagnostic[] = [];
    const origin = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
    for (const node of walkAst(model)) {
        const references: ReferenceInfo[] = [];
        forEachReference(node, (info) => references.push(info));
        for (const info of references) {
            const { reference } = info;
            const target = 'ref' in reference ? reference.ref : undefined;
            const linked = scopes.getScope(info).getElement(reference.$refText)?.node;
            if (target !== undefined && linked === target) continue;
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
        }
    }
    diagnostics.push(...(await services.validation.DocumentValidator.validateDocument(document)));
    return diagnostics;
}

