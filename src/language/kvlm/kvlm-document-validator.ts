/**
 * Turns Langium's generic "Could not resolve reference" into KVLM's own diagnostics: one stable code per
 * kind of name (field, node, query, parameter), a message saying where the name was looked up, and a
 * did-you-mean hint among the names that would have resolved there.
 */
import { AstUtils, type AstReflection, type LangiumDocument, type LinkingError, type ValidationOptions } from 'langium';
import type { CancellationToken, Diagnostic } from 'vscode-languageserver';
import { codeSyntaxDiagnostics } from '../common/syntax-codes.js';
import { isCollection, isServedQuery } from '../generated/ast.js';
import { didYouMean, didYouMeanSentence } from '../common/did-you-mean.js';
import { GuardedDocumentValidator } from '../common/parse-guards.js';
import { nameOf } from '../common/partial-nodes.js';
import type { KvlmCoreServices } from './kvlm-core-module.js';
import { KvlmIssueCodes } from './kvlm-validator.js';

/** The extra data of an unresolved-name diagnostic (for quick fixes). */
export interface KvlmUnresolvedNameData {
    code: string;
    /** The name as written. */
    refText: string;
    /** Replacement names, best first. */
    suggestions: string[];
}

const WHAT: Record<string, { code: string; noun: string }> = {
    Field: { code: KvlmIssueCodes.UnresolvedField, noun: 'field' },
    Node: { code: KvlmIssueCodes.UnresolvedNode, noun: 'node' },
    ServedQuery: { code: KvlmIssueCodes.UnresolvedQuery, noun: 'query' },
    Parameter: { code: KvlmIssueCodes.UnresolvedParameter, noun: 'parameter' },
};

/** The KVLM document validator: KVLM's linking diagnostics, everything else as Langium does it. */
export class KvlmDocumentValidator extends GuardedDocumentValidator {
    private readonly reflection: AstReflection;

    constructor(services: KvlmCoreServices) {
        super(services);
        this.reflection = services.shared.AstReflection;
    }

    /** Langium's validation, then every syntax diagnostic gets its code. */
    override async validateDocument(
        document: LangiumDocument,
        options: ValidationOptions = {},
        cancelToken?: CancellationToken,
    ): Promise<Diagnostic[]> {
        return codeSyntaxDiagnostics(document, await super.validateDocument(document, options, cancelToken));
    }

    protected override processLinkingErrors(
        document: LangiumDocument,
        diagnostics: Diagnostic[],
        _options: ValidationOptions,
    ): void {
        for (const reference of document.references) {
            if (reference.error) diagnostics.push(this.linkingDiagnostic(reference.error, reference.$refNode?.range));
        }
    }

    private linkingDiagnostic(error: LinkingError, range: Diagnostic['range'] | undefined): Diagnostic {
        const info = error.info;
        const refText = info.reference.$refText;
        const type = this.reflection.getReferenceType(info);
        const what = WHAT[type] ?? { code: KvlmIssueCodes.UnresolvedField, noun: type };
        const collection = AstUtils.getContainerOfType(info.container, isCollection);
        const query = AstUtils.getContainerOfType(info.container, isServedQuery);
        let candidates: string[] = [];
        let where = '';
        if (type === 'Parameter' && query) {
            candidates = query.params.map((param) => param.name);
            where = nameOf(query) ? ` in query '${nameOf(query)}'` : '';
        } else if (collection) {
            where = nameOf(collection) ? ` in collection '${nameOf(collection)}'` : '';
            if (type === 'Field') candidates = collection.fields.map((field) => field.name);
            else if (type === 'Node')
                candidates = [collection.root, ...collection.nodes]
                    .filter((node) => node !== undefined)
                    .map((node) => node.name);
            else if (type === 'ServedQuery') candidates = collection.queries.map((served) => served.name);
        }
        const suggestions = didYouMean(refText, candidates);
        const data: KvlmUnresolvedNameData = { code: what.code, refText, suggestions };
        return this.toDiagnostic(
            'error',
            `Unknown ${what.noun} '${refText}'${where}.${didYouMeanSentence(suggestions)}`,
            {
                node: info.container,
                range,
                property: info.property,
                index: info.index,
                code: what.code,
                data,
            },
        );
    }
}
