/**
 * PIDM hover: what a name stands for (an attribute's type and owner, a reference's target and
 * cardinality, an alias's path), followed by the declaration's doc comment. For a query, the collection
 * (and the index) that serves it when the composition root injected a `QueryCollectionLookup` service (the
 * language layer cannot import the transformation). For a parameter string (`"?city"`) in a WHERE
 * comparison: the parameter's name and type and the attribute it is compared with.
 */
import { CstUtils, type AstNode, type LangiumDocument, type MaybePromise } from 'langium';
import { MultilineCommentHoverProvider, type LangiumServices } from 'langium/lsp';
import type { Hover, HoverParams } from 'vscode-languageserver';
import type { PidmServices } from '../pidm/pidm-module.js';
import {
    isAttribute,
    isComparison,
    isEntity,
    isFromClause,
    isIdAttribute,
    isInclude,
    isQuery,
    isReference,
    isStringValue,
    type Comparison,
    type Entity,
    type Query,
    type Reference,
} from '../generated/ast.js';
import {
    attributeType,
    cardinalityKind,
    comparisonOperator,
    entityOfElement,
    parameterName,
    resolvePath,
} from '../pidm/pidm-semantics.js';

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

    /** A parameter string is no declaration or reference, so Langium's lookup by name never reaches it. */
    override async getHoverContent(document: LangiumDocument, params: HoverParams): Promise<Hover | undefined> {
        const root = document.parseResult?.value?.$cstNode;
        const leaf = root && CstUtils.findLeafNodeAtOffset(root, document.textDocument.offsetAt(params.position));
        const value = leaf?.astNode;
        if (leaf && isStringValue(value) && isComparison(value.$container)) {
            const text = describeParameter(value.$container);
            if (text) return { contents: { kind: 'markdown', value: text }, range: leaf.range };
        }
        return super.getHoverContent(document, params);
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

/**
 * `"?city"` in `FL.origin.city = "?city"`: the parameter's name (a bare `"?"` is named after its attribute, as
 * the transformation names it), its type (the attribute's) and what it is compared with. Undefined for a
 * literal.
 */
function describeParameter(comparison: Comparison): string | undefined {
    const name = parameterName(comparison.value);
    if (name === undefined) return undefined;
    const spelled = comparison.path.segments.map((segment) => segment.element.$refText).join('.');
    const attribute = resolvePath(comparison.path)?.attribute;
    const operator = comparisonOperator(comparison.operator);
    if (!attribute) return `parameter \`?${name}\` compared (\`${operator}\`) with \`${spelled}\``;
    const type = attributeType(attribute);
    const named = name === '' ? `\`?\` (named \`${attribute.name}\` after its attribute)` : `\`?${name}\``;
    return `parameter ${named}: \`${type}\`, compared (\`${operator}\`) with \`${spelled}\`: attribute \`${attribute.name}: ${type}\` of ${owner(attribute)}`;
}
