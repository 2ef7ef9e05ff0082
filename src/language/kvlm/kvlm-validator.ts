/**
 * KVLM validation: a transformation bug shows up here as a diagnostic with a stable code, not as a
 * wrong script downstream. The checks hold the model to what the targets rely on: unique names, the
 * roles of a field agreeing with what its queries do with it, a natural key that identifies a row.
 */
import type { AstNode, ValidationAcceptor, ValidationChecks } from 'langium';
import type {
    Collection,
    Field,
    FieldRole,
    KComparison,
    KvlmModel,
    KvmodAstType,
    ServedQuery,
} from '../generated/ast.js';
import { checksOnSoundNodes } from '../common/partial-nodes.js';
import type { KvlmCoreServices } from './kvlm-core-module.js';
import { comparisonsOf, isEqualityOperator, multiValuedNodes, referencedName, sameQuery } from './kvlm-semantics.js';

/** Stable codes of KVLM diagnostics. */
export const KvlmIssueCodes = {
    /** Two collections, nodes, fields, queries or parameters share a name where names must be unique. */
    DuplicateName: 'kvlm.duplicate-name',
    /** A field reference (`node.attribute` source aside) names no field of the collection. */
    UnresolvedField: 'kvlm.unresolved-field',
    /** A node reference names no node of the collection's row grain. */
    UnresolvedNode: 'kvlm.unresolved-node',
    /** A role names no query of the collection. */
    UnresolvedQuery: 'kvlm.unresolved-query',
    /** `?name` names no parameter of the query. */
    UnresolvedParameter: 'kvlm.unresolved-parameter',
    /** A query projects, filters or sorts on a field that lacks the role saying so. */
    MissingRole: 'kvlm.missing-role',
    /** A field filtered by equality has only `ranged`, or compared by order has only `filtered`. */
    RoleKindMismatch: 'kvlm.role-kind-mismatch',
    /** A role names a query that does not use the field that way. */
    UnusedRole: 'kvlm.unused-role',
    /** The paper's `indexed` flag disagrees with the field having a `sorted` role. */
    IndexedFlagMismatch: 'kvlm.indexed-flag-mismatch',
    /** A parameter is compared with a field of another type. */
    ParameterTypeMismatch: 'kvlm.parameter-type-mismatch',
    /** A literal cannot be a value of the field it is compared with. */
    LiteralTypeMismatch: 'kvlm.literal-type-mismatch',
    /** A parameter is declared but never used in the filter. */
    UnusedParameter: 'kvlm.unused-parameter',
    /** A natural key does not identify rows: the root or a node reached through a multi-valued step has no part. */
    KeyDoesNotCoverGrain: 'kvlm.key-does-not-cover-grain',
    /** The key field has the name of a field. */
    KeyFieldClash: 'kvlm.key-field-clash',
    /** An include hangs from a node declared after it (so its path from the root is not yet known). */
    NodeOrder: 'kvlm.node-order',
    /** A merge decision names a result collection that exists neither in the model nor in a later merge. */
    UnknownMergeResult: 'kvlm.unknown-merge-result',
    /** The merge threshold is not in (0, 1]. */
    ThresholdOutOfRange: 'kvlm.threshold-out-of-range',
    /** A collection serves no query. */
    CollectionWithoutQuery: 'kvlm.collection-without-query',
} as const;

/** Registers the KVLM checks with Langium's validation registry. */
export function registerKvlmValidationChecks(services: KvlmCoreServices): void {
    const registry = services.validation.ValidationRegistry;
    const validator = services.validation.KvlmValidator;
    const checks: ValidationChecks<KvmodAstType> = {
        KvlmModel: [
            validator.checkCollectionNamesAreUnique,
            validator.checkThresholdIsInRange,
            validator.checkMergeResultsExist,
        ],
        Collection: [
            validator.checkNamesInCollectionAreUnique,
            validator.checkKeyFieldIsNotAField,
            validator.checkNodesFollowTheirParents,
            validator.checkNaturalKeyIdentifiesRows,
            validator.checkCollectionServesAQuery,
            validator.checkQueriesUseFieldsAsTheirRolesSay,
        ],
        Field: [validator.checkIndexedFlagMatchesSortedRole],
        FieldRole: [validator.checkRoleIsUsedByItsQueries],
        ServedQuery: [validator.checkParameterNamesAreUnique, validator.checkParametersAreUsed],
        KComparison: [validator.checkComparedValueFitsTheField],
    };
    registry.register(checksOnSoundNodes(checks, services.shared.AstReflection), validator);
    registry.registerBeforeDocument(() => validator.startDocument());
}

/** Which fields a served query uses in each role, read once per query and document validation. */
interface QueryUsage {
    /** A field reference of the query does not resolve. */
    unresolved: boolean;
    projected: Set<Field | undefined>;
    sorted: Set<Field | undefined>;
    filtered: Set<Field | undefined>;
}

/** What each field type accepts as a literal: dates and times are written as ISO strings. */
const LITERAL_KINDS: Record<string, ReadonlyArray<string>> = {
    text: ['KStringValue'],
    int: ['KNumberValue'],
    float: ['KNumberValue'],
    boolean: ['KBooleanValue'],
    date: ['KStringValue'],
    time: ['KStringValue'],
    datetime: ['KStringValue'],
};

const LITERAL_WORDS: Record<string, string> = {
    KStringValue: 'a string',
    KNumberValue: 'a number',
    KBooleanValue: 'a boolean',
};

/** The KVLM checks; each method reads as the rule it enforces. */
export class KvlmValidator {
    /**
     * Per validation of a document: each query's field usage, so that checking a role costs a lookup,
     * not a pass over the query (a collection of n fields has n roles and queries of n projections).
     */
    private usages = new WeakMap<ServedQuery, QueryUsage>();

    /** Forgets the usages read for the previous validation (references may link elsewhere now). */
    startDocument(): void {
        this.usages = new WeakMap();
    }

    private usageOf(query: ServedQuery): QueryUsage {
        let usage = this.usages.get(query);
        if (!usage) {
            const comparisons = comparisonsOf(query.where);
            usage = {
                unresolved: hasUnresolvedField(query),
                projected: new Set(query.projections.map((projection) => projection.field?.ref)),
                sorted: new Set(query.sortKeys.map((sortKey) => sortKey.field?.ref)),
                filtered: new Set(comparisons.map((comparison) => comparison.field?.ref)),
            };
            this.usages.set(query, usage);
        }
        return usage;
    }

    checkCollectionNamesAreUnique(model: KvlmModel, accept: ValidationAcceptor): void {
        reportDuplicates(model.collections, 'Collection', 'the model', accept);
    }

    checkThresholdIsInRange(model: KvlmModel, accept: ValidationAcceptor): void {
        if (model.threshold !== undefined && !(model.threshold > 0 && model.threshold <= 1)) {
            accept(
                'error',
                `The merge threshold ${model.threshold} is out of range: it is a share of fields and must be in (0, 1].`,
                {
                    node: model,
                    property: 'threshold',
                    code: KvlmIssueCodes.ThresholdOutOfRange,
                },
            );
        }
    }

    /** A result may also have been merged again later (`A + B -> A_B`, then `A_B + C -> A_B_C`). */
    checkMergeResultsExist(model: KvlmModel, accept: ValidationAcceptor): void {
        const collections = new Set(model.collections.map((collection) => collection.name));
        const mergedAgain = new Set(
            model.decisions
                .filter((decision) => decision.result !== undefined)
                .flatMap((decision) => [decision.left, decision.right]),
        );
        for (const decision of model.decisions) {
            if (
                decision.result !== undefined &&
                !collections.has(decision.result) &&
                !mergedAgain.has(decision.result)
            ) {
                accept(
                    'error',
                    `Merge result '${decision.result}' is not a collection of this model, nor merged again by a later decision.`,
                    {
                        node: decision,
                        property: 'result',
                        code: KvlmIssueCodes.UnknownMergeResult,
                    },
                );
            }
        }
    }

    checkNamesInCollectionAreUnique(collection: Collection, accept: ValidationAcceptor): void {
        const where = `collection '${collection.name}'`;
        reportDuplicates(
            [collection.root, ...collection.nodes].filter((node) => node !== undefined),
            'Node',
            where,
            accept,
        );
        reportDuplicates(collection.fields, 'Field', where, accept);
        reportDuplicates(collection.queries, 'Query', where, accept);
    }

    checkKeyFieldIsNotAField(collection: Collection, accept: ValidationAcceptor): void {
        if (collection.fields.some((field) => field.name === collection.keyField)) {
            accept(
                'error',
                `Key field '${collection.keyField}' has the name of a field of collection '${collection.name}'; the key would overwrite that field in every row.`,
                {
                    node: collection,
                    property: 'keyField',
                    code: KvlmIssueCodes.KeyFieldClash,
                },
            );
        }
    }

    checkNodesFollowTheirParents(collection: Collection, accept: ValidationAcceptor): void {
        const declared = new Set<unknown>([collection.root]);
        for (const node of collection.nodes) {
            const parent = node.parent?.ref;
            if (parent && !declared.has(parent)) {
                accept(
                    'error',
                    `Include '${node.name}' hangs from '${parent.name}', which is declared after it; a node must follow its parent.`,
                    {
                        node,
                        property: 'parent',
                        code: KvlmIssueCodes.NodeOrder,
                    },
                );
            }
            declared.add(node);
        }
    }

    /**
     * Rows are root instances multiplied by every multi-valued step; the key must name the root and each
     * node reached through a `many` step, or two rows get the same key and one overwrites the other.
     * (A node reached through `one`/`optional` steps is fixed by its parent and needs no part.)
     */
    checkNaturalKeyIdentifiesRows(collection: Collection, accept: ValidationAcceptor): void {
        const strategy = collection.strategy;
        if (strategy?.$type !== 'NaturalKey') return;
        const partNodes = strategy.parts.map((part) => part.node?.ref);
        if (partNodes.some((node) => node === undefined)) return; // reported as unresolved
        const missing = [collection.root, ...multiValuedNodes(collection)].filter(
            (node) => node && !partNodes.includes(node),
        );
        for (const node of missing) {
            const why =
                node.$type === 'RootNode'
                    ? `the root '${node.name}' (one row per ${node.entity})`
                    : `'${node.name}', reached through the multi-valued step ${referencedName(node.parent)}.${node.reference}`;
            accept(
                'error',
                `The natural key of collection '${collection.name}' has no part for ${why}: rows would collide.`,
                {
                    node: strategy,
                    code: KvlmIssueCodes.KeyDoesNotCoverGrain,
                },
            );
        }
    }

    checkCollectionServesAQuery(collection: Collection, accept: ValidationAcceptor): void {
        if (collection.queries.length === 0) {
            accept('warning', `Collection '${collection.name}' serves no query.`, {
                node: collection,
                property: 'name',
                code: KvlmIssueCodes.CollectionWithoutQuery,
            });
        }
    }

    /** The targets index a field by its roles, so a use without the role would be a query without an index. */
    checkQueriesUseFieldsAsTheirRolesSay(collection: Collection, accept: ValidationAcceptor): void {
        for (const query of collection.queries) {
            query.projections.forEach((projection) => {
                const field = projection.field?.ref;
                if (field && !hasRole(field, 'projected', query)) {
                    accept(
                        'error',
                        `Query '${query.name}' projects field '${field.name}', which has no projected(${query.name}) role.`,
                        {
                            node: projection,
                            property: 'field',
                            code: KvlmIssueCodes.MissingRole,
                        },
                    );
                }
            });
            query.sortKeys.forEach((sortKey) => {
                const field = sortKey.field?.ref;
                if (field && !hasRole(field, 'sorted', query)) {
                    accept(
                        'error',
                        `Query '${query.name}' sorts on field '${field.name}', which has no sorted(${query.name}) role.`,
                        {
                            node: sortKey,
                            property: 'field',
                            code: KvlmIssueCodes.MissingRole,
                        },
                    );
                }
            });
            for (const comparison of comparisonsOf(query.where)) {
                const field = comparison.field?.ref;
                if (!field) continue;
                const filtered = hasRole(field, 'filtered', query);
                const ranged = hasRole(field, 'ranged', query);
                const equality = isEqualityOperator(comparison.operator);
                if (!filtered && !ranged) {
                    accept(
                        'error',
                        `Query '${query.name}' filters on field '${field.name}', which has no ${equality ? 'filtered' : 'ranged'}(${query.name}) role.`,
                        {
                            node: comparison,
                            property: 'field',
                            code: KvlmIssueCodes.MissingRole,
                        },
                    );
                } else if (equality && !filtered) {
                    accept(
                        'warning',
                        `Query '${query.name}' compares field '${field.name}' with '${comparison.operator}', an equality: expected filtered(${query.name}), found only ranged.`,
                        {
                            node: comparison,
                            property: 'field',
                            code: KvlmIssueCodes.RoleKindMismatch,
                        },
                    );
                } else if (!equality && !ranged) {
                    accept(
                        'warning',
                        `Query '${query.name}' compares field '${field.name}' with '${comparison.operator}', a range: expected ranged(${query.name}), found only filtered.`,
                        {
                            node: comparison,
                            property: 'field',
                            code: KvlmIssueCodes.RoleKindMismatch,
                        },
                    );
                }
            }
        }
    }

    checkRoleIsUsedByItsQueries(role: FieldRole, accept: ValidationAcceptor): void {
        const field = role.$container;
        role.queries.forEach((reference, index) => {
            const query = reference.ref;
            if (!query) return;
            const usage = this.usageOf(query);
            // A misspelt field in the query is reported as unresolved; do not blame the role as well.
            if (usage.unresolved) return;
            const used = (
                role.kind === 'projected' ? usage.projected : role.kind === 'sorted' ? usage.sorted : usage.filtered
            ).has(field);
            if (!used) {
                const verb = { projected: 'project', sorted: 'sort on', filtered: 'filter on', ranged: 'filter on' }[
                    role.kind
                ];
                accept(
                    'warning',
                    `Field '${field.name}' is ${role.kind} for query '${query.name}', but that query does not ${verb} it.`,
                    {
                        node: role,
                        property: 'queries',
                        index,
                        code: KvlmIssueCodes.UnusedRole,
                    },
                );
            }
        });
    }

    checkIndexedFlagMatchesSortedRole(field: Field, accept: ValidationAcceptor): void {
        const sorted = field.roles.some((role) => role.kind === 'sorted');
        if (field.indexed && !sorted) {
            accept('warning', `Field '${field.name}' is marked indexed, but no query sorts on it.`, {
                node: field,
                property: 'indexed',
                code: KvlmIssueCodes.IndexedFlagMismatch,
            });
        } else if (!field.indexed && sorted) {
            accept(
                'warning',
                `Field '${field.name}' is sorted on but not marked indexed (the paper's flag for ORDER BY attributes).`,
                {
                    node: field,
                    property: 'name',
                    code: KvlmIssueCodes.IndexedFlagMismatch,
                },
            );
        }
    }

    checkParameterNamesAreUnique(query: ServedQuery, accept: ValidationAcceptor): void {
        reportDuplicates(query.params, 'Parameter', `query '${query.name}'`, accept);
    }

    checkParametersAreUsed(query: ServedQuery, accept: ValidationAcceptor): void {
        const used = new Set<unknown>();
        for (const comparison of comparisonsOf(query.where)) {
            if (comparison.value?.$type === 'ParameterRef') used.add(comparison.value.parameter?.ref);
        }
        for (const param of query.params) {
            if (!used.has(param)) {
                accept('warning', `Parameter '${param.name}' of query '${query.name}' is never used.`, {
                    node: param,
                    property: 'name',
                    code: KvlmIssueCodes.UnusedParameter,
                });
            }
        }
    }

    checkComparedValueFitsTheField(comparison: KComparison, accept: ValidationAcceptor): void {
        const field = comparison.field?.ref;
        const value = comparison.value;
        if (!field || !value) return;
        if (value.$type === 'ParameterRef') {
            const param = value.parameter?.ref;
            if (param && param.type !== field.type) {
                accept(
                    'warning',
                    `Parameter '${param.name}' is ${param.type} but is compared with field '${field.name}' of type ${field.type}.`,
                    {
                        node: value,
                        property: 'parameter',
                        code: KvlmIssueCodes.ParameterTypeMismatch,
                    },
                );
            }
        } else if (!(LITERAL_KINDS[field.type] ?? []).includes(value.$type)) {
            accept(
                'warning',
                `Field '${field.name}' of type ${field.type} is compared with ${LITERAL_WORDS[value.$type]}.`,
                {
                    node: value,
                    code: KvlmIssueCodes.LiteralTypeMismatch,
                },
            );
        }
    }
}

function hasUnresolvedField(query: ServedQuery): boolean {
    const references = [...query.projections, ...query.sortKeys, ...comparisonsOf(query.where)].map(
        (usage) => usage.field,
    );
    return references.some((reference) => reference?.ref === undefined);
}

function hasRole(field: Field, kind: FieldRole['kind'], query: ServedQuery): boolean {
    return field.roles.some(
        (role) => role.kind === kind && role.queries.some((reference) => sameQuery(reference, query)),
    );
}

function reportDuplicates(
    items: ReadonlyArray<AstNode & { name: string }>,
    kind: string,
    where: string,
    accept: ValidationAcceptor,
): void {
    const seen = new Set<string>();
    for (const item of items) {
        if (seen.has(item.name)) {
            accept('error', `${kind} '${item.name}' is declared twice in ${where}.`, {
                node: item,
                property: 'name',
                code: KvlmIssueCodes.DuplicateName,
            });
        }
        seen.add(item.name);
    }
}
