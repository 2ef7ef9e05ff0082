/**
 * The design data of the DynamoDB entity operations (`DynamoEntityDesign`): the entities, and per collection its join
 * path, fields, row key and table keys. The generated client embeds it (`ENTITY_DESIGN`) and kvmod's own writers
 * (`kvmod load`, the workload, the live check) build the same from the same design, so both run one semantics
 * (client-runtime/kvmod-dynamo-operations.ts). Pure.
 */
import { isNaturalKey, type KvlmModel } from '../../language/generated/ast.js';
import type {
    DynamoEntityDesign,
    DynamoEntitySchema,
    DynamoRowCollection,
} from '../typescript/client-runtime/kvmod-dynamo-operations.js';
import type { KeyType } from './dynamodb-keys.js';
import type { DynamoViewModel } from './dynamodb-view-model.js';

/** An entity as the design reads it (the runtime model's and the entity store schema's shape). */
export interface DesignEntity {
    name: string;
    idName: string;
    idType: string;
    attributes: readonly { name: string; type: string }[];
    references: readonly {
        name: string;
        target: string;
        kind: 'one' | 'optional' | 'many';
        minItems: number;
        maxItems?: number;
    }[];
}

/** The name a cross-reference points to, for parsed and in-memory ASTs alike. */
function refName(reference: { ref?: { name: string }; $refText?: string }): string {
    return reference.ref?.name ?? reference.$refText ?? '';
}

/**
 * The entity design of a DynamoDB design, or null where it keeps no entity store (a counter key, whose numbers shift
 * when entities change).
 */
export function dynamoEntityDesign(
    view: DynamoViewModel,
    kvlm: KvlmModel,
    entities: Iterable<DesignEntity>,
): DynamoEntityDesign | null {
    if (kvlm.collections.some((collection) => !isNaturalKey(collection.strategy))) return null;
    const schemas: Record<string, DynamoEntitySchema> = {};
    for (const entity of entities)
        schemas[entity.name] = {
            name: entity.name,
            idName: entity.idName,
            idType: entity.idType as KeyType,
            attributes: entity.attributes.map(({ name, type }) => ({ name, type: type as KeyType })),
            references: entity.references.map(({ name, target, kind, minItems, maxItems }) => ({
                name,
                target,
                kind,
                minItems,
                ...(maxItems === undefined || !Number.isFinite(maxItems) ? {} : { maxItems }),
            })),
        };
    const collections = kvlm.collections.map((collection): DynamoRowCollection => {
        const table = view.tables.find((t) => t.collection === collection.name);
        if (table === undefined) throw new Error(`collection ${collection.name}: the DynamoDB design has no table`);
        const names = [collection.root.name, ...collection.nodes.map((node) => node.name)];
        const at = (name: string) => {
            const position = names.indexOf(name);
            if (position < 0) throw new Error(`collection ${collection.name}: unknown node ${name}`);
            return position;
        };
        const strategy = collection.strategy;
        return {
            name: collection.name,
            table: table.name,
            nodes: [
                { entity: collection.root.entity, parent: -1, reference: '' },
                ...collection.nodes.map((node) => ({
                    entity: node.entity,
                    parent: at(refName(node.parent)),
                    reference: node.reference,
                })),
            ],
            fields: collection.fields.map((field) => ({
                name: field.name,
                type: field.type as KeyType,
                node: at(refName(field.node)),
                attribute: field.attribute,
            })),
            key: isNaturalKey(strategy)
                ? strategy.parts.map((part) => ({ node: at(refName(part.node)), attribute: part.attribute }))
                : [],
            keys: table.keys.map((key) => ({
                partitionAttribute: key.partitionAttribute,
                partitionPrefix: key.partitionPrefix,
                partitionParts: key.partitionParts.map(({ field, type }) => ({ field, type: type as KeyType })),
                sortAttribute: key.sortAttribute,
                sortParts: key.sortParts.map(({ field, type }) => ({ field, type: type as KeyType })),
            })),
        };
    });
    return { entityTable: view.entityTable, entities: schemas, collections };
}
