/**
 * PIDM completion for dotted paths. Langium completes a cross-reference on a synthetic segment that is not
 * part of any path (its container is whatever node the cursor is in), so the scope provider cannot tell
 * which step is being typed. Here the text before the cursor decides: after `FL.` the members of the
 * entity `FL` stands for; at the start of a path the query's aliases and the FROM entity's members (inside
 * an INCLUDE list only the aliases declared before the cursor, as the scope provider does).
 */
import {
    AstUtils,
    stream,
    type AstNode,
    type AstNodeDescription,
    type AstNodeDescriptionProvider,
    type ReferenceInfo,
    type Stream,
} from 'langium';
import type { CompletionContext, CompletionValueItem, LangiumServices } from 'langium/lsp';
import {
    isAttribute,
    isEntity,
    isFromClause,
    isIdAttribute,
    isInclude,
    isPath,
    isReference,
    isSegment,
    type Entity,
    type Query,
    type Segment,
} from '../generated/ast.js';
import { attributeType, cardinalityKind, containingQuery, entityOfElement } from '../pidm/pidm-semantics.js';
import { GuardedCompletionProvider } from './guarded-completion-provider.js';

/** Offers the right names in every part of a dotted path. */
export class PidmCompletionProvider extends GuardedCompletionProvider {
    private readonly descriptions: AstNodeDescriptionProvider;

    constructor(services: LangiumServices) {
        super(services);
        this.descriptions = services.workspace.AstNodeDescriptionProvider;
    }

    /** The name as label, and what it is in the modeler's words as detail (not the AST type name). */
    protected override createReferenceCompletionItem(
        description: AstNodeDescription,
        refInfo: ReferenceInfo,
        context: CompletionContext,
    ): CompletionValueItem {
        return {
            ...super.createReferenceCompletionItem(description, refInfo, context),
            detail: completionDetail(description),
        };
    }

    protected override getReferenceCandidates(
        refInfo: ReferenceInfo,
        context: CompletionContext,
    ): Stream<AstNodeDescription> {
        if (!isSegment(refInfo.container)) return super.getReferenceCandidates(refInfo, context);
        const previous = this.previousSegment(refInfo.container, context.tokenOffset, context.offset);
        if (previous) return this.members(entityOfElement(previous.element.ref));
        const query = containingQuery(refInfo.container);
        return query ? this.firstSteps(query, context.offset) : stream([]);
    }

    /** The step right before the cursor when the cursor continues a path after a dot. */
    private previousSegment(segment: Segment, tokenOffset: number, offset: number): Segment | undefined {
        let path: AstNode | undefined = segment.$container;
        if (isSegment(path)) path = path.$container;
        if (!isPath(path)) return undefined;
        const index = path.segments.indexOf(segment);
        if (index >= 0) return index > 0 ? path.segments[index - 1] : undefined;
        // A synthetic segment: the last step that ends before the name being typed, if only a dot (and the
        // partly typed name) separates it from the cursor.
        const before = path.segments.filter((step) => step.$cstNode && step.$cstNode.end <= tokenOffset).at(-1);
        const root = AstUtils.findRootNode(path).$cstNode;
        if (!before?.$cstNode || !root) return undefined;
        const between = root.text.slice(before.$cstNode.end - root.offset, offset - root.offset);
        return /^\s*\.\s*\w*$/.test(between) ? before : undefined;
    }

    /** What a path may start with: aliases first, then the FROM entity's members. */
    private firstSteps(query: Query, offset: number): Stream<AstNodeDescription> {
        const aliases: AstNodeDescription[] = [];
        const from = query.from;
        if (from) {
            if (from.alias) aliases.push(this.descriptions.createDescription(from, from.alias));
            if (from.entity?.$refText) aliases.push(this.descriptions.createDescription(from, from.entity.$refText));
        }
        for (const include of this.visibleIncludes(query, offset)) {
            const name = this.nameProvider.getName(include);
            if (name) aliases.push(this.descriptions.createDescription(include, name));
        }
        return stream(aliases).concat(this.members(from?.entity?.ref));
    }

    /** All includes, except inside the INCLUDE list, where only those written before the cursor are visible. */
    private visibleIncludes(query: Query, offset: number): Query['includes'] {
        const fromEnd = query.from?.$cstNode?.end ?? Number.MAX_SAFE_INTEGER;
        const clauseStarts = [query.where?.$cstNode?.offset, query.orderBy[0]?.$cstNode?.offset].filter(
            (n): n is number => n !== undefined,
        );
        const inIncludeList = offset > fromEnd && clauseStarts.every((start) => offset < start);
        if (!inIncludeList) return query.includes;
        return query.includes.filter((include) => include.$cstNode && include.$cstNode.end < offset);
    }

    private members(entity: Entity | undefined): Stream<AstNodeDescription> {
        if (!entity) return stream([]);
        return stream(entity.members).map((member) => this.descriptions.createDescription(member, member.name));
    }
}

/** `entity`, `attribute: text of Passenger`, `reference to Flight (many)`, `alias of Passenger`, … */
export function completionDetail(description: AstNodeDescription): string {
    const node = description.node;
    if (!node) return description.type.toLowerCase();
    if (isEntity(node)) return 'entity';
    if (isIdAttribute(node)) return `identifier: ${attributeType(node)} of ${node.$container.name}`;
    if (isAttribute(node)) return `attribute: ${attributeType(node)} of ${node.$container.name}`;
    if (isReference(node))
        return `reference to ${node.target?.$refText ?? '?'} (${cardinalityKind(node.cardinality)}) of ${node.$container.name}`;
    if (isFromClause(node)) return `alias of ${node.entity?.$refText ?? '?'} (FROM)`;
    if (isInclude(node)) return `alias of ${entityOfElement(node)?.name ?? '?'} (INCLUDE)`;
    return description.type.toLowerCase();
}
