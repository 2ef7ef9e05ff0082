/**
 * A KVLM collection as a Redis design: its index (which fields, TAG or NUMERIC, SORTABLE), its keys (natural or
 * counter), its sort and equality companions, and the commands that create the index and write and delete a row. The queries
 * are lowered by `redis-query-builder.ts`; what differs between dialects comes from the dialect strategy.
 */
import type {
    Collection,
    Field,
    FieldRole,
    KExpression,
    KvlmModel,
    ServedQuery,
} from '../../language/generated/ast.js';
import { GenerationError } from '../generation-errors.js';
import { isNumericType, type RedisLogicalType } from '../shared/redis-encoding.js';
import { command, fieldOf, lit, refName, slot } from './redis-command-parts.js';
import type { RedisDialectStrategy } from './redis-dialect-strategy.js';
import { physicalIndexName, pointerKeyOf, storageSignature } from './redis-naming.js';
import { buildQuery } from './redis-query-builder.js';
import { TAG_SEPARATOR } from '../shared/redis-text-rules.js';
import type {
    RedisArgPart,
    RedisCollection,
    RedisCommand,
    RedisField,
    RedisGenerationOptions,
    RedisIndexedField,
    RedisKeyPart,
    RedisKeyStrategy,
    RedisRowParam,
} from './redis-view-model-types.js';

/** Field needs derived from the queries themselves (the roles are a summary; the queries are the truth). */
interface FieldUse {
    equality: Set<string>;
    range: Set<string>;
    sort: Set<string>;
}

/** One collection: its index, key strategy, fields, writes and queries. */
export function buildCollection(
    model: KvlmModel,
    collection: Collection,
    opts: RedisGenerationOptions,
    strategy: RedisDialectStrategy,
    shared: SharedValues = new SharedValues(),
): RedisCollection {
    const index = opts.dbPrefix ? `${model.name}_${collection.name}` : collection.name;
    // Only the fields some query filters or sorts on have uses (a few per query, among a thousand fields).
    const uses = new Map<string, FieldUse>();
    for (const query of collection.queries) {
        if (query.where) collectUses(query.where, query, uses, collection);
        for (const key of query.sortKeys) useOf(uses, fieldOf(key.field, collection).name).sort.add(query.name);
    }

    const queryLists = new SharedLists();
    // The transformation gives the fields of a collection shared query lists: their names are read once per list.
    const namesByList = new Map<readonly unknown[], string[]>();
    const namesOf = (queries: FieldRole['queries']): string[] => {
        let names = namesByList.get(queries);
        if (names === undefined) {
            names = queries.map(refName);
            namesByList.set(queries, names);
        }
        return names;
    };
    const fields: RedisField[] = collection.fields.map((field) => {
        // Most fields have one role (projected by one query): the lists are made only for the roles a field has.
        let projected: string[] = EMPTY_LIST;
        let filtered: string[] = EMPTY_LIST;
        let ranged: string[] = EMPTY_LIST;
        let sorted: string[] = EMPTY_LIST;
        for (const role of field.roles) {
            if (role.queries.length === 0) continue;
            const names = namesOf(role.queries);
            if (role.kind === 'projected') projected = projected === EMPTY_LIST ? names : [...projected, ...names];
            else if (role.kind === 'filtered') filtered = filtered === EMPTY_LIST ? names : [...filtered, ...names];
            else if (role.kind === 'ranged') ranged = ranged === EMPTY_LIST ? names : [...ranged, ...names];
            else sorted = sorted === EMPTY_LIST ? names : [...sorted, ...names];
        }
        const use = uses.get(field.name);
        if (use) {
            filtered = withAll(filtered, use.equality);
            ranged = withAll(ranged, use.range);
            sorted = withAll(sorted, use.sort);
        }
        const roles = queryLists.roles(
            queryLists.shared(projected),
            queryLists.shared(filtered),
            queryLists.shared(ranged),
            queryLists.shared(sorted),
        );
        return {
            name: field.name,
            label: field.label ?? field.name,
            type: field.type as RedisLogicalType,
            source: shared.source(refName(field.node), field.attribute),
            indexed: field.indexed,
            roles,
            index: indexOf(field, roles, collection),
            sortKey: null,
            equalityKey: null,
        };
    });
    assignSortCompanions(collection, fields);
    if (strategy.equalityCompanion) assignEqualityCompanions(collection, fields);
    const schemaFields = fields.flatMap((f) => [
        ...(f.index ? [f.name] : []),
        ...(f.equalityKey !== null ? [f.equalityKey] : []),
    ]);

    // The id field is stored in every row; it is indexed only when nothing else is, so the index is never empty.
    const idField = collection.keyField;
    // The rows live under the versioned physical name (see redis-naming.ts); the key parts do not depend on it.
    const root = { name: collection.root.name, entity: collection.root.entity };
    const nodes = collection.nodes.map((n) => ({
        name: n.name,
        parent: refName(n.parent),
        reference: n.reference,
        entity: n.entity,
        cardinality: n.cardinality,
    }));
    const shape = { fields, idField, key: keyStrategyOf(collection, '', fields), root, nodes };
    const physicalIndex = physicalIndexName(index, storageSignature(shape));
    const keyPrefix = `${physicalIndex}:`;
    const key = keyStrategyOf(collection, keyPrefix, fields);
    const rowParams: RedisRowParam[] = [];
    for (const p of key.parts) {
        if (!collection.fields.some((f) => f.name === p.param))
            rowParams.push({ name: p.param, type: p.type, source: p.source, keyOnly: true });
    }
    for (const f of fields) rowParams.push({ name: f.name, type: f.type, source: f.source, keyOnly: false });

    const create = createCommand(physicalIndex, keyPrefix, fields, idField, strategy);
    const insert = insertCommand(physicalIndex, keyPrefix, idField, key, fields, strategy);
    const del = deleteCommand(physicalIndex, keyPrefix, idField, key, strategy);
    const queries = collection.queries.map((query) =>
        buildQuery(query, collection, index, idField, fields, opts, strategy),
    );
    return {
        name: collection.name,
        index,
        physicalIndex,
        pointerKey: strategy.legacy ? pointerKeyOf(index) : null,
        keyPrefix,
        idField,
        key,
        root,
        nodes,
        fields,
        schemaFields: schemaFields.length > 0 ? schemaFields : [idField],
        rowParams,
        create,
        insert,
        delete: del,
        point: command(lit(...strategy.pointArgv(index, physicalIndex))),
        drop: command(lit(...strategy.dropArgv(physicalIndex))),
        queries,
    };
}

function indexOf(field: Field, roles: RedisField['roles'], collection: Collection): RedisIndexedField | null {
    const sortable = roles.sorted.length > 0;
    const filtered = roles.filtered.length > 0;
    const ranged = roles.ranged.length > 0;
    if (!sortable && !filtered && !ranged) return null;
    const type = field.type as RedisLogicalType;
    if (isNumericType(type)) {
        const why = [
            filtered ? `equality in ${roles.filtered.join(', ')}` : '',
            ranged ? `range in ${roles.ranged.join(', ')}` : '',
            sortable ? `sort in ${roles.sorted.join(', ')}` : '',
        ]
            .filter(Boolean)
            .join('; ');
        return { type: 'NUMERIC', sortable, separator: null, reason: why };
    }
    if (ranged) {
        throw new GenerationError(
            `collection '${collection.name}': field '${field.name}' (text) is compared with <, <=, > or >= in ${roles.ranged.join(', ')}; RediSearch cannot range over text (only NUMERIC fields range)`,
            { code: 'generation.unsupported' },
        );
    }
    const why = [
        filtered ? `equality in ${roles.filtered.join(', ')}` : '',
        sortable ? `sort in ${roles.sorted.join(', ')}` : '',
    ]
        .filter(Boolean)
        .join('; ');
    return { type: 'TAG', sortable, separator: TAG_SEPARATOR, reason: why };
}

/**
 * Gives every text field that an FT.AGGREGATE query (several sort keys) sorts on a sort companion, named
 * `<field>__sort` (with `_` appended until no field, id field or other companion has the name).
 */
function assignSortCompanions(collection: Collection, fields: RedisField[]): void {
    if (!collection.queries.some((query) => query.sortKeys.length >= 2)) return;
    const taken = new Set([...fields.map((f) => f.name), collection.keyField]);
    const byName = new Map(fields.map((f) => [f.name, f]));
    for (const query of collection.queries) {
        if (query.sortKeys.length < 2) continue;
        for (const key of query.sortKeys) {
            const field = byName.get(fieldOf(key.field, collection).name)!;
            if (isNumericType(field.type) || field.sortKey !== null) continue;
            let name = `${field.name}__sort`;
            while (taken.has(name)) name += '_';
            taken.add(name);
            field.sortKey = name;
        }
    }
}

/**
 * Gives every compared text field an equality companion, named `<field>__eq` (with `_` appended until no field, id
 * field or other companion has the name), which the equality clauses search; the field itself keeps an index only
 * when a query sorts on it (SORTABLE).
 */
function assignEqualityCompanions(collection: Collection, fields: RedisField[]): void {
    const taken = new Set([
        ...fields.map((f) => f.name),
        ...fields.flatMap((f) => (f.sortKey !== null ? [f.sortKey] : [])),
        collection.keyField,
    ]);
    for (const field of fields) {
        if (isNumericType(field.type) || field.roles.filtered.length === 0) continue;
        let name = `${field.name}__eq`;
        while (taken.has(name)) name += '_';
        taken.add(name);
        field.equalityKey = name;
        field.index =
            field.roles.sorted.length > 0
                ? { ...field.index!, reason: `sort in ${field.roles.sorted.join(', ')}` }
                : null;
    }
}

function collectUses(expr: KExpression, query: ServedQuery, uses: Map<string, FieldUse>, collection: Collection): void {
    switch (expr.$type) {
        case 'KBinaryExpression':
            collectUses(expr.left, query, uses, collection);
            collectUses(expr.right, query, uses, collection);
            return;
        case 'KNotExpression':
            collectUses(expr.operand, query, uses, collection);
            return;
        case 'KGroupExpression':
            collectUses(expr.inner, query, uses, collection);
            return;
        case 'KComparison': {
            const use = useOf(uses, fieldOf(expr.field, collection).name);
            if (expr.operator === '=' || expr.operator === '!=') use.equality.add(query.name);
            else use.range.add(query.name);
            return;
        }
    }
}

const EMPTY_LIST: string[] = [];

/**
 * Strings every collection of a model repeats, made once per model: a field's source (`node.attribute`) is the
 * same text in each collection that holds the attribute (a 1000 × 1000 grid: a million fields, two thousand
 * sources), and one string in place of a million copies keeps the design smaller.
 */
export class SharedValues {
    private readonly sources = new Map<string, Map<string, string>>();

    /** `node.attribute`. */
    source(node: string, attribute: string): string {
        let byAttribute = this.sources.get(node);
        if (!byAttribute) {
            byAttribute = new Map();
            this.sources.set(node, byAttribute);
        }
        let text = byAttribute.get(attribute);
        if (text === undefined) {
            text = `${node}.${attribute}`;
            text.charCodeAt(0); // flat once, not a rope per use
            byAttribute.set(attribute, text);
        }
        return text;
    }
}

/** `list` with the names of `more` it lacks appended (a new list when there are any). */
function withAll(list: string[], more: Set<string>): string[] {
    let out = list;
    for (const q of more) {
        if (out.includes(q)) continue;
        if (out === list) out = [...list];
        out.push(q);
    }
    return out;
}

/**
 * One frozen array per distinct list of query names in a collection: its thousand fields mostly have the same
 * roles (projected by the same queries, filtered by none), and four arrays per field were a third of the design.
 */
class SharedLists {
    private static readonly EMPTY: string[] = Object.freeze([]) as unknown as string[];
    private readonly lists = new Map<string, string[]>();
    private readonly byIdentity = new Map<string[], string[]>();
    private readonly byLists = new Map<string[], Map<string[], Map<string[], Map<string[], RedisField['roles']>>>>();

    /** One frozen roles object per distinct four lists (each already shared): most fields have the same roles. */
    roles(projected: string[], filtered: string[], ranged: string[], sorted: string[]): RedisField['roles'] {
        const level = <K, V>(map: Map<K, V>, key: K, make: () => V): V => {
            let value = map.get(key);
            if (value === undefined) {
                value = make();
                map.set(key, value);
            }
            return value;
        };
        const byFiltered = level(this.byLists, projected, () => new Map());
        const byRanged = level(byFiltered, filtered, () => new Map());
        const bySorted = level(byRanged, ranged, () => new Map());
        return level(bySorted, sorted, () => Object.freeze({ projected, filtered, ranged, sorted }));
    }

    shared(list: string[]): string[] {
        if (list.length === 0) return SharedLists.EMPTY;
        // A list met before (a field's names of a shared query list) is not joined again.
        const known = this.byIdentity.get(list);
        if (known !== undefined) return known;
        const key = list.join(' ');
        let shared = this.lists.get(key);
        if (!shared) {
            shared = Object.freeze(list) as string[];
            this.lists.set(key, shared);
        }
        this.byIdentity.set(list, shared);
        return shared;
    }
}

/** The uses of a field, made on first need. */
function useOf(uses: Map<string, FieldUse>, name: string): FieldUse {
    let use = uses.get(name);
    if (!use) {
        use = { equality: new Set(), range: new Set(), sort: new Set() };
        uses.set(name, use);
    }
    return use;
}

function keyStrategyOf(collection: Collection, keyPrefix: string, fields: RedisField[]): RedisKeyStrategy {
    if (collection.strategy.$type === 'CounterKey') {
        return {
            kind: 'counter',
            parts: [],
            counterKey: `${keyPrefix}counter`,
            pattern: `${keyPrefix}<INCR ${keyPrefix}counter>`,
        };
    }
    // The names a key part that is no field must not take: made only when there is such a part.
    let taken: Set<string> | undefined;
    const parts: RedisKeyPart[] = collection.strategy.parts.map((part) => {
        const node = refName(part.node);
        const source = `${node}.${part.attribute}`;
        const field = fields.find((f) => f.source === source);
        if (field) return { source, param: field.name, type: field.type };
        taken ??= new Set(fields.map((f) => f.name));
        let param = `${node}_${part.attribute}`;
        while (taken.has(param)) param += '_key';
        taken.add(param);
        return { source, param, type: 'text' as RedisLogicalType };
    });
    return {
        kind: 'natural',
        parts,
        counterKey: null,
        pattern: keyPrefix + parts.map((p) => `<${p.param}>`).join(':'),
    };
}

function createCommand(
    index: string,
    keyPrefix: string,
    fields: RedisField[],
    idField: string,
    strategy: RedisDialectStrategy,
): RedisCommand {
    const argv = strategy.createHead(index, keyPrefix);
    argv.push(...lit('STOPWORDS', '0', 'SCHEMA'));
    const indexed = fields.filter((f) => f.index || f.equalityKey !== null);
    if (indexed.length === 0) argv.push(...lit(idField, 'TAG', 'SEPARATOR', TAG_SEPARATOR));
    for (const field of indexed) {
        const ix = field.index;
        if (ix) {
            argv.push(...lit(field.name, ix.type));
            if (ix.type === 'TAG') argv.push(...lit('SEPARATOR', ix.separator!));
            if (ix.sortable) argv.push(...lit('SORTABLE'));
        }
        if (field.equalityKey !== null) argv.push(...lit(field.equalityKey, 'TAG', 'SEPARATOR', TAG_SEPARATOR));
    }
    return command(argv);
}

function keyParts(keyPrefix: string, idField: string, key: RedisKeyStrategy, withPrefix: boolean): RedisArgPart[] {
    const parts: RedisArgPart[] = withPrefix ? [keyPrefix] : [];
    if (key.kind === 'counter') {
        parts.push(slot(idField, 'int', 'value'));
        return parts;
    }
    key.parts.forEach((part, i) => {
        if (i > 0) parts.push(':');
        parts.push(slot(part.param, part.type, 'key-part'));
    });
    return parts;
}

/** The field/value pairs of a write: each field, then its companions (derived from the same row value). */
function pushFieldPairs(argv: RedisArgPart[][], fields: RedisField[]): RedisArgPart[][] {
    for (const f of fields) {
        argv.push([f.name], [slot(f.name, f.type, 'value', true)]);
        if (f.sortKey !== null) argv.push([f.sortKey], [slot(f.name, 'text', 'sort-key', true)]);
        if (f.equalityKey !== null) argv.push([f.equalityKey], [slot(f.name, 'text', 'equality-key', true)]);
    }
    return argv;
}

function insertCommand(
    index: string,
    keyPrefix: string,
    idField: string,
    key: RedisKeyStrategy,
    fields: RedisField[],
    strategy: RedisDialectStrategy,
): RedisCommand {
    if (key.kind === 'counter') {
        return command(pushFieldPairs(strategy.counterInsertHead(key.counterKey!, index, keyPrefix, idField), fields));
    }
    const rowKey = keyParts(keyPrefix, idField, key, true);
    const id = keyParts(keyPrefix, idField, key, false);
    const argv = strategy.insertHead(index, rowKey);
    argv.push([idField], id);
    return command(pushFieldPairs(argv, fields));
}

function deleteCommand(
    index: string,
    keyPrefix: string,
    idField: string,
    key: RedisKeyStrategy,
    strategy: RedisDialectStrategy,
): RedisCommand {
    return command(strategy.deleteArgv(index, keyParts(keyPrefix, idField, key, true)));
}
