/**
 * Turns Langium's generic "Could not resolve reference" into PIDM's own diagnostic: a stable code
 * (`pidm.unknown-name`, `pidm.ambiguous-name`), a message naming what was expected where (an attribute
 * of an entity, a reference, an alias, an entity), and a did-you-mean hint the quick fix applies.
 * A name that cannot resolve only because an earlier step failed is not reported again.
 */
import {
    DocumentValidator,
    type AstNode,
    type LangiumDocument,
    type LinkingError,
    type ReferenceInfo,
    type ScopeProvider,
    type ValidationOptions,
} from 'langium';
import type { CancellationToken, Diagnostic } from 'vscode-languageserver';
import { codeSyntaxDiagnostics } from '../common/syntax-codes.js';
import { sqlHabitAt } from './pidm-parser-messages.js';
import {
    isAttribute,
    isComparison,
    isFromClause,
    isIdAttribute,
    isInclude,
    isOrderItem,
    isPath,
    isProjection,
    isReference,
    isSegment,
    type Path,
    type Segment,
} from '../generated/ast.js';
import { didYouMean, didYouMeanSentence } from '../common/did-you-mean.js';
import { nameOf } from '../common/partial-nodes.js';
import { GuardedDocumentValidator } from '../common/parse-guards.js';
import { CaseFallbackScope } from './pidm-scope-provider.js';
import { containingQuery, entityOfElement } from './pidm-semantics.js';
import type { PidmCoreServices } from './pidm-core-module.js';
import { PidmIssueCodes } from './pidm-issue-codes.js';

/** What an unresolved name was expected to be, which decides the message and the suggestions. */
type Expectation = 'entity' | 'attribute' | 'reference' | 'alias-or-member';

/** The extra data of an unknown-name diagnostic, read by the quick fix. */
export interface UnknownNameData {
    code: string;
    /** The name as written. */
    refText: string;
    /** Replacement names, best first. */
    suggestions: string[];
}

/** The PIDM document validator: PIDM's linking diagnostics, everything else as Langium does it. */
export class PidmDocumentValidator extends GuardedDocumentValidator {
    private readonly scopeProvider: ScopeProvider;

    constructor(services: PidmCoreServices) {
        super(services);
        this.scopeProvider = services.references.ScopeProvider;
    }

    /** Langium's validation, then every syntax diagnostic gets its code (and SQL habits their advice). */
    override async validateDocument(document: LangiumDocument, options: ValidationOptions = {}, cancelToken?: CancellationToken): Promise<Diagnostic[]> {
        return codeSyntaxDiagnostics(document, await super.validateDocument(document, options, cancelToken), sqlHabitAt);
    }

    protected override processLinkingErrors(document: LangiumDocument, diagnostics: Diagnostic[], _options: ValidationOptions): void {
        for (const reference of document.references) {
            const error = reference.error;
            if (!error) continue;
            const range = reference.$refNode?.range;
            // A scoping crash surfaces as a linking error too: keep its message (it names the crash), not "unknown".
            let diagnostic: Diagnostic | undefined;
            if (!error.message.startsWith('An error occurred')) {
                try {
                    diagnostic = this.linkingDiagnostic(error, range);
                    // Nothing to say: an earlier step's failure is reported where it happens.
                    if (!diagnostic) continue;
                } catch {
                    diagnostic = undefined;
                }
            }
            diagnostics.push(diagnostic ?? this.toDiagnostic('error', error.message, {
                node: error.info.container,
                range,
                property: error.info.property,
                data: { code: DocumentValidator.LinkingError },
            }));
        }
    }

    private linkingDiagnostic(error: LinkingError, range: Diagnostic['range'] | undefined): Diagnostic | undefined {
        const info = error.info;
        const refText = info.reference.$refText;
        const container = info.container;
        let expectation: Expectation;
        let where = '';
        let because = '';
        if (isSegment(container)) {
            const context = this.segmentContext(container);
            if (!context) return undefined;
            ({ expectation, where, because } = context);
        } else if ((isReference(container) && info.property === 'target') || (isFromClause(container) && info.property === 'entity')) {
            expectation = 'entity';
        } else {
            return this.toDiagnostic('error', error.message, {
                node: container,
                range,
                property: info.property,
                code: PidmIssueCodes.UnknownName,
                data: { code: PidmIssueCodes.UnknownName, refText, suggestions: [] } satisfies UnknownNameData,
            });
        }
        const scope = this.scopeProvider.getScope(info as ReferenceInfo);
        const ambiguous = scope instanceof CaseFallbackScope ? scope.caseInsensitiveMatches(refText) : [];
        if (ambiguous.length > 1) {
            // In declaration order, whatever order the scope keeps them in.
            const ordered = [...ambiguous].sort((a, b) => (a.node?.$cstNode?.offset ?? 0) - (b.node?.$cstNode?.offset ?? 0));
            const names = [...new Set(ordered.map((description) => description.name))];
            const data: UnknownNameData = { code: PidmIssueCodes.AmbiguousName, refText, suggestions: names };
            return this.toDiagnostic(
                'error',
                `Ambiguous name '${refText}'${where}: it matches ${names.map((name) => `'${name}'`).join(' and ')} ignoring case; write one of them exactly.`,
                { node: container, range, property: info.property, code: data.code, data },
            );
        }
        const candidates = scope
            .getAllElements()
            .filter((description) => fitsExpectation(description.node, description.type, expectation))
            .map((description) => description.name)
            .toArray();
        const suggestions = didYouMean(refText, candidates);
        const data: UnknownNameData = { code: PidmIssueCodes.UnknownName, refText, suggestions };
        return this.toDiagnostic('error', `${unknownWhat(expectation)} '${refText}'${where}${because}.${didYouMeanSentence(suggestions)}`, {
            node: container,
            range,
            property: info.property,
            code: data.code,
            data,
        });
    }

    /**
     * What a path step should have been, where it was looked up (` of entity E`, ` in query Q`) and, for a
     * first step, why nothing matched; undefined when an earlier failure explains it.
     */
    private segmentContext(segment: Segment): { expectation: Expectation; where: string; because: string } | undefined {
        const path = segment.$container;
        const query = containingQuery(segment);
        const fromEntity = query?.from?.entity?.ref;
        if (!isPath(path) || !query || !fromEntity) return undefined;
        const index = path.segments.indexOf(segment);
        const last = index === path.segments.length - 1;
        const wantsAttribute = last && !isInclude(path.$container) && isValuePath(path);
        if (index > 0) {
            const previous = path.segments[index - 1]?.element?.ref;
            const entity = entityOfElement(previous);
            // An unresolved earlier step, a reference to an unknown entity, or a step through an attribute
            // is reported where it happens.
            if (!entity) return undefined;
            return { expectation: wantsAttribute ? 'attribute' : 'reference', where: ` of entity ${entity.name}`, because: '' };
        }
        if (wantsAttribute) return { expectation: 'attribute', where: ` of entity ${fromEntity.name}`, because: '' };
        return {
            expectation: 'alias-or-member',
            where: nameOf(query) ? ` in query ${nameOf(query)}` : '',
            because: `: it is neither an alias nor a reference of entity ${fromEntity.name}`,
        };
    }
}

/** Whether a path is read for a value (SELECT, WHERE, ORDER BY) rather than walked (INCLUDE). */
function isValuePath(path: Path): boolean {
    const owner = path.$container;
    return isProjection(owner) || isComparison(owner) || isOrderItem(owner);
}

function unknownWhat(expectation: Expectation): string {
    switch (expectation) {
        case 'entity': return 'Unknown entity';
        case 'attribute': return 'Unknown attribute';
        case 'reference': return 'Unknown reference';
        case 'alias-or-member': return 'Unknown alias or reference';
    }
}

/** Which candidates are worth suggesting: an attribute for an attribute, a step for a step. */
function fitsExpectation(node: AstNode | undefined, type: string, expectation: Expectation): boolean {
    switch (expectation) {
        case 'entity': return type === 'Entity';
        case 'attribute': return node ? isAttribute(node) || isIdAttribute(node) : type === 'Attribute' || type === 'IdAttribute';
        case 'reference':
        case 'alias-or-member':
            return node ? !isAttribute(node) && !isIdAttribute(node) : type !== 'Attribute' && type !== 'IdAttribute';
    }
}
