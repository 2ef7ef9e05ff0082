/**
 * The structural part of a PIDM model as the runtime needs it: entities with their identifier, typed
 * attributes and references (target, cardinality bounds). Built once from the linked AST so that the data
 * validator, the generator, the oracle and materialization read one plain description.
 */
import {
    isAttribute,
    isBinaryExpression,
    isBooleanValue,
    isComparison,
    isGroupExpression,
    isIdAttribute,
    isNotExpression,
    isNumberValue,
    isReference,
    isStringValue,
    type Attribute,
    type Cardinality,
    type Expression,
    type IdAttribute,
    type PidmModel,
    type Value,
} from '../language/generated/ast.js';
import {
    attributeType,
    cardinalityKind,
    identifierName,
    identifierOf,
    isParameter,
    resolvePath,
    SURROGATE_ID,
    type CardinalityKind,
    type LogicalType,
} from '../language/pidm/pidm-semantics.js';
import { searchedTexts, type SearchedTexts } from './searched-texts.js';

/** An attribute of an entity (the identifier included). */
export interface RuntimeAttribute {
    name: string;
    type: LogicalType;
    /** True for the `id` attribute (or the surrogate `_id`). */
    isId: boolean;
    /**
     * The literals the queries' WHERE clauses compare this attribute with (`status = "completed"`), so that
     * synthetic data holds them and those queries have answers to compare. Absent when there are none.
     */
    literals?: (string | number | boolean)[];
}

/** A reference of an entity. */
export interface RuntimeReference {
    name: string;
    target: string;
    kind: CardinalityKind;
    /** Fewest elements a multi-valued reference holds (`[1..*]` → 1). */
    minItems: number;
    /** Most elements a multi-valued reference holds, when bounded (`[0..3]` → 3, `[2]` → 2). */
    maxItems?: number;
}

/** An entity: its identifier, attributes and references, in declaration order. */
export interface RuntimeEntity {
    name: string;
    /** The identifier's name: the `id` attribute, or `_id` when the entity declares none. */
    idName: string;
    /** The identifier's type (the surrogate is text). */
    idType: LogicalType;
    /** True when the entity has no `id` attribute and carries the surrogate `_id`. */
    surrogate: boolean;
    /** Every attribute, identifier first. */
    attributes: RuntimeAttribute[];
    references: RuntimeReference[];
}

/** The entities of a model, by name, in declaration order. */
export interface RuntimeModel {
    entities: Map<string, RuntimeEntity>;
    /** The text attributes the queries compare or sort on (their values must be servable: servable-values.ts). */
    searched?: SearchedTexts;
}

/** Builds the runtime description of the entities of one or more (linked) PIDM models. */
export function buildRuntimeModel(models: PidmModel[]): RuntimeModel {
    const entities = new Map<string, RuntimeEntity>();
    const literals = whereLiterals(models);
    const withLiterals = (attribute: RuntimeAttribute, node: Attribute | IdAttribute): RuntimeAttribute => {
        const values = literals.get(node);
        return values ? { ...attribute, literals: values } : attribute;
    };
    for (const model of models) {
        for (const entity of model.entities) {
            if (entities.has(entity.name)) continue;
            const idAttribute = identifierOf(entity);
            const attributes: RuntimeAttribute[] = [];
            attributes.push(
                idAttribute
                    ? withLiterals(
                          { name: idAttribute.name, type: attributeType(idAttribute), isId: true },
                          idAttribute,
                      )
                    : { name: SURROGATE_ID, type: 'text', isId: true },
            );
            const references: RuntimeReference[] = [];
            for (const member of entity.members) {
                if (isAttribute(member))
                    attributes.push(
                        withLiterals({ name: member.name, type: attributeType(member), isId: false }, member),
                    );
                else if (isReference(member)) {
                    references.push({
                        name: member.name,
                        target: member.target.ref?.name ?? member.target.$refText,
                        kind: cardinalityKind(member.cardinality),
                        ...bounds(member.cardinality),
                    });
                } else if (isIdAttribute(member) && member !== idAttribute) {
                    // A second `id` is a validation error; keep it as a plain attribute so data still checks.
                    attributes.push({ name: member.name, type: attributeType(member), isId: false });
                }
            }
            entities.set(entity.name, {
                name: entity.name,
                idName: identifierName(entity),
                idType: attributes[0].type,
                surrogate: !idAttribute,
                attributes,
                references,
            });
        }
    }
    return { entities, searched: searchedTexts(models) };
}

/** The literals each attribute is compared with in the WHERE clauses of the models' queries, deduplicated. */
function whereLiterals(models: readonly PidmModel[]): Map<Attribute | IdAttribute, (string | number | boolean)[]> {
    const found = new Map<Attribute | IdAttribute, (string | number | boolean)[]>();
    // An explicit stack: `a or b or …` nests to the left as deep as it is long.
    const pending: (Expression | undefined)[] = models.flatMap((model) => model.queries.map((query) => query.where));
    while (pending.length > 0) {
        const expression = pending.pop();
        if (isBinaryExpression(expression)) pending.push(expression.right, expression.left);
        else if (isNotExpression(expression)) pending.push(expression.operand);
        else if (isGroupExpression(expression)) pending.push(expression.inner);
        else if (isComparison(expression)) {
            const attribute = resolvePath(expression.path)?.attribute;
            const value = attribute ? literalOf(expression.value, attributeType(attribute)) : undefined;
            if (!attribute || value === undefined) continue;
            const values = found.get(attribute) ?? [];
            if (!values.includes(value)) values.push(value);
            found.set(attribute, values);
        }
    }
    return found;
}

/** A WHERE literal as a value of the attribute's type; undefined for parameters and mistyped literals. */
function literalOf(value: Value | undefined, type: LogicalType): string | number | boolean | undefined {
    if (isParameter(value)) return undefined;
    if (isNumberValue(value) && (type === 'int' || type === 'float')) {
        const number = value.negative ? -value.value : value.value;
        return type === 'int' && !Number.isInteger(number) ? undefined : number;
    }
    if (isBooleanValue(value) && type === 'boolean') return value.value === 'true';
    if (isStringValue(value) && !['int', 'float', 'boolean'].includes(type)) return value.value;
    return undefined;
}

/** Element bounds of a multi-valued reference: `[*]` 0..∞, `[1..*]` 1..∞, `[l..u]` l..u, `[n]` exactly n. */
function bounds(cardinality: Cardinality | undefined): { minItems: number; maxItems?: number } {
    if (!cardinality || cardinality.many) return { minItems: 0 };
    const lower = cardinality.lower ?? 0;
    if (cardinality.upperMany) return { minItems: lower };
    if (cardinality.upper !== undefined) return { minItems: lower, maxItems: cardinality.upper };
    return { minItems: lower, maxItems: lower };
}

/** An entity by name, or an error naming the known ones (a model/data mismatch is a user error). */
export function entityNamed(model: RuntimeModel, name: string): RuntimeEntity {
    const entity = model.entities.get(name);
    if (!entity) throw new Error(`unknown entity '${name}' (known: ${[...model.entities.keys()].join(', ')})`);
    return entity;
}
