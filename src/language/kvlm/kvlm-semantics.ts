/**
 * What a KVLM model means beyond its syntax: the comparisons of a filter, the path of a node from the
 * row grain's root, the nodes that multiply rows. Shared by the validator and the targets, and written
 * against names as well as linked references so that it works on ASTs built in memory too.
 */
import type { Reference } from 'langium';
import type { Collection, KComparison, KExpression, Node, ServedQuery } from '../generated/ast.js';

/** The name a reference stands for: its text, or its target's name in an AST built in memory. */
export function referencedName(reference: Pick<Reference, '$refText' | 'ref'> | undefined): string {
    const text = reference?.$refText || (reference?.ref as { name?: unknown } | undefined)?.name;
    return typeof text === 'string' ? text : '';
}

/** The comparisons of a filter, in reading order. */
export function comparisonsOf(expression: KExpression | undefined): KComparison[] {
    if (!expression) return [];
    switch (expression.$type) {
        case 'KBinaryExpression':
            return [...comparisonsOf(expression.left), ...comparisonsOf(expression.right)];
        case 'KNotExpression':
            return comparisonsOf(expression.operand);
        case 'KGroupExpression':
            return comparisonsOf(expression.inner);
        case 'KComparison':
            return [expression];
        default:
            // A node the parser's recovery left without its type: no comparison can be read from it.
            return [];
    }
}

/** True for the operators that compare by equality (`filtered`); the others order values (`ranged`). */
export function isEqualityOperator(operator: string): boolean {
    return operator === '=' || operator === '!=';
}

/** All nodes of a collection's row grain, root first, by name. */
export function nodesByName(collection: Collection): Map<string, Node> {
    const map = new Map<string, Node>();
    for (const node of [collection.root, ...(collection.nodes ?? [])]) {
        if (node && !map.has(node.name)) map.set(node.name, node);
    }
    return map;
}

/**
 * The nodes from the root down to `node` (both included), following parents by name; undefined when the
 * chain does not reach the root (an unknown parent or a cycle).
 */
export function pathFromRoot(collection: Collection, node: Node): Node[] | undefined {
    const byName = nodesByName(collection);
    const path: Node[] = [];
    const seen = new Set<Node>();
    let current: Node | undefined = node;
    while (current) {
        if (seen.has(current)) return undefined;
        seen.add(current);
        path.unshift(current);
        if (current.$type === 'RootNode') return path;
        current = current.parent?.ref ?? byName.get(referencedName(current.parent));
    }
    return undefined;
}

/** The include nodes reached through a multi-valued step: each multiplies the rows of the collection. */
export function multiValuedNodes(collection: Collection): Node[] {
    return (collection.nodes ?? []).filter((node) => node.cardinality === 'many');
}

/** The query a role or usage names, compared by identity when linked and by name otherwise. */
export function sameQuery(reference: Pick<Reference, '$refText' | 'ref'>, query: ServedQuery): boolean {
    return reference.ref === query || (reference.ref === undefined && referencedName(reference) === query.name);
}
