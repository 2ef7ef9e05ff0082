/**
 * A PIDM model's entities as plain objects, detached from the Langium document they were parsed into: every
 * entity, member and cardinality copied with its properties (`$type`, `$container` re-pointed to the copy), every
 * cross-reference a plain `{ ref, $refText }` whose `ref` is the copy of its target, no syntax tree, no document.
 *
 * A design that reads only the entities (the Redis entity store) gets these instead of the models, so that the
 * parsed document — its queries, syntax stand-ins, scopes and the workspace index that reaches them through the
 * exported symbols — can be freed before the KVLM is checked and the design is built. A node the copy does not
 * own (a reference to something outside the entities) keeps only its text.
 */
import type { AstNode } from 'langium';
import type { PidmModel } from '../generated/ast.js';

/** Properties of a node that belong to the document, not to the model. */
const DOCUMENT_PROPERTIES = new Set(['$container', '$containerProperty', '$containerIndex', '$cstNode', '$document']);

/** Each model with its entities copied (see the file comment); `queries` and `workloads` are empty. */
export function detachedEntities(models: readonly PidmModel[]): PidmModel[] {
    const copies = new Map<AstNode, AstNode>();
    const references: [CopiedReference, AstNode | undefined][] = [];

    const copyValue = (value: unknown, container: AstNode): unknown => {
        if (Array.isArray(value)) return value.map((item) => copyValue(item, container));
        if (typeof value !== 'object' || value === null) return value;
        if (isNode(value)) return copyNode(value, container);
        if (isCrossReference(value)) {
            const reference: CopiedReference = { ref: undefined, $refText: value.$refText };
            references.push([reference, value.ref]);
            return reference;
        }
        return value;
    };
    const copyNode = (node: AstNode, container: AstNode | undefined): AstNode => {
        const copy: Record<string, unknown> = { $type: node.$type };
        if (container !== undefined) copy.$container = container;
        copies.set(node, copy as unknown as AstNode);
        for (const key of Object.keys(node)) {
            if (DOCUMENT_PROPERTIES.has(key) || key === '$type') continue;
            copy[key] = copyValue((node as unknown as Record<string, unknown>)[key], copy as unknown as AstNode);
        }
        return copy as unknown as AstNode;
    };

    const result = models.map((model) => {
        const copy = { $type: model.$type, entities: [], queries: [], workloads: [] } as unknown as PidmModel;
        (copy as { entities: unknown[] }).entities = model.entities.map((entity) => copyNode(entity, copy));
        return copy;
    });
    // Re-pointed once every entity is copied: an entity may name one declared after it.
    for (const [reference, target] of references) reference.ref = target === undefined ? undefined : copies.get(target);
    // Emptied rather than left to the collector: a handle to the map could outlive this call (V8 was seen keeping
    // it from a handle scope), and its keys are the parsed nodes this copy exists to let go.
    copies.clear();
    references.length = 0;
    return result;
}

/** A copied cross-reference. */
interface CopiedReference {
    ref: AstNode | undefined;
    readonly $refText: string;
}

function isNode(value: object): value is AstNode {
    return typeof (value as { $type?: unknown }).$type === 'string';
}

/** A Langium cross-reference (its `ref` may be a getter that links on first read). */
function isCrossReference(value: object): value is { ref?: AstNode; $refText: string } {
    return typeof (value as { $refText?: unknown }).$refText === 'string';
}
