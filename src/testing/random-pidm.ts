/**
 * Seeded random PIDM models of a given size (m queries, n distinct fields per query), built directly as
 * linked ASTs in memory — no text, no parser — so that the benchmark times the model-to-model step
 * alone, as the paper's Table 4 does, and property tests can run hundreds of models in seconds.
 *
 * The shape (what the benchmark measures on):
 * - queries come in families of `familySize`; a family has a FROM entity and a base set of n attribute
 *   paths; each member replaces up to `perturbation`·n of its family's paths by others, so some pairs in
 *   a family pass the 0.8 threshold and some do not. With `chain`, member k perturbs member k-1 instead
 *   of the base, so pairs pass along the chain and merges cascade;
 * - every root entity serves `familiesPerRoot` families and has a pool of ⌈1.5·n⌉ attributes, so
 *   families on the same root overlap (≈ 2/3 of their fields) without passing 0.8;
 * - each root has a `[1]`, a `[*]` and a `[0..1]` reference; a family includes the `[1]` one, and a
 *   member adds the `[*]` or `[0..1]` one with probability `grainNoise` (grain conflicts to refuse);
 * - each query has a WHERE (an equality with a parameter and, for n >= 4, a range) and an ORDER BY on
 *   one of its fields; the query order is shuffled, so merges happen out of declaration order.
 */
import type { AstNode } from 'langium';
import type {
    Attribute,
    Cardinality,
    Comparison,
    Entity,
    Expression,
    FromClause,
    IdAttribute,
    Include,
    OrderItem,
    Path,
    PathElement,
    PidmModel,
    Projection,
    Query,
    Reference,
    Segment,
    StringValue,
    NumberValue,
    BinaryExpression,
} from '../language/generated/ast.js';
import { makeAstNode, resolvedReference, type Mutable } from '../language/common/ast-construction.js';

/** What to generate. */
export interface RandomPidmOptions {
    /** Number of queries (m). */
    queries: number;
    /** Distinct attribute paths per query, SELECT + WHERE + ORDER BY (n). */
    fieldsPerQuery: number;
    /** PRNG seed: same options, same model. */
    seed: number;
    /** Queries per family (default 4). */
    familySize?: number;
    /** Families sharing one root entity (default 4). */
    familiesPerRoot?: number;
    /** Largest share of a family's paths a member replaces (default 0.3). */
    perturbation?: number;
    /** Each member perturbs the previous member instead of the base (merges in chains). Default false. */
    chain?: boolean;
    /** Probability that a member includes an extra `[*]` or `[0..1]` reference (default 0.15). */
    grainNoise?: number;
    /** Shuffle the declaration order of the queries (default true). */
    shuffle?: boolean;
}

/** A small, fast, seeded PRNG (mulberry32). */
export function createRandom(seed: number): () => number {
    let state = seed >>> 0;
    return () => {
        state = (state + 0x6d2b79f5) >>> 0;
        let t = state;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

const TYPES = ['text', 'int', 'date', 'float', 'time', 'text', 'boolean', 'datetime'] as const;

/** A root entity with its attribute pool and its three kinds of reference. */
interface RootShape {
    entity: Entity;
    attributes: Attribute[];
    one: Reference;
    many: Reference;
    optional: Reference;
}

/** An attribute path a query uses: on the root, or on one of its included references. */
interface PathChoice {
    via?: 'one' | 'many' | 'optional';
    attribute: Attribute;
}

/** Generates a random, fully linked PIDM model. */
export function generateRandomPidm(options: RandomPidmOptions): PidmModel {
    const m = Math.max(0, Math.floor(options.queries));
    const n = Math.max(1, Math.floor(options.fieldsPerQuery));
    const familySize = Math.max(1, options.familySize ?? 4);
    const familiesPerRoot = Math.max(1, options.familiesPerRoot ?? 4);
    const perturbation = options.perturbation ?? 0.3;
    const grainNoise = options.grainNoise ?? 0.15;
    const random = createRandom(options.seed);
    const pick = (limit: number) => Math.floor(random() * limit);

    const model = makeAstNode<PidmModel>(undefined, undefined, undefined, {
        $type: 'PidmModel',
        databases: [],
        entities: [],
        queries: [],
        workloads: [],
    });
    const families = Math.ceil(m / familySize);
    const rootCount = Math.max(1, Math.ceil(families / familiesPerRoot));
    const poolSize = Math.max(n + 2, Math.ceil(1.5 * n));
    const sideAttributes = 4;

    const addEntity = (name: string, attributeCount: number) => addEntityTo(model, name, 'code', attributeCount);

    const roots: RootShape[] = [];
    const sides = new Map<Reference, Attribute[]>();
    for (let r = 0; r < rootCount; r++) {
        const root = addEntity(`R${r}`, poolSize);
        const detail = addEntity(`R${r}Detail`, sideAttributes);
        const child = addEntity(`R${r}Child`, sideAttributes);
        const extra = addEntity(`R${r}Extra`, sideAttributes);
        const shape: RootShape = {
            entity: root.entity,
            attributes: root.attributes,
            one: addReferenceTo(root.entity, detail.entity, 'detail', 'one'),
            many: addReferenceTo(root.entity, child.entity, 'children', 'many'),
            optional: addReferenceTo(root.entity, extra.entity, 'extra', 'optional'),
        };
        sides.set(shape.one, detail.attributes);
        sides.set(shape.many, child.attributes);
        sides.set(shape.optional, extra.attributes);
        roots.push(shape);
    }

    /** n distinct path choices: a few through the [1] reference, the rest on the root. */
    const basePaths = (shape: RootShape): PathChoice[] => {
        const viaOne = Math.min(sideAttributes, Math.floor(n / 5));
        const chosen: PathChoice[] = [];
        const detail = sides.get(shape.one) as Attribute[];
        for (let k = 0; k < viaOne; k++) chosen.push({ via: 'one', attribute: detail[k] });
        const poolOrder = shuffled(shape.attributes.length, random);
        for (let k = 0; chosen.length < n; k++) chosen.push({ attribute: shape.attributes[poolOrder[k]] });
        return chosen;
    };
    /** Replaces up to `perturbation`·n root paths by unused pool attributes. */
    const perturb = (paths: PathChoice[], shape: RootShape): PathChoice[] => {
        const result = [...paths];
        const used = new Set(result.map((path) => path.attribute));
        const unused = shape.attributes.filter((attribute) => !used.has(attribute));
        const replacements = Math.min(unused.length, pick(Math.floor(perturbation * n) + 1));
        for (let k = 0; k < replacements; k++) {
            const position = pick(result.length);
            if (result[position].via) continue;
            const taken = pick(unused.length);
            result[position] = { attribute: unused[taken] };
            unused.splice(taken, 1);
        }
        return result;
    };

    const specs: { name: string; shape: RootShape; paths: PathChoice[]; extra?: 'many' | 'optional' }[] = [];
    for (let f = 0; f < families; f++) {
        const shape = roots[Math.floor(f / familiesPerRoot) % roots.length];
        const base = basePaths(shape);
        let previous = base;
        for (let k = 0; k < familySize && specs.length < m; k++) {
            const paths = perturb(options.chain ? previous : base, shape);
            previous = paths;
            const noise = random() < grainNoise ? (random() < 0.5 ? 'many' : 'optional') : undefined;
            specs.push({ name: `Q${specs.length}`, shape, paths, extra: noise });
        }
    }
    const order = options.shuffle === false ? specs.map((_, index) => index) : shuffled(specs.length, random);
    for (const index of order) model.queries.push(buildQuery(model, specs[index], sides, random));
    return model;
}

/** Adds an entity with a unique text identifier `idName` and attributes a0, a1, … of rotating types. */
function addEntityTo(
    model: PidmModel,
    name: string,
    idName: string,
    attributeCount: number,
): { entity: Entity; attributes: Attribute[] } {
    const entity = makeAstNode<Entity>(model, 'entities', model.entities.length, {
        $type: 'Entity',
        name,
        members: [],
    });
    model.entities.push(entity);
    entity.members.push(
        makeAstNode<IdAttribute>(entity, 'members', 0, {
            $type: 'IdAttribute',
            name: idName,
            type: 'text',
            unique: true,
        }),
    );
    const attributes: Attribute[] = [];
    for (let a = 0; a < attributeCount; a++) {
        const attribute = makeAstNode<Attribute>(entity, 'members', entity.members.length, {
            $type: 'Attribute',
            name: `a${a}`,
            type: TYPES[a % TYPES.length],
        });
        entity.members.push(attribute);
        attributes.push(attribute);
    }
    return { entity, attributes };
}

/** Adds a `[1]`, `[*]` or `[0..1]` reference from `owner` to `target`. */
function addReferenceTo(owner: Entity, target: Entity, name: string, kind: 'one' | 'many' | 'optional'): Reference {
    const reference = makeAstNode<Reference>(owner, 'members', owner.members.length, {
        $type: 'Reference',
        name,
        target: resolvedReference(target, target.name),
        cardinality: undefined as unknown as Cardinality,
    });
    (reference as Mutable<Reference>).cardinality = makeAstNode<Cardinality>(reference, 'cardinality', undefined, {
        $type: 'Cardinality',
        many: kind === 'many',
        upperMany: false,
        ...(kind === 'one' ? { lower: 1 } : kind === 'optional' ? { lower: 0, upper: 1 } : {}),
    });
    owner.members.push(reference);
    return reference;
}

/** A seeded permutation of 0 … length-1. */
function shuffled(length: number, random: () => number): number[] {
    const order = Array.from({ length }, (_, index) => index);
    for (let i = length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [order[i], order[j]] = [order[j], order[i]];
    }
    return order;
}

function buildQuery(
    model: PidmModel,
    spec: { name: string; shape: RootShape; paths: PathChoice[]; extra?: 'many' | 'optional' },
    sides: Map<Reference, Attribute[]>,
    random: () => number,
): Query {
    const { query, from } = makeQuery(model, spec.name, spec.shape.entity);
    const includes = new Map<'one' | 'many' | 'optional', Include>();
    const addInclude = (kind: 'one' | 'many' | 'optional', alias: string) => {
        const reference = spec.shape[kind];
        const include = makeAstNode<Include>(query, 'includes', query.includes.length, {
            $type: 'Include',
            alias,
            path: undefined as unknown as Path,
        });
        (include as Mutable<Include>).path = makePath(include, 'path', [
            [from, spec.shape.entity.name],
            [reference, reference.name],
        ]);
        query.includes.push(include);
        includes.set(kind, include);
    };
    addInclude('one', 'D');
    if (spec.extra) {
        addInclude(spec.extra, spec.extra === 'many' ? 'C' : 'X');
    }
    const paths: PathChoice[] = [...spec.paths];
    // An extra include contributes one of its attributes, replacing the last root path.
    if (spec.extra) {
        const extraAttributes = sides.get(spec.shape[spec.extra]) as Attribute[];
        paths[paths.length - 1] = {
            via: spec.extra,
            attribute: extraAttributes[Math.floor(random() * extraAttributes.length)],
        };
    }
    const segmentsOf = (choice: PathChoice): [PathElement, string][] => {
        if (!choice.via) return [[choice.attribute, choice.attribute.name]];
        const include = includes.get(choice.via) as Include;
        return [
            [include, include.alias as string],
            [choice.attribute, choice.attribute.name],
        ];
    };

    const n = paths.length;
    const whereCount = n >= 4 ? 2 : n >= 2 ? 1 : 0;
    const selectCount = Math.max(1, n - whereCount - (n >= 5 ? 1 : 0));
    for (let k = 0; k < selectCount; k++) {
        const projection = makeAstNode<Projection>(query, 'projections', k, {
            $type: 'Projection',
            path: undefined as unknown as Path,
        });
        (projection as Mutable<Projection>).path = makePath(projection, 'path', segmentsOf(paths[k]));
        query.projections.push(projection);
    }
    const sorted = n >= 5 ? [paths[selectCount], paths[0]] : n >= 2 ? [paths[0]] : [];
    const filtered = paths.slice(n - whereCount);
    if (filtered.length > 0) {
        const comparisons = filtered.map((choice, index) => (container: AstNode) => {
            const comparison = makeAstNode<Comparison>(container, undefined, undefined, {
                $type: 'Comparison',
                path: undefined as unknown as Path,
                operator: index === 0 ? '=' : '>=',
                value: undefined as unknown as StringValue,
            });
            (comparison as Mutable<Comparison>).path = makePath(comparison, 'path', segmentsOf(choice));
            (comparison as Mutable<Comparison>).value =
                index === 0 || choice.attribute.type !== 'int'
                    ? makeAstNode<StringValue>(comparison, 'value', undefined, { $type: 'StringValue', value: '?' })
                    : makeAstNode<NumberValue>(comparison, 'value', undefined, {
                          $type: 'NumberValue',
                          value: 10,
                          negative: false,
                      });
            return comparison;
        });
        let where: Expression = comparisons[0](query);
        (where as Mutable<AstNode>).$containerProperty = 'where';
        if (comparisons.length > 1) {
            const binary = makeAstNode<BinaryExpression>(query, 'where', undefined, {
                $type: 'BinaryExpression',
                left: where,
                operator: 'and',
                right: undefined as unknown as Expression,
            });
            const right = comparisons[1](binary);
            (right as Mutable<AstNode>).$containerProperty = 'right';
            (binary as Mutable<BinaryExpression>).right = right;
            (where as Mutable<AstNode>).$container = binary;
            (where as Mutable<AstNode>).$containerProperty = 'left';
            where = binary;
        }
        (query as Mutable<Query>).where = where;
    }
    sorted.forEach((choice, index) => {
        const item = makeAstNode<OrderItem>(query, 'orderBy', index, {
            $type: 'OrderItem',
            path: undefined as unknown as Path,
            direction: index === 0 ? 'asc' : 'desc',
        });
        (item as Mutable<OrderItem>).path = makePath(item, 'path', segmentsOf(choice));
        query.orderBy.push(item);
    });
    return query;
}

/** A query of `model` (not yet added to it) reading FROM `entity`, with empty clauses. */
function makeQuery(model: PidmModel, name: string, entity: Entity): { query: Query; from: FromClause } {
    const query = makeAstNode<Query>(model, 'queries', model.queries.length, {
        $type: 'Query',
        name,
        projections: [],
        from: undefined as unknown as FromClause,
        includes: [],
        orderBy: [],
    });
    const from = makeAstNode<FromClause>(query, 'from', undefined, {
        $type: 'FromClause',
        entity: resolvedReference(entity, entity.name),
    });
    (query as Mutable<Query>).from = from;
    return { query, from };
}

function makePath(container: AstNode, property: string, steps: [PathElement, string][]): Path {
    const path = makeAstNode<Path>(container, property, undefined, { $type: 'Path', segments: [] });
    steps.forEach(([element, text], index) => {
        path.segments.push(
            makeAstNode<Segment>(path, 'segments', index, {
                $type: 'Segment',
                element: resolvedReference(element, text),
            }),
        );
    });
    return path;
}

/** What `generateGridPidm` builds: m queries of n attribute paths over a chain of entities. */
export interface GridPidmOptions {
    /** Number of queries (m). */
    queries: number;
    /** Attributes each query selects (n); at most entities × attributesPerEntity. */
    fieldsPerQuery: number;
    /** PRNG seed: same options, same model. */
    seed: number;
    /** Entities in the chain (default 10). */
    entities?: number;
    /** Attributes per entity besides its identifier (default 150). */
    attributesPerEntity?: number;
    /**
     * Entities a query reads: its FROM entity and the `span - 1` following it along the chain (default all, from
     * E0). Query q starts at E(q·span) (wrapping), so `entities / span` queries read every entity once: with a small
     * span the entity count is the variable and the queries stay small.
     */
    span?: number;
    /** Extra `[*]` references each entity makes to entities drawn at random (`r0`, `r1`, …; default 0). */
    referencesPerEntity?: number;
}

/**
 * The scale grid of `npm run bench:e2e` (issue 14): entities E0 … E9 of 150 attributes, each with a `[1]`
 * reference `next` to the following one; every query reads `FROM E0 INCLUDE` the whole chain (aliases
 * E1 … E9; with `span`, a stretch of it), selects n distinct attributes by path (`E3.a17`), filters on the
 * first with a parameter and sorts on the second. The paths are drawn at random, so two queries share about n / 1500 of them and
 * no pair reaches the 0.8 merge threshold: the size of the model is the size of the output.
 */
export function generateGridPidm(options: GridPidmOptions): PidmModel {
    const entityCount = Math.max(1, Math.floor(options.entities ?? 10));
    const attributeCount = Math.max(1, Math.floor(options.attributesPerEntity ?? 150));
    const m = Math.max(0, Math.floor(options.queries));
    const span = Math.min(entityCount, Math.max(1, Math.floor(options.span ?? entityCount)));
    const n = Math.min(span * attributeCount, Math.max(1, Math.floor(options.fieldsPerQuery)));
    const random = createRandom(options.seed);
    const model = makeAstNode<PidmModel>(undefined, undefined, undefined, {
        $type: 'PidmModel',
        databases: [],
        entities: [],
        queries: [],
        workloads: [],
    });
    const entities: Entity[] = [];
    const attributes: Attribute[][] = [];
    for (let e = 0; e < entityCount; e++) {
        const added = addEntityTo(model, `E${e}`, 'k', attributeCount);
        entities.push(added.entity);
        attributes.push(added.attributes);
    }
    const next: Reference[] = [];
    for (let e = 0; e + 1 < entityCount; e++) next.push(addReferenceTo(entities[e], entities[e + 1], 'next', 'one'));
    const extra = Math.max(0, Math.floor(options.referencesPerEntity ?? 0));
    for (let e = 0; e < entityCount && extra > 0; e++) {
        for (let r = 0; r < extra; r++) {
            addReferenceTo(entities[e], entities[Math.floor(random() * entityCount)], `r${r}`, 'many');
        }
    }

    for (let q = 0; q < m; q++) {
        const start = (q * span) % (entityCount - span + 1);
        const { query, from } = makeQuery(model, `Q${q}`, entities[start]);
        // Alias k names entity start + k: the FROM entity itself, then the includes along the chain.
        const heads: PathElement[] = [from];
        for (let k = 1; k < span; k++) {
            const e = start + k;
            const include = makeAstNode<Include>(query, 'includes', k - 1, {
                $type: 'Include',
                alias: `E${e}`,
                path: undefined as unknown as Path,
            });
            (include as Mutable<Include>).path = makePath(include, 'path', [
                [heads[k - 1], `E${e - 1}`],
                [next[e - 1], 'next'],
            ]);
            query.includes.push(include);
            heads.push(include);
        }
        const chosen = shuffled(span * attributeCount, random).slice(0, n);
        const steps = (slot: number): [PathElement, string][] => {
            const k = Math.floor(slot / attributeCount);
            const attribute = attributes[start + k][slot % attributeCount];
            return [
                [heads[k], `E${start + k}`],
                [attribute, attribute.name],
            ];
        };
        chosen.forEach((slot, index) => {
            const projection = makeAstNode<Projection>(query, 'projections', index, {
                $type: 'Projection',
                path: undefined as unknown as Path,
            });
            (projection as Mutable<Projection>).path = makePath(projection, 'path', steps(slot));
            query.projections.push(projection);
        });
        const comparison = makeAstNode<Comparison>(query, 'where', undefined, {
            $type: 'Comparison',
            path: undefined as unknown as Path,
            operator: '=',
            value: undefined as unknown as StringValue,
        });
        (comparison as Mutable<Comparison>).path = makePath(comparison, 'path', steps(chosen[0]));
        (comparison as Mutable<Comparison>).value = makeAstNode<StringValue>(comparison, 'value', undefined, {
            $type: 'StringValue',
            value: '?',
        });
        (query as Mutable<Query>).where = comparison;
        const item = makeAstNode<OrderItem>(query, 'orderBy', 0, {
            $type: 'OrderItem',
            path: undefined as unknown as Path,
            direction: 'asc',
        });
        (item as Mutable<OrderItem>).path = makePath(item, 'path', steps(chosen[Math.min(1, n - 1)]));
        query.orderBy.push(item);
        model.queries.push(query);
    }
    return model;
}
