/**
 * The roles an entity attribute plays in a design: part of a row key, filtered (`=`, `!=`), ranged (`<`, `>=`…),
 * sorted (ORDER BY), projected (SELECT). Read from the design's copies (transformations/write-map, the report's write
 * map): each copy is a collection field with the roles its queries give it, or a natural key's part.
 * An update of a key part moves rows, of a filtered, ranged or sorted one moves index entries, of a projected-only
 * one rewrites fields in place: the workload patches each kind, the report's write map shows them.
 */
import type { FieldRoleKind, KvlmModel } from '../../language/generated/ast.js';
import { designCopies } from '../../../transformations/write-map/index.js';

export type AttributeRole = 'key' | FieldRoleKind;

/** Roles by entity, then attribute. An attribute no collection copies has no entry. */
export type AttributeRoles = Map<string, Map<string, Set<AttributeRole>>>;

/** The roles of every attribute the design copies: those of its copies in the write map, `key` for a key part. */
export function attributeRoles(design: KvlmModel): AttributeRoles {
    const roles: AttributeRoles = new Map();
    for (const [member, copies] of designCopies(design).attributes) {
        const dot = member.indexOf('.');
        const entity = member.slice(0, dot);
        let attributes = roles.get(entity);
        if (attributes === undefined) roles.set(entity, (attributes = new Map()));
        const set = new Set<AttributeRole>();
        for (const copy of copies) {
            for (const role of copy.roles) set.add(role as AttributeRole);
            if (copy.keyPart) set.add('key');
        }
        attributes.set(member.slice(dot + 1), set);
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
