/**
 * PIDM validation: every check has a stable issue code (`PidmIssueCodes`) that tests and quick fixes
 * rely on, and a message a modeler understands. Checks run on partial ASTs too (after parse errors) and
 * on unresolved references: every cross-reference is read with `?.`, and a check that depends on a name
 * leaves unresolved ones to the linking diagnostics.
 */
import {
    AstUtils,
    WorkspaceCache,
    type AstNode,
    type LangiumDocuments,
    type LangiumSharedCoreServices,
    type ValidationAcceptor,
    type ValidationChecks,
} from 'langium';
import {
    isAttribute,
    isBooleanValue,
    isComparison,
    isFromClause,
    isIdAttribute,
    isNumberValue,
    isOrderItem,
    isPidmModel,
    isProjection,
    isReference,
    isStringValue,
    type Attribute,
    type Cardinality,
    type ChangeRate,
    type Comparison,
    type EntityCount,
    type Entity,
    type FromClause,
    type KvmodAstType,
    type Path,
    type PidmModel,
    type Query,
    type QueryRate,
    type Reference,
    type ReferenceSize,
    type Segment,
    type StringValue,
    type WorkloadItem,
} from '../generated/ast.js';
import { sizeRange } from './pidm-workload.js';
import { startsWithCalendarDate } from '../common/calendar-date.js';
import { checksOnSoundNodes } from '../common/partial-nodes.js';
import type { PidmCoreServices } from './pidm-core-module.js';
import { modelSetIndex } from '../common/model-sets.js';
import { PidmIssueCodes } from './pidm-issue-codes.js';
import { databaseChecks } from './pidm-database-check.js';
import {
    SURROGATE_ID,
    attributeType,
    entityOfElement,
    identifierOf,
    includeAlias,
    isMultiValued,
    parameterName,
    resolvePath,
} from './pidm-semantics.js';

export { PidmIssueCodes, type PidmIssueCode } from './pidm-issue-codes.js';

/** The data of a case-mismatch diagnostic, read by the quick fix. */
export interface CaseMismatchData {
    code: typeof PidmIssueCodes.CaseMismatch;
    /** The declared spelling that replaces the written one. */
    expected: string;
}

/** The extra data of a size outside its cardinality, read by the quick fix. */
export interface SizeOutsideCardinalityData {
    code: typeof PidmIssueCodes.SizeOutsideCardinality;
    /** The nearest size the cardinality admits. */
    expected: string;
}

/** Registers the PIDM checks with Langium's validation registry. */
export function registerPidmValidationChecks(services: PidmCoreServices): void {
    const registry = services.validation.ValidationRegistry;
    const validator = services.validation.PidmValidator;
    const checks: ValidationChecks<KvmodAstType> = {
        PidmModel: [
            validator.checkNamesAreUniqueInWorkspace,
            validator.checkEveryEntityIsReachedByAQuery,
            validator.checkWorkloadFiguresAreSaidOnce,
        ],
        Entity: [validator.checkMemberNamesAreUnique, validator.checkEntityHasOneIdentifier],
        Cardinality: validator.checkCardinalityAdmitsSomething,
        Reference: validator.checkTargetSpelling,
        FromClause: validator.checkFromEntitySpelling,
        Segment: validator.checkSegmentSpelling,
        Path: [validator.checkPathContinuesOnlyAfterReferences, validator.checkValuePathEndsInAttribute],
        Query: [
            validator.checkQuerySelectsSomething,
            validator.checkAliasesAreUnique,
            validator.checkIncludesEndInReferences,
            validator.checkPathsAreIncluded,
            validator.checkSortKeysAreUnique,
            validator.checkParametersHaveOneType,
        ],
        Comparison: validator.checkComparedValueFitsAttributeType,
        StringValue: validator.checkParameterSyntax,
        QueryRate: validator.checkQueryRateSpelling,
        ChangeRate: [validator.checkChangeRateSpelling, validator.checkChangeRateTarget],
        EntityCount: [validator.checkEntityCountSpelling, validator.checkEntityCountIsWhole],
        ReferenceSize: [validator.checkReferenceSizeSpelling, validator.checkReferenceSizeFitsCardinality],
    };
    registry.register(checksOnSoundNodes(checks, services.shared.AstReflection), validator);
    registry.register(
        checksOnSoundNodes(
            databaseChecks(() => services.shared),
            services.shared.AstReflection,
        ),
    );
}

/** The PIDM checks; each method reads as the rule it enforces. */
export class PidmValidator {
    private readonly documents: () => LangiumDocuments;
    private readonly shared: () => LangiumSharedCoreServices;
    private workspaceCache?: WorkspaceCache<string, WorkspaceFacts>;

    constructor(services: PidmCoreServices) {
        // Resolved lazily: the shared services are still being built when the language's validator is.
        this.documents = () => services.shared.workspace.LangiumDocuments;
        this.shared = () => services.shared;
    }

    /** Entity and query names are unique across all PIDM files of the workspace. */
    checkNamesAreUniqueInWorkspace(model: PidmModel, accept: ValidationAcceptor): void {
        const facts = this.workspaceFacts(model);
        // A model outside the workspace (validated on its own) counts as one more file of it.
        const outside = !facts.models.has(model);
        const entityCount = outside ? countNames(model.entities ?? [], new Map(facts.entityCount)) : facts.entityCount;
        const queryCount = outside ? countNames(model.queries ?? [], new Map(facts.queryCount)) : facts.queryCount;
        for (const entity of model.entities ?? []) {
            if (entity.name && (entityCount.get(entity.name) ?? 0) > 1) {
                accept('error', `Duplicate entity '${entity.name}': entity names must be unique.`, {
                    node: entity,
                    property: 'name',
                    code: PidmIssueCodes.DuplicateEntity,
                    data: { code: PidmIssueCodes.DuplicateEntity },
                });
            }
        }
        for (const query of model.queries ?? []) {
            if (query.name && (queryCount.get(query.name) ?? 0) > 1) {
                accept('error', `Duplicate query '${query.name}': query names must be unique.`, {
                    node: query,
                    property: 'name',
                    code: PidmIssueCodes.DuplicateQuery,
                    data: { code: PidmIssueCodes.DuplicateQuery },
                });
            }
        }
    }

    /** Every entity is the FROM entity of a query or reached by an INCLUDE or path; otherwise no collection holds it. */
    checkEveryEntityIsReachedByAQuery(model: PidmModel, accept: ValidationAcceptor): void {
        const facts = this.workspaceFacts(model);
        const reached = facts.models.has(model) ? facts.reached : addReachedEntities(model, new Set(facts.reached));
        for (const entity of model.entities ?? []) {
            if (entity.name && !reached.has(entity)) {
                accept('info', `Entity '${entity.name}' is used by no query: no collection will hold its data.`, {
                    node: entity,
                    property: 'name',
                    code: PidmIssueCodes.UnreachableEntity,
                    data: { code: PidmIssueCodes.UnreachableEntity },
                });
            }
        }
    }

    /** Attributes, references and the identifier of an entity have distinct names. */
    checkMemberNamesAreUnique(entity: Entity, accept: ValidationAcceptor): void {
        if (!entity.name) return; // a parse error already reported
        const seen = new Set<string>();
        for (const member of entity.members ?? []) {
            if (!member.name) continue;
            if (seen.has(member.name)) {
                accept(
                    'error',
                    `Duplicate member '${member.name}' in entity ${entity.name}: attributes and references need distinct names.`,
                    {
                        node: member,
                        property: 'name',
                        code: PidmIssueCodes.DuplicateMember,
                        data: { code: PidmIssueCodes.DuplicateMember },
                    },
                );
            }
            seen.add(member.name);
        }
    }

    /** An entity has at most one `id`; without one it gets the surrogate identifier, which the modeler should know. */
    checkEntityHasOneIdentifier(entity: Entity, accept: ValidationAcceptor): void {
        const ids = (entity.members ?? []).filter(isIdAttribute);
        if (ids.length === 0 && entity.name) {
            accept(
                'warning',
                `Entity '${entity.name}' has no 'id' attribute: it gets the surrogate identifier '${SURROGATE_ID}'.`,
                {
                    node: entity,
                    property: 'name',
                    code: PidmIssueCodes.MissingId,
                    data: { code: PidmIssueCodes.MissingId },
                },
            );
        }
        for (const extra of entity.name ? ids.slice(1) : []) {
            accept(
                'error',
                `Entity '${entity.name}' declares more than one 'id' ('${ids[0].name}' and '${extra.name}'): an entity has one identifier.`,
                {
                    node: extra,
                    keyword: 'id',
                    code: PidmIssueCodes.MultipleIds,
                    data: { code: PidmIssueCodes.MultipleIds },
                },
            );
        }
    }

    /** A cardinality is written with whole numbers and admits at least one target: not `[0]`, `[2..1]`, `[1.5]`. */
    checkCardinalityAdmitsSomething(cardinality: Cardinality, accept: ValidationAcceptor): void {
        const { lower, upper } = cardinality;
        const text = cardinality.$cstNode?.text ?? 'this cardinality';
        const invalid = (reason: string) =>
            accept('error', `Invalid cardinality ${text}: ${reason}.`, {
                node: cardinality,
                code: PidmIssueCodes.InvalidCardinality,
                data: { code: PidmIssueCodes.InvalidCardinality },
            });
        if ((lower !== undefined && !Number.isInteger(lower)) || (upper !== undefined && !Number.isInteger(upper))) {
            invalid('bounds are whole numbers');
        } else if (upper !== undefined && lower !== undefined && upper < lower) {
            invalid(`the upper bound ${upper} is below the lower bound ${lower}`);
        } else if ((upper ?? lower) === 0 && !cardinality.upperMany && !cardinality.many) {
            invalid('a reference admits at least one target; write [0..1] for an optional one');
        }
    }

    /** A reference's target entity is written as declared. */
    checkTargetSpelling(reference: Reference, accept: ValidationAcceptor): void {
        checkSpelling(reference.target, reference, 'target', accept);
    }

    /** The FROM entity is written as declared. */
    checkFromEntitySpelling(from: FromClause, accept: ValidationAcceptor): void {
        checkSpelling(from.entity, from, 'entity', accept);
    }

    /** A path step is written as declared (the paper's `firstName` for `firstname` resolves, with this warning). */
    checkSegmentSpelling(segment: Segment, accept: ValidationAcceptor): void {
        checkSpelling(segment.element, segment, 'element', accept);
    }

    /** Only a reference, an alias or the FROM entity leads on in a path; an attribute ends it. */
    checkPathContinuesOnlyAfterReferences(path: Path, accept: ValidationAcceptor): void {
        const segments = path.segments ?? [];
        for (let i = 0; i < segments.length - 1; i++) {
            const segment = segments[i];
            const element = segment.element?.ref;
            if (isAttribute(element) || isIdAttribute(element)) {
                const owner = element.$container?.name;
                accept(
                    'error',
                    `'${segment.element.$refText}' is an attribute of entity ${owner}, not a reference: a path cannot continue after it.`,
                    {
                        node: segment,
                        property: 'element',
                        code: PidmIssueCodes.AttributeNotReference,
                        data: { code: PidmIssueCodes.AttributeNotReference },
                    },
                );
                return;
            }
        }
    }

    /** SELECT, WHERE and ORDER BY read attributes: their paths end in one. */
    checkValuePathEndsInAttribute(path: Path, accept: ValidationAcceptor): void {
        const owner = path.$container;
        if (!isProjection(owner) && !isComparison(owner) && !isOrderItem(owner)) return;
        const last = path.segments?.at(-1);
        const element = last?.element?.ref;
        if (!last || !element || isAttribute(element) || isIdAttribute(element)) return;
        const entity = entityOfElement(element);
        const written = pathText(path);
        const example = entity ? exampleAttribute(entity) : undefined;
        const hint = example ? `, e.g. '${written}.${example}'` : '';
        const clause = isProjection(owner) ? 'SELECT' : isComparison(owner) ? 'WHERE' : 'ORDER BY';
        accept(
            'error',
            `'${written}' stands for ${entity ? `entity ${entity.name}` : 'an entity'}, not an attribute: ${clause} needs one of its attributes${hint}.`,
            {
                node: last,
                property: 'element',
                code: PidmIssueCodes.ReferenceNotAttribute,
                data: { code: PidmIssueCodes.ReferenceNotAttribute },
            },
        );
    }

    /** A query selects at least one attribute (only reachable after a parse error). */
    checkQuerySelectsSomething(query: Query, accept: ValidationAcceptor): void {
        // An unnamed query is a parse error already reported, and so is `SELECT *` (the SQL habit message says
        // what to write instead): saying more about either only adds noise.
        if (query.name && (query.projections ?? []).length === 0 && !selectsStar(query)) {
            accept('error', `Query '${query.name}' selects nothing: list at least one attribute after SELECT.`, {
                node: query,
                property: 'name',
                code: PidmIssueCodes.EmptySelect,
                data: { code: PidmIssueCodes.EmptySelect },
            });
        }
    }

    /** The FROM alias and the INCLUDE aliases of a query are distinct, and so are the SELECT … AS names. */
    checkAliasesAreUnique(query: Query, accept: ValidationAcceptor): void {
        const aliases = new Set<string>();
        const fromName = query.from?.alias ?? query.from?.entity?.$refText;
        if (fromName) aliases.add(fromName);
        for (const include of query.includes ?? []) {
            const alias = includeAlias(include);
            if (!alias) continue;
            if (aliases.has(alias)) {
                const message = `Duplicate alias '${alias}' in query ${query.name}: give this INCLUDE its own name with AS.`;
                const data = { code: PidmIssueCodes.DuplicateAlias };
                const last = include.path?.segments.at(-1);
                if (include.alias || !last)
                    accept('error', message, { node: include, property: 'alias', code: data.code, data });
                else accept('error', message, { node: last, property: 'element', code: data.code, data });
            }
            aliases.add(alias);
        }
        const outputs = new Set<string>();
        for (const projection of query.projections ?? []) {
            if (!projection.alias) continue;
            if (outputs.has(projection.alias)) {
                accept('error', `Duplicate alias '${projection.alias}' in the SELECT list of query ${query.name}.`, {
                    node: projection,
                    property: 'alias',
                    code: PidmIssueCodes.DuplicateAlias,
                    data: { code: PidmIssueCodes.DuplicateAlias },
                });
            }
            outputs.add(projection.alias);
        }
    }

    /** An INCLUDE names a reference: its path ends in one and goes through at least one. */
    checkIncludesEndInReferences(query: Query, accept: ValidationAcceptor): void {
        for (const include of query.includes ?? []) {
            const last = include.path?.segments?.at(-1);
            const element = last?.element?.ref;
            if (!last || !element) continue;
            if (isAttribute(element) || isIdAttribute(element)) {
                accept(
                    'error',
                    `INCLUDE needs a reference: '${last.element.$refText}' is an attribute of entity ${element.$container?.name}.`,
                    {
                        node: last,
                        property: 'element',
                        code: PidmIssueCodes.IncludeNotReference,
                        data: { code: PidmIssueCodes.IncludeNotReference },
                    },
                );
            } else if (isFromClause(element)) {
                const entity = element.entity?.ref;
                const reference = entity?.members.find(isReference);
                const hint = reference ? `, e.g. '${last.element.$refText}.${reference.name}'` : '';
                accept('error', `INCLUDE needs a path through at least one reference${hint}.`, {
                    node: last,
                    property: 'element',
                    code: PidmIssueCodes.IncludeNotReference,
                    data: { code: PidmIssueCodes.IncludeNotReference },
                });
            }
        }
    }

    /**
     * Every reference a SELECT / WHERE / ORDER BY path walks is covered by an INCLUDE (or a prefix of
     * one). A single-valued one is included implicitly, with a warning; a multi-valued one would
     * multiply the rows behind the modeler's back, so it is an error.
     */
    checkPathsAreIncluded(query: Query, accept: ValidationAcceptor): void {
        const root = query.from?.entity?.ref;
        if (!root) return;
        const covered = new Set<string>();
        for (const include of query.includes ?? []) {
            const resolved = include.path ? resolvePath(include.path) : undefined;
            if (!resolved) continue;
            resolved.steps.forEach((_, index) => covered.add(stepsKey(resolved.steps.slice(0, index + 1))));
        }
        const warned = new Set<string>();
        for (const path of valuePaths(query)) {
            // A path that walks no reference itself (`a`, `E.a`, `Alias.a`) has no step beyond its head's:
            // an include's steps are covered by that include, or the path does not resolve. Most paths of
            // a large model are such; resolving each through its alias chain cost seconds.
            if (!walksAReference(path)) continue;
            const resolved = resolvePath(path);
            if (!resolved) continue;
            const uncovered = resolved.steps
                .map((step, index) => ({ step, index, key: stepsKey(resolved.steps.slice(0, index + 1)) }))
                .filter(({ key }) => !covered.has(key));
            if (uncovered.length === 0) continue;
            const many = uncovered.find(({ step }) => isMultiValued(step));
            const rootName = query.from?.entity?.$refText || root.name;
            const includeText = (index: number) =>
                [rootName, ...resolved.steps.slice(0, index + 1).map((s) => s.name)].join('.');
            const segment = (step: Reference) =>
                [...path.segments].reverse().find((s) => s.element?.ref === step) ?? path.segments[0];
            if (many) {
                accept(
                    'error',
                    `'${pathText(path)}' goes through the multi-valued reference '${many.step.name}', which no INCLUDE names: add 'INCLUDE ${includeText(many.index)} AS …' so that the query says it returns one row per ${many.step.target?.ref?.name ?? many.step.name}.`,
                    {
                        node: segment(many.step),
                        property: 'element',
                        code: PidmIssueCodes.PathNotIncluded,
                        data: { code: PidmIssueCodes.PathNotIncluded },
                    },
                );
                continue;
            }
            const first = uncovered[0];
            const deepest = uncovered[uncovered.length - 1];
            // One warning per implicitly included node: later paths through the same references add nothing.
            if (uncovered.every(({ key }) => warned.has(key))) continue;
            uncovered.forEach(({ key }) => warned.add(key));
            const names = uncovered.map(({ step }) => `'${step.name}'`);
            const what =
                names.length === 1
                    ? `the reference ${names[0]}, which no INCLUDE names: it is`
                    : `the references ${names.slice(0, -1).join(', ')} and ${names.at(-1)}, which no INCLUDE names: they are`;
            accept(
                'warning',
                `'${pathText(path)}' goes through ${what} included implicitly (write 'INCLUDE ${includeText(deepest.index)} AS …' to make it explicit).`,
                {
                    node: segment(first.step),
                    property: 'element',
                    code: PidmIssueCodes.ImplicitInclude,
                    data: { code: PidmIssueCodes.ImplicitInclude },
                },
            );
        }
    }

    /** An attribute appears once in ORDER BY: a second mention cannot change the order. */
    checkSortKeysAreUnique(query: Query, accept: ValidationAcceptor): void {
        const seen = new Set<string>();
        for (const item of query.orderBy ?? []) {
            const resolved = item.path ? resolvePath(item.path) : undefined;
            if (!resolved?.attribute) continue;
            if (seen.has(resolved.key)) {
                accept(
                    'warning',
                    `'${pathText(item.path)}' is already a sort key of query ${query.name}: this repetition has no effect.`,
                    {
                        node: item,
                        code: PidmIssueCodes.DuplicateSortKey,
                        data: { code: PidmIssueCodes.DuplicateSortKey },
                    },
                );
            }
            seen.add(resolved.key);
        }
    }

    /**
     * A literal fits the attribute it is compared with: a number for int/float, true/false for boolean,
     * an ISO string for date (`YYYY-MM-DD`), time (`HH:MM[:SS]`) and datetime (`YYYY-MM-DDTHH:MM[:SS]`).
     * Parameters fit anything; a text attribute compared with a number or boolean is a warning.
     */
    checkComparedValueFitsAttributeType(comparison: Comparison, accept: ValidationAcceptor): void {
        const attribute = comparison.path ? resolvePath(comparison.path)?.attribute : undefined;
        const value = comparison.value;
        if (!attribute || !value) return;
        if (isStringValue(value) && typeof value.value === 'string' && value.value.startsWith('?')) return;
        const type = attributeType(attribute);
        const written = value.$cstNode?.text ?? '';
        const describe = `'${pathText(comparison.path)}' (${type})`;
        const mismatch = (severity: 'error' | 'warning', expected: string) =>
            accept(severity, `${describe} is compared with ${written}, which is not ${expected}.`, {
                node: comparison,
                property: 'value',
                code: PidmIssueCodes.TypeMismatch,
                data: { code: PidmIssueCodes.TypeMismatch },
            });
        switch (type) {
            case 'int':
            case 'float':
                if (!isNumberValue(value)) mismatch('error', 'a number (or a parameter "?")');
                break;
            case 'boolean':
                if (!isBooleanValue(value)) mismatch('error', 'true or false (or a parameter "?")');
                break;
            case 'date':
            case 'time':
            case 'datetime':
                if (!isStringValue(value) || !ISO_FORMATS[type].pattern.test(value.value ?? '')) {
                    mismatch('error', `a ${type} written "${ISO_FORMATS[type].example}" (or a parameter "?")`);
                } else if (type !== 'time' && !startsWithCalendarDate(value.value)) {
                    mismatch('error', 'a calendar date (years 0001-9999)');
                }
                break;
            case 'text':
                if (!isStringValue(value)) mismatch('warning', 'a string: write it in quotes');
                break;
        }
    }

    /**
     * A named parameter is one value, so the attributes it is compared with have one type. The application binds
     * `"?x"` once; compared with a date here and a text there, it cannot be both, and the design would silently get
     * two parameters (`x` and `x_2`, pidm-parameters.ts) that the generated client asks for apart. An error, as
     * SQL engines refuse a parameter deduced with two types (PostgreSQL: "inconsistent types deduced for
     * parameter"); marked at the use that disagrees with the first.
     */
    checkParametersHaveOneType(query: Query, accept: ValidationAcceptor): void {
        if (!query.where) return;
        const first = new Map<string, { type: string; path: string }>();
        for (const node of AstUtils.streamAst(query.where)) {
            if (!isComparison(node)) continue;
            const name = parameterName(node.value);
            if (!name || !/^[_a-zA-Z]\w*$/.test(name)) continue;
            const attribute = node.path ? resolvePath(node.path)?.attribute : undefined;
            if (!attribute) continue;
            const type = attributeType(attribute);
            const path = pathText(node.path);
            const earlier = first.get(name);
            if (!earlier) {
                first.set(name, { type, path });
            } else if (earlier.type !== type) {
                accept(
                    'error',
                    `Parameter "?${name}" is compared with '${path}' (${type}) here and with '${earlier.path}' (${earlier.type}) before: ` +
                        `one parameter is one value of one type. Give one of them a name of its own (for example "?${name}_${type}").`,
                    {
                        node: node.value!,
                        code: PidmIssueCodes.ParameterTypeConflict,
                        data: { code: PidmIssueCodes.ParameterTypeConflict },
                    },
                );
            }
        }
    }

    /** A workload says each figure once: a query's rate, an operation on a target, a count, a size. */
    checkWorkloadFiguresAreSaidOnce(model: PidmModel, accept: ValidationAcceptor): void {
        const seen = new Map<string, WorkloadItem>();
        for (const workload of model.workloads ?? []) {
            for (const item of workload.items) {
                const key = workloadFigureKey(item);
                if (!key) continue;
                const first = seen.get(key.key);
                if (!first) {
                    seen.set(key.key, item);
                    continue;
                }
                const line = (first.$cstNode?.range.start.line ?? 0) + 1;
                accept('error', `The workload already gives ${key.what} on line ${line}: say each figure once.`, {
                    node: item,
                    code: PidmIssueCodes.DuplicateWorkloadFigure,
                    data: { code: PidmIssueCodes.DuplicateWorkloadFigure },
                });
            }
        }
    }

    /** A workload's query is written as declared. */
    checkQueryRateSpelling(item: QueryRate, accept: ValidationAcceptor): void {
        checkSpelling(item.query, item, 'query', accept);
    }

    /** A workload's entity and member are written as declared. */
    checkChangeRateSpelling(item: ChangeRate, accept: ValidationAcceptor): void {
        checkSpelling(item.entity, item, 'entity', accept);
        checkSpelling(item.member, item, 'member', accept);
    }

    /** Instances are created and deleted whole, and an identifier is never updated. */
    checkChangeRateTarget(item: ChangeRate, accept: ValidationAcceptor): void {
        const member = item.member?.ref;
        const entity = item.entity?.ref;
        if (!member || !entity) return;
        if (item.operation === 'create' || item.operation === 'delete') {
            accept(
                'error',
                `An instance of ${entity.name} is created and deleted whole: write '${item.operation} ${entity.name}', or 'update ${entity.name}.${member.name}' for a change of ${member.name}.`,
                {
                    node: item,
                    property: 'member',
                    code: PidmIssueCodes.WorkloadMemberOperation,
                    data: { code: PidmIssueCodes.WorkloadMemberOperation },
                },
            );
        } else if (isIdAttribute(member)) {
            accept(
                'error',
                `'${member.name}' identifies an instance of ${entity.name} and is never updated: changing it is a delete and a create.`,
                {
                    node: item,
                    property: 'member',
                    code: PidmIssueCodes.UpdateIdentifier,
                    data: { code: PidmIssueCodes.UpdateIdentifier },
                },
            );
        }
    }

    /** A workload's counted entity is written as declared. */
    checkEntityCountSpelling(item: EntityCount, accept: ValidationAcceptor): void {
        checkSpelling(item.entity, item, 'entity', accept);
    }

    /** An entity has a whole number of instances, at least one. */
    checkEntityCountIsWhole(item: EntityCount, accept: ValidationAcceptor): void {
        if (item.count === undefined || (Number.isInteger(item.count) && item.count >= 1)) return;
        accept('error', `An entity has a whole number of instances, at least 1, not ${item.count}.`, {
            node: item,
            property: 'count',
            code: PidmIssueCodes.InvalidCount,
            data: { code: PidmIssueCodes.InvalidCount },
        });
    }

    /** A workload's sized entity and reference are written as declared. */
    checkReferenceSizeSpelling(item: ReferenceSize, accept: ValidationAcceptor): void {
        checkSpelling(item.entity, item, 'entity', accept);
        checkSpelling(item.reference, item, 'reference', accept);
    }

    /** A size is given for a reference, and lies within what its cardinality admits; the quick fix writes the nearest bound. */
    checkReferenceSizeFitsCardinality(item: ReferenceSize, accept: ValidationAcceptor): void {
        const reference = item.reference?.ref as AstNode | undefined;
        if (!reference || item.average === undefined) return;
        if (!isReference(reference)) {
            accept(
                'error',
                `'${item.reference.$refText}' is not a reference of ${item.entity?.ref?.name ?? 'the entity'}: a size is the average number of targets of a reference.`,
                {
                    node: item,
                    property: 'reference',
                    code: PidmIssueCodes.SizeNotReference,
                    data: { code: PidmIssueCodes.SizeNotReference },
                },
            );
            return;
        }
        const [least, most] = sizeRange(reference);
        if (item.average >= least && item.average <= most) return;
        const nearest = item.average < least ? least : most;
        const cardinality = reference.cardinality?.$cstNode?.text ?? '';
        const data: SizeOutsideCardinalityData = {
            code: PidmIssueCodes.SizeOutsideCardinality,
            expected: String(nearest),
        };
        accept(
            'error',
            `${reference.name} is declared ${cardinality}: ${least === most ? `it has ${least} target${least === 1 ? '' : 's'}` : Number.isFinite(most) ? `its average size lies between ${least} and ${most}` : `its average size is at least ${least}`}, not ${item.average}.`,
            { node: item, property: 'average', code: data.code, data },
        );
    }

    /** A parameter is `"?"` or `"?name"` with a name made of letters, digits and underscores. */
    checkParameterSyntax(value: StringValue, accept: ValidationAcceptor): void {
        if (typeof value.value !== 'string' || !value.value.startsWith('?')) return;
        const name = value.value.slice(1);
        if (name !== '' && !/^[_a-zA-Z]\w*$/.test(name)) {
            accept(
                'warning',
                `'${value.value}' is not a valid parameter: write "?" or "?name" with a name of letters, digits and underscores.`,
                {
                    node: value,
                    code: PidmIssueCodes.InvalidParameter,
                    data: { code: PidmIssueCodes.InvalidParameter },
                },
            );
        }
    }

    /**
     * What the workspace-wide checks need, computed once per workspace state rather than once per
     * validated document (which made validating a workspace quadratic in its size). The cache is
     * emptied on every `DocumentBuilder` update, which `build` and `update` both announce before they
     * parse, link and validate, so a validation always reads the documents of its own build.
     */
    private workspaceFacts(model: PidmModel): WorkspaceFacts {
        // Made on first use: the shared services are still being built when the validator is.
        this.workspaceCache ??= new WorkspaceCache<string, WorkspaceFacts>(this.shared());
        // Names are unique within one model (model-sets.ts): a copy of a model beside it is another model.
        const sets = modelSetIndex(this.shared());
        const uri = model.$document?.uri;
        const set = uri && sets.setCount() > 1 ? sets.setOf(uri) : undefined;
        return this.workspaceCache.get(set ? set.files[0] : '', () => {
            const members = set ? new Set(set.files) : undefined;
            const models = this.documents()
                .all.filter((document) => !members || members.has(document.uri.toString()))
                .map((document) => document.parseResult?.value)
                .filter(isPidmModel)
                .toArray();
            const reached = new Set<Entity>();
            for (const model of models) addReachedEntities(model, reached);
            return {
                models: new Set(models),
                entityCount: countNames(models.flatMap((m) => m.entities ?? [])),
                queryCount: countNames(models.flatMap((m) => m.queries ?? [])),
                reached,
            };
        });
    }
}

/** The ISO spellings date/time literals are written in (the instance-data format). */
const ISO_FORMATS = {
    date: { pattern: /^\d{4}-\d{2}-\d{2}$/, example: 'YYYY-MM-DD' },
    time: { pattern: /^\d{2}:\d{2}(:\d{2})?$/, example: 'HH:MM:SS' },
    datetime: { pattern: /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2})?$/, example: 'YYYY-MM-DDTHH:MM:SS' },
} as const;

/** Warns when a name resolved only ignoring case; the quick fix writes the declared spelling. */
function checkSpelling(
    reference: { $refText: string; ref?: AstNode; $nodeDescription?: { name: string } } | undefined,
    node: AstNode,
    property: string,
    accept: ValidationAcceptor,
): void {
    if (!reference?.ref) return;
    const declared = reference.$nodeDescription?.name;
    const written = reference.$refText;
    if (!declared || !written || declared === written) return;
    const data: CaseMismatchData = { code: PidmIssueCodes.CaseMismatch, expected: declared };
    accept('warning', `'${written}' is declared as '${declared}': names are case-sensitive; write '${declared}'.`, {
        node,
        property,
        code: data.code,
        data,
    });
}

/** The PIDM models of the workspace and what the workspace-wide checks read from all of them. */
interface WorkspaceFacts {
    models: ReadonlySet<PidmModel>;
    entityCount: ReadonlyMap<string, number>;
    queryCount: ReadonlyMap<string, number>;
    /** The entities some query starts FROM or reaches through a reference in one of its paths. */
    reached: ReadonlySet<Entity>;
}

function countNames(nodes: { name?: string }[], counts = new Map<string, number>()): Map<string, number> {
    for (const node of nodes) if (node.name) counts.set(node.name, (counts.get(node.name) ?? 0) + 1);
    return counts;
}

/** Adds the entities the model's queries start from or reach through a reference in any path. */
function addReachedEntities(model: PidmModel, reached: Set<Entity>): Set<Entity> {
    for (const query of model.queries ?? []) {
        const from = query.from?.entity?.ref;
        if (from) reached.add(from);
        // Segments only occur in paths, and paths only in INCLUDE, SELECT, WHERE and ORDER BY: walking
        // those is the same as streaming the whole query, at a fraction of the cost on large queries.
        const paths = valuePaths(query);
        for (const include of query.includes ?? []) if (include.path) paths.push(include.path);
        for (const path of paths) {
            for (const segment of path.segments ?? []) {
                const element = segment.element?.ref;
                if (isReference(element) && element.target?.ref) reached.add(element.target.ref);
            }
        }
    }
    return reached;
}

/** The paths a query reads values from: SELECT, every WHERE comparison, ORDER BY. */
function valuePaths(query: Query): Path[] {
    const paths: Path[] = [];
    for (const projection of query.projections ?? []) if (projection.path) paths.push(projection.path);
    if (query.where) {
        for (const node of AstUtils.streamAst(query.where)) if (isComparison(node) && node.path) paths.push(node.path);
    }
    for (const item of query.orderBy ?? []) if (item.path) paths.push(item.path);
    return paths;
}

/** Whether a segment of the path (the head aside) names a reference. */
function walksAReference(path: Path): boolean {
    const segments = path.segments ?? [];
    for (let index = 0; index < segments.length; index++) {
        const element = segments[index].element?.ref;
        if (isReference(element) || (index > 0 && !isAttribute(element) && !isIdAttribute(element))) return true;
    }
    return false;
}

/** The canonical key of a sequence of reference steps (the node of the query's tree it reaches). */
function stepsKey(steps: readonly Reference[]): string {
    return steps.map((step) => `${step.$container?.name}.${step.name}`).join('/');
}

/** A path as written: `FL.origin.city`. */
function pathText(path: Path | undefined): string {
    return (path?.segments ?? []).map((segment) => segment.element?.$refText ?? '').join('.');
}

/** An attribute worth showing in a hint: the identifier, else the first attribute. */
function exampleAttribute(entity: Entity): string | undefined {
    return (
        identifierOf(entity)?.name ?? entity.members.find((member): member is Attribute => isAttribute(member))?.name
    );
}

/** What a workload item gives a figure for (two items with one key say the same figure twice), in words. */
function workloadFigureKey(item: WorkloadItem): { key: string; what: string } | undefined {
    switch (item.$type) {
        case 'QueryRate': {
            const query = item.query?.ref;
            return query ? { key: `query ${query.name}`, what: `the rate of query ${query.name}` } : undefined;
        }
        case 'ChangeRate': {
            const entity = item.entity?.ref;
            if (!entity || (item.member && !item.member.ref)) return undefined;
            const target = item.member?.ref ? `${entity.name}.${item.member.ref.name}` : entity.name;
            return { key: `${item.operation} ${target}`, what: `the rate of '${item.operation} ${target}'` };
        }
        case 'EntityCount': {
            const entity = item.entity?.ref;
            return entity ? { key: `count ${entity.name}`, what: `the count of ${entity.name}` } : undefined;
        }
        case 'ReferenceSize': {
            const entity = item.entity?.ref;
            const reference = item.reference?.ref;
            return entity && reference
                ? { key: `size ${entity.name}.${reference.name}`, what: `the size of ${entity.name}.${reference.name}` }
                : undefined;
        }
    }
}

/** Whether the query's text is `SELECT *`, the SQL habit the parser's message already explains. */
function selectsStar(query: Query): boolean {
    const text = query.$cstNode?.text;
    return text !== undefined && /\bselect\s*\*/i.test(text);
}
