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
    type LangiumDocuments,
    type LinkingError,
    type ParseResult,
    type ReferenceInfo,
    type ScopeProvider,
    type ValidationOptions,
} from 'langium';
import type { CancellationToken, Diagnostic } from 'vscode-languageserver';
import { codeSyntaxDiagnostics } from '../common/syntax-codes.js';
import { grammarRuleName } from '../common/syntax-messages.js';
import { sqlHabitAt } from './pidm-parser-messages.js';
import {
    isAttribute,
    isChangeRate,
    isComparison,
    isEntityCount,
    isQueryRate,
    isReferenceSize,
    isFromClause,
    isIdAttribute,
    isInclude,
    isOrderItem,
    isPath,
    isProjection,
    isReference,
    isEntity,
    isPidmModel,
    isSegment,
    type Cardinality,
    type Entity,
    type Path,
    type Query,
    type Reference,
    type Segment,
} from '../generated/ast.js';
import { didYouMean, didYouMeanSentence, editDistance } from '../common/did-you-mean.js';
import { nameOf } from '../common/partial-nodes.js';
import { GuardedDocumentValidator } from '../common/parse-guards.js';
import { CaseFallbackScope } from './pidm-scope-provider.js';
import { containingQuery, entityOfElement, includeAlias } from './pidm-semantics.js';
import type { PidmCoreServices } from './pidm-core-module.js';
import { PidmIssueCodes } from './pidm-issue-codes.js';

/** What an unresolved name was expected to be, which decides the message and the suggestions. */
type Expectation = 'entity' | 'attribute' | 'reference' | 'alias-or-member' | 'query' | 'member';

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

    private readonly documents: () => LangiumDocuments;

    constructor(services: PidmCoreServices) {
        super(services);
        this.scopeProvider = services.references.ScopeProvider;
        // Resolved lazily: the shared services are still being built when the language's are.
        this.documents = () => services.shared.workspace.LangiumDocuments;
    }

    /** Langium's validation, then every syntax diagnostic gets its code (and SQL habits their advice). */
    override async validateDocument(
        document: LangiumDocument,
        options: ValidationOptions = {},
        cancelToken?: CancellationToken,
    ): Promise<Diagnostic[]> {
        const diagnostics = await super.validateDocument(document, options, cancelToken);
        // Looked up only for an advised syntax error: most documents have none.
        let entities: Entity[] | undefined;
        const model = { entities: () => (entities ??= this.habitEntities(document)) };
        return codeSyntaxDiagnostics(document, diagnostics, (text, offset) => sqlHabitAt(text, offset, model));
    }

    /** Langium's parsing diagnostics, without the echoes of a wrong type word (`typeWordEchoes`). */
    protected override processParsingErrors(
        parseResult: ParseResult,
        diagnostics: Diagnostic[],
        options: ValidationOptions,
    ): void {
        const echoes = typeWordEchoes(parseResult.parserErrors);
        if (echoes.size === 0) return super.processParsingErrors(parseResult, diagnostics, options);
        super.processParsingErrors(
            { ...parseResult, parserErrors: parseResult.parserErrors.filter((error) => !echoes.has(error)) },
            diagnostics,
            options,
        );
    }

    protected override processLinkingErrors(
        document: LangiumDocument,
        diagnostics: Diagnostic[],
        _options: ValidationOptions,
    ): void {
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
            diagnostics.push(
                diagnostic ??
                    this.toDiagnostic('error', error.message, {
                        node: error.info.container,
                        range,
                        property: error.info.property,
                        data: { code: DocumentValidator.LinkingError },
                    }),
            );
        }
    }

    private linkingDiagnostic(error: LinkingError, range: Diagnostic['range'] | undefined): Diagnostic | undefined {
        const info = error.info;
        const refText = info.reference.$refText;
        const container = info.container;
        let expectation: Expectation;
        let where = '';
        let because = '';
        let context: SegmentContext | undefined;
        if (isSegment(container)) {
            context = this.segmentContext(container);
            if (!context) return undefined;
            ({ expectation, where, because } = context);
        } else if (
            (isReference(container) && info.property === 'target') ||
            ((isFromClause(container) ||
                isChangeRate(container) ||
                isEntityCount(container) ||
                isReferenceSize(container)) &&
                info.property === 'entity')
        ) {
            expectation = 'entity';
        } else if (isQueryRate(container) && info.property === 'query') {
            expectation = 'query';
        } else if (
            (isChangeRate(container) && info.property === 'member') ||
            (isReferenceSize(container) && info.property === 'reference')
        ) {
            const entity = container.entity?.ref;
            // An unknown entity is reported where it is written.
            if (!entity) return undefined;
            expectation = isReferenceSize(container) ? 'reference' : 'member';
            where = ` of entity ${entity.name}`;
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
            const ordered = [...ambiguous].sort(
                (a, b) => (a.node?.$cstNode?.offset ?? 0) - (b.node?.$cstNode?.offset ?? 0),
            );
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
        const similar = didYouMean(refText, candidates);
        // An attribute another alias of the query has: the path through that alias is the likelier fix.
        const elsewhere =
            context && expectation === 'attribute' ? aliasesWithAttribute(context.query, context.entity, refText) : [];
        // A reference walked the wrong way, unless the name is a slip of one that exists.
        const backwards = context && expectation !== 'attribute' && similar.length === 0 ? context : undefined;
        const hint =
            elsewhere.length > 0
                ? `: ${elsewhereSentence(elsewhere, refText)}`
                : backwards
                  ? oneWaySentence(refText, backwards.entity, this.entities(backwards.query))
                  : '';
        const suggestions = [...elsewhere.map((found) => `${found.alias}.${refText}`), ...similar];
        const data: UnknownNameData = { code: PidmIssueCodes.UnknownName, refText, suggestions };
        return this.toDiagnostic(
            'error',
            `${unknownWhat(expectation)} '${refText}'${where}${hint || because}.${didYouMeanSentence(similar)}`,
            {
                node: container,
                range,
                property: info.property,
                code: data.code,
                data,
            },
        );
    }

    /** The entities the SQL-habit advice may quote: the document's own, then those of the other PIDM files. */
    private habitEntities(document: LangiumDocument): Entity[] {
        const own = isPidmModel(document.parseResult?.value) ? document.parseResult.value.entities : [];
        const others = this.documents()
            .all.filter((other) => other !== document)
            .flatMap((other) => (isPidmModel(other.parseResult?.value) ? other.parseResult.value.entities : []))
            .toArray();
        return [...own, ...others];
    }

    /** The entities a query's FROM clause can name (the model's, as the scope provider sees them). */
    private entities(query: Query): Entity[] {
        const from = query.from;
        if (!from?.entity) return [];
        const scope = this.scopeProvider.getScope({ container: from, property: 'entity', reference: from.entity });
        return scope
            .getAllElements()
            .map((description) => description.node)
            .filter(isEntity)
            .toArray();
    }

    /**
     * What a path step should have been, where it was looked up (` of entity E`, ` in query Q`) and, for a
     * first step, why nothing matched; undefined when an earlier failure explains it.
     */
    private segmentContext(segment: Segment): SegmentContext | undefined {
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
            return {
                expectation: wantsAttribute ? 'attribute' : 'reference',
                where: ` of entity ${entity.name}`,
                because: '',
                entity,
                query,
            };
        }
        if (wantsAttribute)
            return {
                expectation: 'attribute',
                where: ` of entity ${fromEntity.name}`,
                because: '',
                entity: fromEntity,
                query,
            };
        return {
            expectation: 'alias-or-member',
            where: nameOf(query) ? ` in query ${nameOf(query)}` : '',
            because: `: it is neither an alias nor a reference of entity ${fromEntity.name}`,
            entity: fromEntity,
            query,
        };
    }
}

/** Where a path step was looked up: what it should have been, the entity it was looked up in, its query. */
interface SegmentContext {
    expectation: Expectation;
    where: string;
    because: string;
    entity: Entity;
    query: Query;
}

/** An alias of a query whose entity has a member of some name. */
interface AliasWithMember {
    alias: string;
    entity: Entity;
}

/** The aliases of a query (FROM and INCLUDE) whose entity, other than `entity`, has an attribute named `name`. */
function aliasesWithAttribute(query: Query, entity: Entity, name: string): AliasWithMember[] {
    const found: AliasWithMember[] = [];
    const consider = (alias: string | undefined, other: Entity | undefined) => {
        if (!alias || !other || other === entity || found.some((entry) => entry.alias === alias)) return;
        if (other.members.some((member) => (isAttribute(member) || isIdAttribute(member)) && member.name === name))
            found.push({ alias, entity: other });
    };
    const from = query.from?.entity?.ref;
    consider(query.from?.alias ?? from?.name, from);
    for (const include of query.includes ?? []) consider(includeAlias(include), entityOfElement(include));
    return found;
}

/** `Prescription has it, included as RX; write RX.dosage` (or several such aliases). */
function elsewhereSentence(found: readonly AliasWithMember[], name: string): string {
    const [first, ...others] = found;
    const also = others.map((entry) => `, or ${entry.alias}.${name} (${entry.entity.name})`).join('');
    return `${first.entity.name} has it, included as ${first.alias}; write ${first.alias}.${name}${also}`;
}

/**
 * Why no reference `name` leads on from `entity` when some entity refers to it: references go one way, from the
 * entity that declares them. Names the declared reference (the one whose entity's name is closest to `name`:
 * `appointments` for Appointment) and both ways out; empty when no entity refers to `entity`.
 */
function oneWaySentence(name: string, entity: Entity, entities: readonly Entity[]): string {
    const reverse: { owner: Entity; reference: Reference }[] = [];
    for (const owner of entities) {
        for (const member of owner.members ?? []) {
            // A reference or entity a syntax error left without its name cannot be quoted.
            if (isReference(member) && member.name && owner.name && member.target?.ref === entity && owner !== entity) {
                reverse.push({ owner, reference: member });
            }
        }
    }
    if (reverse.length === 0) return '';
    const lowered = name.toLowerCase();
    const closeness = (owner: Entity) => editDistance(lowered.slice(0, owner.name.length), owner.name.toLowerCase());
    const { owner, reference } = reverse.reduce((best, next) =>
        closeness(next.owner) < closeness(best.owner) ? next : best,
    );
    const declared = `ref ${entity.name}${cardinalitySpelling(reference.cardinality)} ${reference.name}`;
    return (
        `: references go one way, from the entity that declares them; ${owner.name} declares ${declared}, to ${entity.name}. ` +
        `Query FROM ${owner.name}, or declare ref ${owner.name}[*] ${name} in ${entity.name}`
    );
}

/** A cardinality as written in brackets: `[1]`, `[0..1]`, `[*]`, `[1..*]`. */
function cardinalitySpelling(cardinality: Cardinality | undefined): string {
    if (!cardinality || cardinality.many) return '[*]';
    const upper = cardinality.upperMany ? '..*' : cardinality.upper !== undefined ? `..${cardinality.upper}` : '';
    return `[${cardinality.lower ?? ''}${upper}]`;
}

type ParserError = ParseResult['parserErrors'][number];

/** Whether a parser error is a missing type of an attribute: `name txt`, where `txt` is no type. */
function isTypeWordError(error: ParserError): boolean {
    const stack = (error as { context?: { ruleStack?: string[] } }).context?.ruleStack ?? [];
    return (
        stack.length >= 2 &&
        grammarRuleName(stack.at(-1)) === 'DataType' &&
        grammarRuleName(stack.at(-2)) === 'Attribute'
    );
}

/**
 * The parser errors that only echo a wrong type word. After `name txt` the parser's recovery reads `txt` again as the
 * name of the next attribute, which then "lacks" its type: the next line's `born date` errors at `born`. An error at
 * the word right after a reported type-word error, that again wants a type, is that echo; an echo reports nothing
 * itself, so the word after it is checked as usual (`name txt` then `born dte`: two errors, at `txt` and `dte`).
 */
function typeWordEchoes(errors: readonly ParserError[]): Set<ParserError> {
    const echoes = new Set<ParserError>();
    const reportedAt = new Set<number>();
    for (const error of errors) {
        if (!isTypeWordError(error)) continue;
        const previous = (error as { previousToken?: { startOffset: number } }).previousToken;
        if (previous && reportedAt.has(previous.startOffset)) echoes.add(error);
        else reportedAt.add(error.token.startOffset);
    }
    return echoes;
}

/** Whether a path is read for a value (SELECT, WHERE, ORDER BY) rather than walked (INCLUDE). */
function isValuePath(path: Path): boolean {
    const owner = path.$container;
    return isProjection(owner) || isComparison(owner) || isOrderItem(owner);
}

function unknownWhat(expectation: Expectation): string {
    switch (expectation) {
        case 'entity':
            return 'Unknown entity';
        case 'attribute':
            return 'Unknown attribute';
        case 'reference':
            return 'Unknown reference';
        case 'alias-or-member':
            return 'Unknown alias or reference';
        case 'query':
            return 'Unknown query';
        case 'member':
            return 'Unknown attribute or reference';
    }
}

/** Which candidates are worth suggesting: an attribute for an attribute, a step for a step. */
function fitsExpectation(node: AstNode | undefined, type: string, expectation: Expectation): boolean {
    switch (expectation) {
        case 'entity':
            return type === 'Entity';
        case 'query':
            return type === 'Query';
        case 'member':
            return true;
        case 'attribute':
            return node ? isAttribute(node) || isIdAttribute(node) : type === 'Attribute' || type === 'IdAttribute';
        case 'reference':
        case 'alias-or-member':
            return node ? !isAttribute(node) && !isIdAttribute(node) : type !== 'Attribute' && type !== 'IdAttribute';
    }
}
