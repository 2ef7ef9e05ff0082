/**
 * The entity store schema of a Redis design (issue 28; docs/design/entity-store.md): which entities the design keeps,
 * each attribute's stored forms (its companions: those a collection field of the design copies), the attributes
 * whose values must be servable (compared or sorted by some query), and who references whom (reverse hashes). Built
 * from the source PIDM (entities, attributes, references) and the KVLM design (collections, queries). A design
 * without its PIDM (a `.kvlm` input whose source is unknown) gets no entity store: `reason` says why, and the target
 * turns it into a design warning. A counter-key collection keeps a row map (src/generation/shared/entity-store.ts).
 */
import {
    isAttribute,
    isIdAttribute,
    isKBinaryExpression,
    isKComparison,
    isKGroupExpression,
    isKNotExpression,
    isReference,
    type Cardinality,
    type Collection,
    type KExpression,
    type KvlmModel,
    type PidmModel,
} from '../../language/generated/ast.js';
import {
    attributeType,
    cardinalityKind,
    identifierName,
    identifierOf,
    SURROGATE_ID,
} from '../../language/pidm/pidm-semantics.js';
import {
    entityFunctionName,
    type EntityAttributeSchema,
    type EntityForm,
    type EntityReferenceSchema,
    type EntitySchema,
    type EntityStoreSchema,
} from '../shared/entity-store.js';
import type { RedisDialect } from '../shared/redis-dialects.js';

/** The entity store of a design, or why it has none. */
export type EntityStoreOutcome = { schema: EntityStoreSchema; reason: null } | { schema: null; reason: string };

/** What the schema is built from. */
export interface EntityStoreInput {
    kvlm: KvlmModel;
    /** The source PIDM model(s); absent for a `.kvlm` input whose source was not found. */
    pidm?: readonly PidmModel[];
    /** The RediSearch dialect, or null for redis-core (every value servable). */
    dialect: RedisDialect | null;
    /**
     * The companion forms the fields of a collection copy besides the stored form (none on redis-core): called once
     * per collection, its result once per field.
     */
    companions?: (collection: string) => ((field: string) => readonly EntityForm[]) | undefined;
}

/** The entity store schema of a design, or why the design has none. */
export function buildEntityStoreSchema(input: EntityStoreInput): EntityStoreOutcome {
    const { kvlm } = input;
    if (input.pidm === undefined || input.pidm.length === 0)
        return {
            schema: null,
            reason: 'the design was read from a .kvlm file without its source PIDM model, so the entities (their attributes and references) are unknown',
        };
    const entities: Record<string, EntitySchema> = {};
    for (const model of input.pidm) {
        for (const entity of model.entities) {
            if (Object.prototype.hasOwnProperty.call(entities, entity.name)) continue;
            const idAttribute = identifierOf(entity);
            const attributes: EntityAttributeSchema[] = [
                idAttribute
                    ? { name: idAttribute.name, type: attributeType(idAttribute), forms: [] }
                    : { name: SURROGATE_ID, type: 'text', forms: [] },
            ];
            const references: EntityReferenceSchema[] = [];
            for (const member of entity.members) {
                if (isAttribute(member) || (isIdAttribute(member) && member !== idAttribute))
                    attributes.push({ name: member.name, type: attributeType(member), forms: [] });
                else if (isReference(member))
                    references.push({
                        name: member.name,
                        target: member.target.ref?.name ?? member.target.$refText,
                        kind: cardinalityKind(member.cardinality),
                        ...bounds(member.cardinality),
                    });
            }
            entities[entity.name] = {
                name: entity.name,
                idName: identifierName(entity),
                idType: attributes[0].type,
                attributes,
                references,
                referrers: [],
            };
        }
    }
    for (const entity of Object.values(entities))
        for (const reference of entity.references)
            entities[reference.target]?.referrers.push({ entity: entity.name, reference: reference.name });
    for (const collection of kvlm.collections) noteUses(collection, entities, input.companions);
    return {
        schema: {
            database: kvlm.name,
            functionName: entityFunctionName(kvlm.name),
            dialect: input.dialect,
            entities,
        },
        reason: null,
    };
}

/** Marks the attributes a collection's fields copy with companions, and those its queries compare or sort on. */
function noteUses(
    collection: Collection,
    entities: Record<string, EntitySchema>,
    companions: EntityStoreInput['companions'],
): void {
    const entityOf = new Map<string, string>([[collection.root.name, collection.root.entity]]);
    for (const node of collection.nodes) entityOf.set(node.name, node.entity);
    const attributeOf = (field: { node: { ref?: { name: string }; $refText: string }; attribute: string }) =>
        attributesOf(entities, entityOf.get(field.node.ref?.name ?? field.node.$refText) ?? '').get(field.attribute);
    const formsOf = companions?.(collection.name);
    for (const field of collection.fields) {
        const forms = formsOf?.(field.name);
        if (forms === undefined || forms.length === 0) continue;
        const attribute = attributeOf(field);
        if (attribute === undefined) continue;
        for (const form of forms) if (!attribute.forms.includes(form)) attribute.forms.push(form);
    }
    const fieldNamed = (reference: { ref?: { name: string }; $refText: string }) =>
        collection.fields.find((field) => field.name === (reference.ref?.name ?? reference.$refText));
    // What the runtime's servable screen reads from the PIDM queries (searched texts): texts and floats compared
    // with any operator, texts sorted on.
    const visit = (expression: KExpression | undefined): void => {
        if (expression === undefined) return;
        if (isKBinaryExpression(expression)) {
            visit(expression.left);
            visit(expression.right);
        } else if (isKNotExpression(expression)) visit(expression.operand);
        else if (isKGroupExpression(expression)) visit(expression.inner);
        else if (isKComparison(expression)) {
            const field = fieldNamed(expression.field);
            const attribute = field && attributeOf(field);
            if (attribute && (attribute.type === 'text' || attribute.type === 'float')) attribute.compared = true;
        }
    };
    for (const query of collection.queries) {
        visit(query.where);
        for (const key of query.sortKeys) {
            const field = fieldNamed(key.field);
            const attribute = field && attributeOf(field);
            if (attribute && attribute.type === 'text') attribute.sorted = true;
        }
    }
}

/** An entity's attributes by name, built once per entity (a design's collections look up every field). */
const attributeMaps = new WeakMap<EntitySchema, Map<string, EntityAttributeSchema>>();
function attributesOf(entities: Record<string, EntitySchema>, entity: string): Map<string, EntityAttributeSchema> {
    const schema = Object.prototype.hasOwnProperty.call(entities, entity) ? entities[entity] : undefined;
    if (schema === undefined) return new Map();
    let map = attributeMaps.get(schema);
    if (map === undefined) {
        map = new Map(schema.attributes.map((attribute) => [attribute.name, attribute]));
        attributeMaps.set(schema, map);
    }
    return map;
}

/** Element bounds of a multi-valued reference (as the runtime model reads them). */
function bounds(cardinality: Cardinality | undefined): { minItems: number; maxItems?: number } {
    if (!cardinality || cardinality.many) return { minItems: 0 };
    const lower = cardinality.lower ?? 0;
    if (cardinality.upperMany) return { minItems: lower };
    if (cardinality.upper !== undefined) return { minItems: lower, maxItems: cardinality.upper };
    return { minItems: lower, maxItems: lower };
}
