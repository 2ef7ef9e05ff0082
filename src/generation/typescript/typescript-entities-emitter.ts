/**
 * Emits the entity part of the TypeScript client (issue 28): the embedded entity store (`ENTITY_STORE`: the layout
 * and the Functions library), `installEntityFunctions`, and per entity its object and patch types and its
 * operations, each a thin typed call of the runtime's `kvmod/kvmod-entities.ts`.
 *
 * The types make the measured corruption (a one-field row write that dropped the other fields) impossible to
 * write: a patch (`BookPatch`) names attributes only, each optional and never `null`, so a property left out or
 * `undefined` keeps its value; references change through their own operations; rows are never written directly.
 */
import {
    StructureKind,
    VariableDeclarationKind,
    type InterfaceDeclarationStructure,
    type OptionalKind,
    type PropertySignatureStructure,
    type StatementStructures,
} from 'ts-morph';
import type { EntityAttributeSchema } from '../shared/entity-store.js';
import type { RedisLogicalType } from '../shared/redis-encoding.js';
import type { TsEntity, TsEntityReference, TsEntityStore } from './typescript-entities.js';

/** The module the generated client imports the entity operations from. */
export const ENTITIES_MODULE = './kvmod/kvmod-entities.js';

const DEFAULT_CLIENT_PARAM = { name: 'client', type: 'kvmod.CommandClient' };
const WRITE = 'Promise<kvmodEntities.EntityWrite>';

function article(name: string): string {
    return /^[AEIOU]/i.test(name) ? 'An' : 'A';
}

/** A property name as written in a type: a name that is not an identifier is quoted. */
function propertyName(name: string): string {
    return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name);
}

function referenceType(reference: TsEntityReference, tsTypes: Record<RedisLogicalType, string>): string {
    const id = tsTypes[reference.targetIdType];
    switch (reference.schema.kind) {
        case 'one':
            return id;
        case 'optional':
            return `${id} | null`;
        case 'many':
            return `${id}[]`;
    }
}

function referenceDoc(reference: TsEntityReference): string {
    const { schema } = reference;
    switch (schema.kind) {
        case 'one':
            return `The identifier of its ${schema.target} (\`[1]\`: required).`;
        case 'optional':
            return `The identifier of its ${schema.target}, or null (\`[0..1]\`).`;
        case 'many':
            return `The identifiers of its ${schema.target} objects (\`[*]\`${schema.minItems > 0 ? `, at least ${schema.minItems}` : ''}${schema.maxItems === undefined ? '' : `, at most ${schema.maxItems}`}), in the order written.`;
    }
}

function attributeDoc(entity: TsEntity, attribute: EntityAttributeSchema): string {
    return attribute.name === entity.schema.idName
        ? `The identifier (${attribute.type}).`
        : `${entity.schema.name}.${attribute.name} (${attribute.type}).`;
}

function interfaceOf(
    name: string,
    doc: string,
    properties: OptionalKind<PropertySignatureStructure>[],
): InterfaceDeclarationStructure {
    return { kind: StructureKind.Interface, name, isExported: true, docs: [doc], properties };
}

/**
 * One entity's types and operations. `how` says how an operation reaches the rows (the Redis designs: one atomic
 * call; the DynamoDB client, which shares these declarations, says its own).
 */
export function entityDeclarations(
    file: StatementStructures[],
    entity: TsEntity,
    tsTypes: Record<RedisLogicalType, string>,
    clientType?: string,
    how = 'in one atomic call',
): void {
    const CLIENT_PARAM = clientType === undefined ? DEFAULT_CLIENT_PARAM : { name: 'client', type: clientType };
    const { schema, names, params } = entity;
    const name = JSON.stringify(schema.name).replace(/^"|"$/g, "'");
    const idType = tsTypes[schema.idType];
    const id = { name: params.id, type: idType };
    file.push(
        interfaceOf(
            names.type,
            `${article(schema.name)} ${schema.name}: its attributes (every one holds a value) and its references, by the identifiers of their targets.`,
            [
                ...schema.attributes.map((attribute) => ({
                    name: propertyName(attribute.name),
                    type: tsTypes[attribute.type],
                    docs: [attributeDoc(entity, attribute)],
                })),
                ...entity.references.map((reference) => ({
                    name: propertyName(reference.schema.name),
                    type: referenceType(reference, tsTypes),
                    docs: [referenceDoc(reference)],
                })),
            ],
        ),
        interfaceOf(
            names.patch,
            `A change of ${article(schema.name).toLowerCase()} ${schema.name}: the attributes to change, nothing else. A property left out or undefined keeps its value; ` +
                (entity.references.length > 0
                    ? 'the identifier and the references are not part of it (the references change through their own operations).'
                    : 'the identifier is not part of it.'),
            schema.attributes
                .filter((attribute) => attribute.name !== schema.idName)
                .map((attribute) => ({
                    name: propertyName(attribute.name),
                    type: `${tsTypes[attribute.type]} | undefined`,
                    hasQuestionToken: true,
                    docs: [attributeDoc(entity, attribute)],
                })),
        ),
    );
    const call = (fn: string, ...args: string[]) =>
        `return kvmodEntities.${fn}(client, ENTITY_STORE, ${name}, ${args.join(', ')});`;
    file.push(
        {
            kind: StructureKind.Function,
            name: names.create,
            isExported: true,
            docs: [
                `Creates ${article(schema.name).toLowerCase()} ${schema.name}, and every collection row it makes, ${how}. Refused (EntityError): ` +
                    '`entity.exists`, `entity.missing-target` (a referenced object does not exist), `entity.bad-value`, `entity.unservable-value` (checked before sending).',
            ],
            parameters: [CLIENT_PARAM, { name: params.object, type: names.type }],
            returnType: WRITE,
            statements: [call('createEntity', params.object)],
        },
        {
            kind: StructureKind.Function,
            name: names.update,
            isExported: true,
            docs: [
                `Changes the attributes a patch gives of ${article(schema.name).toLowerCase()} ${schema.name}, and every copy of them in the collections' rows, ${how}; ` +
                    'the other attributes keep their values. `options.ifVersion`: refused (`entity.conflict`) unless the entity is at that version. ' +
                    'Refused: `entity.not-found`, `entity.bad-value`, `entity.unservable-value`.',
            ],
            parameters: [
                CLIENT_PARAM,
                id,
                { name: 'patch', type: names.patch },
                { name: 'options', type: 'kvmodEntities.UpdateOptions', initializer: '{}' },
            ],
            returnType: WRITE,
            statements: [call('updateEntity', params.id, 'patch', 'options')],
        },
        {
            kind: StructureKind.Function,
            name: names.delete,
            isExported: true,
            docs: [
                `Deletes ${article(schema.name).toLowerCase()} ${schema.name} and every row it contributes to, ${how}. Refused while others reference it ` +
                    '(`entity.still-referenced`, with `referrers`), unless `options.detach` removes it from the `[*]` and `[0..1]` references that hold it. ' +
                    'Refused: `entity.not-found`.',
            ],
            parameters: [CLIENT_PARAM, id, { name: 'options', type: 'kvmodEntities.DeleteOptions', initializer: '{}' }],
            returnType: WRITE,
            statements: [call('deleteEntity', params.id, 'options')],
        },
        {
            kind: StructureKind.Function,
            name: names.get,
            isExported: true,
            isAsync: true,
            docs: [
                `Reads ${article(schema.name).toLowerCase()} ${schema.name} by its identifier, with its version (the number \`options.ifVersion\` of an update compares), or null when there is none.`,
            ],
            parameters: [CLIENT_PARAM, id],
            returnType: `Promise<(${names.type} & { ${propertyName(entity.versionProp)}: number }) | null>`,
            statements: [
                `const found = await kvmodEntities.getEntity(client, ENTITY_STORE, ${name}, ${params.id});`,
                `return found === null ? null : { ...(found.object as unknown as ${names.type}), ${propertyName(entity.versionProp)}: found.version };`,
            ],
        },
    );
    for (const reference of entity.references) {
        const ref = JSON.stringify(reference.schema.name).replace(/^"|"$/g, "'");
        const targetId = tsTypes[reference.targetIdType];
        const target = reference.schema.target;
        if ('set' in reference.names) {
            const optional = reference.schema.kind === 'optional';
            file.push({
                kind: StructureKind.Function,
                name: reference.names.set,
                isExported: true,
                docs: [
                    `Points ${schema.name}.${reference.schema.name} at another ${target}${optional ? ', or at none (null)' : ''}, and moves the rows it makes, ${how}. ` +
                        'Refused: `entity.not-found`, `entity.missing-target`.',
                ],
                parameters: [CLIENT_PARAM, id, { name: 'target', type: optional ? `${targetId} | null` : targetId }],
                returnType: WRITE,
                statements: [call('setReference', params.id, ref, 'target')],
            });
        } else {
            for (const [op, fn, verb] of [
                ['add', 'addReferences', 'Adds targets to'],
                ['remove', 'removeReferences', 'Removes targets from'],
            ] as const) {
                file.push({
                    kind: StructureKind.Function,
                    name: op === 'add' ? reference.names.add : reference.names.remove,
                    isExported: true,
                    docs: [
                        `${verb} ${schema.name}.${reference.schema.name} (identifiers of ${target}), and the rows they make, ${how}. ` +
                            `Refused: \`entity.not-found\`, ${op === 'add' ? '`entity.missing-target`, `entity.bad-value` (listed already)' : '`entity.bad-value` (not listed), `entity.required-reference` (fewer than the least)'}.`,
                    ],
                    parameters: [CLIENT_PARAM, id, { name: 'targets', type: `readonly ${targetId}[]` }],
                    returnType: WRITE,
                    statements: [call(fn, params.id, ref, 'targets')],
                });
            }
        }
    }
}

/** The library text as an expression: one string per line, joined (readable in the generated file). */
function libraryExpression(library: string, literal: (value: unknown, indent?: string) => string): string {
    return `[\n${library
        .split('\n')
        .map((line) => `        ${literal(line)},`)
        .join('\n')}\n    ].join('\\n')`;
}

/**
 * The statements of the entity part: `data`, the embedded `ENTITY_STORE` (`literal` writes plain data), and
 * `functions`, `installEntityFunctions` then each entity's types and operations. Nothing when the design keeps no
 * entities. When the entity Function lives in the client's own library (`store.source.library` null: redis-core),
 * `ownLibrary` is the expression of that library's text and the client's setup loads it: no `installEntityFunctions`.
 */
export function entityStatements(
    store: TsEntityStore | null,
    tsTypes: Record<RedisLogicalType, string>,
    literal: (value: unknown, indent?: string) => string,
    ownLibrary?: string,
    core?: { clientType: string; cluster: string },
): { data: StatementStructures[]; functions: StatementStructures[] } {
    if (store === null) return { data: [], functions: [] };
    const library = store.source.library;
    if (library === null && ownLibrary === undefined)
        throw new Error('the entity Function lives in the client library, but the client has none');
    const data: StatementStructures[] = [
        {
            kind: StructureKind.VariableStatement,
            declarationKind: VariableDeclarationKind.Const,
            docs: [
                "The design's entity store: how each entity is kept beside the rows, and the Functions library of the entity operations.",
            ],
            declarations: [
                {
                    name: 'ENTITY_STORE',
                    initializer: `{\n    schema: ${literal(store.source.schema, '    ')},\n    library: ${library === null ? ownLibrary : libraryExpression(library, literal)},${core === undefined ? '' : `\n    cluster: ${core.cluster},`}\n} satisfies kvmodEntities.ClientEntityStore`,
                },
            ],
        },
    ];
    const functions: StatementStructures[] =
        library === null
            ? []
            : [
                  {
                      kind: StructureKind.Function,
                      name: 'installEntityFunctions',
                      isExported: true,
                      docs: [
                          `Installs (or replaces) the entity Function ${store.source.schema.functionName} on the server (FUNCTION LOAD REPLACE): ` +
                              'call it once after createIndexes, before the first entity operation.',
                      ],
                      parameters: [DEFAULT_CLIENT_PARAM],
                      returnType: 'Promise<void>',
                      statements: ['return kvmodEntities.installEntityFunctions(client, ENTITY_STORE);'],
                  },
              ];
    for (const entity of store.entities) entityDeclarations(functions, entity, tsTypes, core?.clientType);
    return { data, functions };
}

/** The entity exports of a client's module head: the runtime's entity module and the types it re-exports. */
export function entityImports(store: TsEntityStore | null): StatementStructures[] {
    if (store === null) return [];
    return [
        { kind: StructureKind.ImportDeclaration, namespaceImport: 'kvmodEntities', moduleSpecifier: ENTITIES_MODULE },
        {
            kind: StructureKind.ExportDeclaration,
            isTypeOnly: true,
            namedExports: ['DeleteOptions', 'EntityErrorCode', 'EntityReferrer', 'EntityWrite', 'UpdateOptions'],
            moduleSpecifier: ENTITIES_MODULE,
        },
        { kind: StructureKind.ExportDeclaration, namedExports: ['EntityError'], moduleSpecifier: ENTITIES_MODULE },
    ];
}
