/**
 * The roles an entity attribute plays in a design: part of a row key, filtered (`=`, `!=`), ranged (`<`, `>=`…),
 * sorted (ORDER BY), projected (SELECT). Read from the KVLM: each collection field names the node (hence the entity)
 * and attribute it copies, and carries the roles its queries give it; the natural key names its parts the same way.
 * An update of a key part moves rows, of a filtered, ranged or sorted one moves index entries, of a projected-only
 * one rewrites fields in place: the workload patches each kind, the report's write map shows them.
 */
import { isNaturalKey, type FieldRoleKind, type KvlmModel } from '../../language/generated/ast.js';
import { collectionNodes } from '../materialize.js';

export type AttributeRole = 'key' | FieldRoleKind;

/** Roles by entity, then attribute. An attribute no collection copies has no entry. */
export type AttributeRoles = Map<string, Map<string, Set<AttributeRole>>>;

/** The roles of every attribute the design copies. */
export function attributeRoles(design: KvlmModel): AttributeRoles {
    const roles: AttributeRoles = new Map();
    const add = (entity: string, attribute: string, role: AttributeRole): void => {
        let attributes = roles.get(entity);
        if (attributes === undefined) roles.set(entity, (attributes = new Map()));
        let set = attributes.get(attribute);
        if (set === undefined) attributes.set(attribute, (set = new Set()));
        set.add(role);
    };
    for (const collection of design.collections) {
        const entityOf = new Map(collectionNodes(collection).map((node) => [node.key, node.entity]));
        const nodeEntity = (node: { ref?: { name: string }; $refText?: string }): string | undefined =>
            entityOf.get(node.ref?.name ?? node.$refText ?? '');
        for (const field of collection.fields) {
            const entity = nodeEntity(field.node);
            if (entity === undefined) continue;
            for (const role of field.roles) add(entity, field.attribute, role.kind);
        }
        if (isNaturalKey(collection.strategy))
            for (const part of collection.strategy.parts) {
                const entity = nodeEntity(part.node);
                if (entity !== undefined) add(entity, part.attribute, 'key');
            }
    }
    return roles;
}

/**
 * The one role a workload names an attribute by: `key` before `filtered`, `ranged`, `sorted`, and `projected` only
 * when the attribute has no other role (the cheapest update: fields rewritten in place).
 */
export function principalRole(roles: ReadonlySet<AttributeRole>): AttributeRole {
    for (const role of ['key', 'filtered', 'ranged', 'sorted'] as const) if (roles.has(role)) return role;
    return 'projected';
}
