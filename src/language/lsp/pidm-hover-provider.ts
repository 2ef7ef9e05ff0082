/**
 * PIDM hover: what a name stands for (an attribute's type and owner, a reference's target and
 * cardinality, an alias's path), followed by the declaration's doc comment. For a query, the collection
 * that serves it when the composition root injected a `QueryCollectionLookup` service (the language layer
 * cannot import the transformation).
 */
import type { AstNode, MaybePromise } from 'langium';
import { MultilineCommentHoverProvider, type LangiumServices } from 'langium/lsp';
import type { PidmServices } from '../pidm/pidm-module.js';
import {
    isAttribute,
    isEntity,
    isFromClause,
    isIdAttribute,
    isInclude,
    isQuery,
    isReference,
    type Entity,
    type Query,
    type Reference,
} from '../generated/ast.js';
import { attributeType, cardinalityKind, entityOfElement } from '../pidm/pidm-semantics.js';

/** Answers "which collection serves this query?" with a markdown line, or undefined when unknown. */
export type QueryCollectionLookup = (query: Query) => MaybePromise<string | undefined>;

/** Hover text for PIDM declarations and everything that refers to them. */
export class PidmHoverProvider extends MultilineCommentHoverProvider {
    /** The injected lookup (`lsp.QueryCollectionLookup`); absent outside the language server. */
    private readonly queryCollection?: QueryCollectionLookup;

    constructor(services: LangiumServices & Partial<Pick<PidmServices, 'lsp'>>) {
        super(services);
        this.queryCollection = services.lsp?.QueryCollectionLookup;
    }

    override async getAstNodeHoverContent(node: AstNode): Promise<string | undefined> {
        const summary = await this.summarize(node);
        const documentation = super.getAstNodeHoverContent(node);
        const parts = [summary, documentation].filter((part): part is string => !!part);
        return parts.length > 0 ? parts.join('\n\n---\n\n') : undefined;
    }

    private async summarize(node: AstNode): Promise<string | undefined> {
        if (isAttribute(node)) {
            return `attribute \`${node.name}: ${attributeType(node)}\` of ${owner(node)}`;
        }
        if (isIdAttribute(node)) {
            const unique = node.unique ? ', unique' : '';
            return `identifier \`${node.name}: ${attributeType(node)}\` of ${owner(node)}${unique}`;
        }
        if (isReference(node)) {
            return `reference \`${node.name}\` of ${owner(node)} → ${referenceTarget(node)}`;
        }
        if (isEntity(node)) {
            return describeEntity(node);
        }
        if (isFromClause(node)) {
            return `\`${node.alias ?? node.entity.$refText}\`: the FROM entity **${node.entity.$refText}**`;
        }
        if (isInclude(node)) {
            const last = node.path.segments.at(-1)?.element.ref;
            const entity = entityOfElement(node);
            const spelled = node.path.segments.map((segment) => segment.element.$refText).join('.');
            const cardinality = isReference(last) ? ` (${cardinalityKind(last.cardinality)})` : '';
            return `include \`${spelled}\` → **${entity?.name ?? '?'}**${cardinality}`;
        }
        if (isQuery(node)) {
            const from = node.from.entity.$refText;
            const head = `query **${node.name}**: ${node.projections.length} projection(s) from **${from}**`;
            const collection = await this.queryCollection?.(node);
            return collection ? `${head}\n\n${collection}` : head;
        }
        return undefined;
    }
}

function owner(member: AstNode): string {
    const entity = member.$container;
    return isEntity(entity) ? `**${entity.name}**` : 'an entity';
}

function referenceTarget(reference: Reference): string {
    const kind = cardinalityKind(reference.cardinality);
    const cardinality = reference.cardinality?.$cstNode?.text ?? '';
    return `**${reference.target.$refText}** \`${cardinality}\` (${kind})`;
}

function describeEntity(entity: Entity): string {
    const attributes = entity.members.filter((member) => isAttribute(member) || isIdAttribute(member)).length;
    const references = entity.members.filter(isReference).length;
    const identifier = entity.members.find(isIdAttribute)?.name;
    const id = identifier ? `identified by \`${identifier}\`` : 'no `id` (a surrogate `_id` is used)';
    return `entity **${entity.name}**: ${attributes} attribute(s), ${references} reference(s), ${id}`;
}
