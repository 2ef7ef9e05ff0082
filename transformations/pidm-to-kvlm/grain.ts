/**
 * The safe merge policy's rule: merging must not change any query's answer. A collection's rows are
 * the bindings of its include tree (inner-join semantics), so two collections can share rows only if
 * their trees bind the same way: the same FROM entity, and every node that one has and the other lacks
 * reached by a `[1]` step (exactly one target, so the extra node neither multiplies nor drops rows).
 * An extra `[*]` node repeats the other query's rows; an extra `[0..1]` node loses the rows where it
 * is absent.
 */
import type { CollectionModel, NodeModel } from './collection-model.js';

/** Why merging the two collections would change some answer, or undefined when their grains agree. */
export function grainConflict(left: CollectionModel, right: CollectionModel): string | undefined {
    if (left.rootEntity !== right.rootEntity) {
        return `different FROM entities: ${left.name} reads ${left.rootEntity}, ${right.name} reads ${right.rootEntity}`;
    }
    return extraPathConflict(left, right) ?? extraPathConflict(right, left);
}

/** The first node of `owner` that `other` lacks and that is not reached by a `[1]` step. */
function extraPathConflict(owner: CollectionModel, other: CollectionModel): string | undefined {
    let otherKeys: Set<string> | undefined;
    for (const node of owner.nodes) {
        if (node.cardinality === 'one') continue;
        otherKeys ??= new Set(other.nodes.map((candidate) => candidate.key));
        if (otherKeys.has(node.key)) continue;
        return describe(node, owner, other);
    }
    return undefined;
}

function describe(node: NodeModel, owner: CollectionModel, other: CollectionModel): string {
    if (node.cardinality === 'many') {
        return `${owner.name} has the extra multi-valued path ${node.key}: it would repeat the rows of ${other.name}`;
    }
    return `${owner.name} has the extra optional path ${node.key}: the rows of ${other.name} without one would be lost`;
}
