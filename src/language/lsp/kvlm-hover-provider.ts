/**
 * KVLM hover: what a field, node, query or parameter of a collection is, read from the model itself (a
 * `.kvlm` file is generated, so the explanation of why a field exists is worth more than a doc comment).
 */
import type { AstNode } from 'langium';
import { MultilineCommentHoverProvider, type LangiumServices } from 'langium/lsp';
import {
    isCollection,
    isField,
    isNaturalKey,
    isParameter,
    isPathNode,
    isRootNode,
    isServedQuery,
    type Collection,
    type Field,
} from '../generated/ast.js';

/** Hover text for KVLM declarations and the references to them. */
export class KvlmHoverProvider extends MultilineCommentHoverProvider {
    constructor(services: LangiumServices) {
        super(services);
    }

    override getAstNodeHoverContent(node: AstNode): string | undefined {
        const summary = summarize(node);
        const documentation = super.getAstNodeHoverContent(node);
        const parts = [summary, documentation].filter((part): part is string => !!part);
        return parts.length > 0 ? parts.join('\n\n---\n\n') : undefined;
    }
}

function summarize(node: AstNode): string | undefined {
    if (isField(node)) return describeField(node);
    if (isCollection(node)) return describeCollection(node);
    if (isRootNode(node)) return `root node \`${node.name}\`: one row per **${node.entity}**`;
    if (isPathNode(node)) {
        return `node \`${node.name}\` = \`${node.parent.$refText}.${node.reference}\` → **${node.entity}** (${node.cardinality})`;
    }
    if (isServedQuery(node)) {
        const params = node.params.map((param) => `\`${param.name}: ${param.type}\``).join(', ');
        const collection = node.$container as Collection;
        return `query **${node.name}** served by collection **${collection.name}**${params ? `; parameters ${params}` : ''}`;
    }
    if (isParameter(node)) return `parameter \`${node.name}: ${node.type}\``;
    return undefined;
}

function describeField(field: Field): string {
    const head = `field \`${field.name}: ${field.type}\` = \`${field.node.$refText}.${field.attribute}\``;
    const label = field.label ? ` (label ${JSON.stringify(field.label)})` : '';
    const roles = field.roles.map(
        (role) => `${role.kind} by ${role.queries.map((query) => `\`${query.$refText}\``).join(', ')}`,
    );
    const indexed = field.indexed ? ['indexed (some query sorts on it)'] : [];
    const reasons = [...indexed, ...roles];
    return `${head}${label}${reasons.length > 0 ? `\n\n${reasons.join('; ')}` : ''}`;
}

function describeCollection(collection: Collection): string {
    const key = isNaturalKey(collection.strategy)
        ? `natural(${collection.strategy.parts.map((part) => `${part.node.$refText}.${part.attribute}`).join(', ')})`
        : 'counter';
    const queries = collection.queries.map((query) => `\`${query.name}\``).join(', ');
    return `collection **${collection.name}**: key \`${collection.keyField}\` ${key}; ${collection.fields.length} field(s); serves ${queries || 'no query'}`;
}
