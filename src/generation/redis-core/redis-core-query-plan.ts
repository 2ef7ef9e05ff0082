/**
 * The core-Redis query plans: each served query's filter in negation normal form, the index that narrows it best
 * (an access path), the residual filter the library's read function applies to the records, the sort, and what
 * the query costs on a server and on a cluster. Pure.
 */
import {
    isParameterRef,
    type Collection,
    type Field,
    type KValue,
    type ServedQuery,
} from '../../language/generated/ast.js';
import { filterNnf, literalOf, type FilterNnf } from '../../language/kvlm/kvlm-filter.js';
import { printKvlmExpression } from '../../language/kvlm/kvlm-printer.js';
import { GenerationError } from '../generation-errors.js';
import { encodeRedisValue, RedisEncodingError, type RedisLogicalType } from '../shared/redis-encoding.js';
import type { CoreBound, CoreFilter, CoreIndex, CoreQuery, CoreValue, CoreAccess } from './redis-core-view-model.js';

/** The name a KVLM reference names (its text when it does not resolve). */
export function refName(reference: { ref?: { name: string }; $refText?: string }): string {
    return reference.ref?.name ?? reference.$refText ?? '';
}

/** A filter in negation normal form, before columns are resolved. */
type Nnf = FilterNnf<CoreValue>;

/** An access path before its indexes are resolved: leaves name their field. */
type Draft =
    | { kind: 'eq'; field: Field; value: CoreValue }
    | { kind: 'range'; field: Field; min: CoreBound | null; max: CoreBound | null }
    | { kind: 'union'; of: Draft[] }
    /** Every row of the partition the query's parameters name (an equality on a partition field). */
    | { kind: 'partition' };

/** A candidate access path, how selective it is likely to be, and whether it is exactly the filter. */
interface Candidate {
    draft: Draft;
    rank: number;
    exact: boolean;
}

/**
 * The best access path for a filter in negation normal form, or undefined when no index narrows it. `partition`: the
 * fields the collection is partitioned by; an equality on one of them with a parameter, in the top-level conjunction
 * (`top`), is met by every row of the partition the query reads, so it needs no index of its own.
 */
function candidateOf(filter: Nnf, partition: ReadonlySet<string>, top: boolean): Candidate | undefined {
    if (filter.op === 'cmp') {
        const { field, operator, value } = filter;
        if (top && operator === '=' && 'param' in value && partition.has(field.name))
            return { draft: { kind: 'partition' }, rank: 0.5, exact: true };
        if (operator === '!=') return undefined;
        if (operator === '=' && field.type === 'text')
            return { draft: { kind: 'eq', field, value }, rank: 4, exact: true };
        const bound = { value, inclusive: operator === '=' || operator === '<=' || operator === '>=' };
        const min = operator === '=' || operator === '>' || operator === '>=' ? bound : null;
        const max = operator === '=' || operator === '<' || operator === '<=' ? bound : null;
        return { draft: { kind: 'range', field, min, max }, rank: operator === '=' ? 4 : 1, exact: true };
    }
    const found = filter.args.map((arg) => candidateOf(arg, partition, top && filter.op === 'and'));
    if (filter.op === 'or') {
        if (found.some((c) => c === undefined)) return undefined;
        const all = found as Candidate[];
        return {
            draft: { kind: 'union', of: all.map((c) => c.draft) },
            rank: Math.min(...all.map((c) => c.rank)) / 2,
            exact: all.every((c) => c.exact),
        };
    }
    // and: one-sided ranges of one field merge into a bounded range; then the most selective conjunct drives.
    const merged: Candidate[] = [];
    for (const candidate of found) {
        if (!candidate) continue;
        const draft = candidate.draft;
        const partner = merged.find(
            (m) =>
                m.draft.kind === 'range' &&
                draft.kind === 'range' &&
                m.draft.field === draft.field &&
                (m.draft.min === null) !== (draft.min === null) &&
                (m.draft.max === null) !== (draft.max === null),
        );
        if (partner && partner.draft.kind === 'range' && draft.kind === 'range') {
            partner.draft = {
                kind: 'range',
                field: draft.field,
                min: partner.draft.min ?? draft.min,
                max: partner.draft.max ?? draft.max,
            };
            partner.rank = Math.max(partner.rank, 2);
            partner.exact = partner.exact && candidate.exact;
        } else merged.push({ ...candidate });
    }
    if (merged.length === 0) return undefined;
    const best = merged.reduce((a, b) => (b.rank > a.rank ? b : a));
    return { ...best, exact: best.exact && merged.length === 1 && found.every((c) => c !== undefined) };
}

/** Plans one served query: its parameters, access path, residual filter and sort (and the indexes it uses). */
export function buildQuery(
    collection: Collection,
    query: ServedQuery,
    fieldOf: (reference: { ref?: { name: string }; $refText?: string }) => Field,
    columnOf: (name: string) => number,
    indexFor: (kind: CoreIndex['kind'], field: string, query: string) => number,
    partition: ReadonlySet<string> = new Set(),
): CoreQuery {
    const params = query.params.map((param, position) => ({
        name: param.name,
        type: param.type as RedisLogicalType,
        position: position + 1,
    }));
    const paramPosition = new Map(params.map((p) => [p.name, p.position]));
    const valueOf = (value: KValue, field: Field): CoreValue => {
        if (isParameterRef(value)) {
            const position = paramPosition.get(refName(value.parameter));
            if (position === undefined)
                throw new GenerationError(`query ${query.name}: unknown parameter ${refName(value.parameter)}`, {
                    code: 'generation.unsupported',
                });
            return { param: position };
        }
        try {
            return { literal: encodeRedisValue(field.type as RedisLogicalType, literalOf(value)) };
        } catch (error) {
            if (error instanceof RedisEncodingError)
                throw new GenerationError(
                    `query ${query.name}: the literal compared with ${field.name}: ${error.message}`,
                    {
                        code: 'generation.unsupported',
                    },
                );
            throw error;
        }
    };
    const where = query.where
        ? filterNnf(query.where, {
              field: (comparison) => fieldOf(comparison.field),
              value: valueOf,
              unsupported: () =>
                  new GenerationError(`query ${query.name}: unsupported expression`, {
                      code: 'generation.unsupported',
                  }),
          })
        : undefined;
    const finish = (draft: Draft): CoreAccess => {
        if (draft.kind === 'partition') return { kind: 'all' };
        if (draft.kind === 'union') return { kind: 'union', of: draft.of.map(finish) };
        if (draft.kind === 'eq')
            return { kind: 'eq', index: indexFor('eq', draft.field.name, query.name), value: draft.value };
        const kind = draft.field.type === 'text' ? 'lex' : 'score';
        return { kind: 'range', index: indexFor(kind, draft.field.name, query.name), min: draft.min, max: draft.max };
    };

    const sortKeys = query.sortKeys.map((key) => ({ field: fieldOf(key.field), descending: key.direction === 'desc' }));
    let access: CoreAccess = { kind: 'all' };
    let exact = true;
    let presorted = false;
    let warning: string | null = null;
    if (where) {
        const chosen = candidateOf(where, partition, true);
        if (chosen) {
            access = finish(chosen.draft);
            exact = chosen.exact;
            presorted =
                chosen.draft.kind === 'range' && sortKeys.length === 1 && chosen.draft.field === sortKeys[0].field;
        } else {
            exact = false;
            warning = `no index can narrow the filter \`${printKvlmExpression(query.where!)}\`: a set or sorted set cannot list the rows that differ from a value (\`!=\`, \`not =\`), and an \`or\` is narrowed only when each of its sides is`;
        }
    } else if (sortKeys.length > 0) {
        const first = sortKeys[0].field;
        access = { kind: 'order', index: indexFor(first.type === 'text' ? 'lex' : 'score', first.name, query.name) };
        presorted = sortKeys.length === 1;
    }
    const toFilter = (filter: Nnf): CoreFilter =>
        filter.op === 'cmp'
            ? {
                  op: 'cmp',
                  column: columnOf(filter.field.name),
                  type: filter.field.type as RedisLogicalType,
                  operator: filter.operator,
                  value: filter.value,
              }
            : { op: filter.op, args: filter.args.map(toFilter) };
    const projections = query.projections.map((projection) => {
        const field = fieldOf(projection.field);
        return {
            field: field.name,
            label: projection.label ?? field.label ?? field.name,
            type: field.type as RedisLogicalType,
        };
    });
    const plan: CoreQuery['plan'] = {
        access,
        filter: where && !exact ? toFilter(where) : null,
        sort: presorted
            ? []
            : sortKeys.map((key) => ({
                  column: columnOf(key.field.name),
                  type: key.field.type as RedisLogicalType,
                  descending: key.descending,
              })),
        presorted,
        descending: presorted && sortKeys[0].descending,
        project: projections.map((p) => p.field),
    };
    return {
        name: query.name,
        params,
        where: query.where ? printKvlmExpression(query.where) : null,
        orderBy: query.sortKeys.map((key) => `${refName(key.field)} ${key.direction}`),
        projections,
        plan,
        partition: null,
        cost: { access: '', keys: [], server: '', cluster: '', slots: '' },
        warning,
    };
}

/** What a query costs: the access path, the keys it reads, and the round trips on a server and on a cluster. */
export function describeCost(
    query: CoreQuery,
    indexes: readonly CoreIndex[],
    recordKey: string,
    rowPrefix: string,
    partitioned: boolean,
): CoreQuery['cost'] {
    const keys = new Set<string>();
    const bound = (b: CoreBound | null, low: boolean) =>
        b === null
            ? low
                ? '-inf'
                : '+inf'
            : `${b.inclusive ? '' : '('}${'param' in b.value ? `$${query.params[b.value.param - 1].name}` : b.value.literal}`;
    const show = (value: CoreValue) =>
        'param' in value ? `$${query.params[value.param - 1].name}` : JSON.stringify(value.literal);
    // The keys as the partition's tag pattern names them (the global `{C}` when not partitioned).
    const keyOf = (index: CoreIndex): string =>
        index.kind === 'eq' ? index.pattern.slice(0, -'<value>'.length) : index.pattern;
    const describe = (access: CoreAccess): string => {
        switch (access.kind) {
            case 'eq': {
                const index = indexes[access.index - 1];
                const key = keyOf(index);
                keys.add(index.pattern);
                return `SMEMBERS ${key}<${show(access.value)} normalised>`;
            }
            case 'range': {
                const index = indexes[access.index - 1];
                const key = keyOf(index);
                keys.add(key);
                const low = bound(access.min, true);
                const high = bound(access.max, false);
                const [from, to] = query.plan.descending ? [high, low] : [low, high];
                const rev = query.plan.descending ? 'REV' : '';
                return index.kind === 'lex'
                    ? `Z${rev}RANGEBYLEX ${key} over the order forms ${from} .. ${to}`
                    : `Z${rev}RANGEBYSCORE ${key} ${from} ${to}`;
            }
            case 'union':
                return `the union of ${access.of.map(describe).join(' and ')}`;
            case 'order': {
                const index = indexes[access.index - 1];
                const key = keyOf(index);
                keys.add(key);
                return `Z${query.plan.descending ? 'REV' : ''}RANGE ${key} 0 -1 (every row, in order)`;
            }
            case 'all':
                keys.add(recordKey);
                return `HKEYS ${recordKey} (every row${partitioned ? ' of the partition' : ''})`;
        }
    };
    const access = describe(query.plan.access);
    const steps: string[] = [];
    if (query.plan.filter || query.plan.sort.length > 0) {
        keys.add(recordKey);
        steps.push(`HMGET ${recordKey} of each candidate`);
        if (query.plan.filter) steps.push('the residual filter on the records');
        if (query.plan.sort.length > 0)
            steps.push(`a sort on ${query.plan.sort.length} key${query.plan.sort.length === 1 ? '' : 's'}`);
    }
    return {
        access,
        keys: [...keys],
        server: `1 round trip: one FCALL runs ${[access, ...steps].join(', then ')}, then HMGET of the projected fields of each answer row (${rowPrefix}…)`,
        cluster: `1 FCALL on the slot of ${recordKey} returns the answer's row keys in order; then one HMGET per row on the row's own slot, pipelined (one round trip per node)`,
        slots: partitioned
            ? `1 index slot: the partition its parameters name (${recordKey}), of as many as the collection has distinct values`
            : `1 index slot, the collection's only one (${recordKey}): every query and index write of the collection lands on that master`,
    };
}
