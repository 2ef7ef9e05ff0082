/**
 * Verification: every PIDM query, run for sampled parameter sets against a design (the real engine, or
 * the KVLM design in memory), compared with the oracle in the engine's collation. The report has one line per query: parameter sets
 * tried, rows compared, mismatches, and the first difference.
 */
import type { Collection, KvlmModel, PidmModel, ServedQuery } from '../language/generated/ast.js';
import { isKvmodError } from '../pipeline/errors.js';
import type { Collation, TypedValue } from './collation.js';
import { compareWithOracle } from './compare-results.js';
import { indexInstanceData, type InstanceData, type InstanceIndex } from './instance-data.js';
import { evaluateServedQuery } from './kvlm-evaluator.js';
import { materializeCollection, type MaterializedRow } from './materialize.js';
import { evaluatePrepared, prepareQuery, sameSortKeys, type ParameterValues } from './oracle.js';
import { sampleParameters } from './parameter-sampler.js';
import { planQuery } from './query-plan.js';
import type { RuntimeModel } from './runtime-model.js';

/** What an executor returns: the rows in reply order, and the command it ran (for reports). */
export interface ExecutedQuery {
    rows: TypedValue[][];
    /** The command as the engine's own client takes it (a redis-cli line), when there is one. */
    command?: string;
}

/** Runs one served query of a collection with parameter values. */
export type QueryExecutor = (
    collection: Collection,
    query: ServedQuery,
    parameters: ParameterValues,
) => Promise<ExecutedQuery>;

/** The verdict for one query. */
export interface QueryVerdict {
    query: string;
    /** The collection serving it (empty when none does). */
    collection: string;
    parameterSets: number;
    /** Rows the oracle and the design returned, summed over parameter sets (the larger of the two per set). */
    rowsCompared: number;
    /** Parameter sets whose answers differ. */
    mismatches: number;
    /** The first difference: the parameters, and what differed. */
    firstDifference?: string;
    /** The command that gave the first difference, to reproduce it by hand. */
    firstCommand?: string;
}

/** How a query fared: its answers matched, differed, or it was never tested (no rows to compare). */
export type VerdictStatus = 'match' | 'differ' | 'untested';

/**
 * A query with no mismatch but no row compared proves nothing (its filter matched no data): untested, which
 * `verify` reports as a warning, and `--strict` as a failure.
 */
export function verdictStatus(verdict: QueryVerdict): VerdictStatus {
    if (verdict.mismatches > 0) return 'differ';
    return verdict.rowsCompared === 0 ? 'untested' : 'match';
}

/** Options of `verifyQueries`. */
export interface VerifyOptions {
    /** Parameter sets drawn from the data per query (plus one made-up set). */
    samples: number;
    /** Seed of the sampling. */
    seed: number;
    /** The collation of the engine the design runs on: the oracle compares and sorts with it. */
    collation: Collation;
    /** The data's objects by identity, when the caller has them (`readIndexedInstanceData`); made otherwise. */
    index?: InstanceIndex;
}

/** Finds the collection and served query answering a PIDM query (they share its name). */
export function servedQueryOf(
    kvlm: KvlmModel,
    name: string,
): { collection: Collection; query: ServedQuery } | undefined {
    for (const collection of kvlm.collections) {
        const query = collection.queries.find((served) => served.name === name);
        if (query) return { collection, query };
    }
    return undefined;
}

/** Checks every query of the PIDM models against a design through `execute`. */
export async function verifyQueries(
    pidm: readonly PidmModel[],
    kvlm: KvlmModel,
    model: RuntimeModel,
    data: InstanceData,
    execute: QueryExecutor,
    options: VerifyOptions,
): Promise<QueryVerdict[]> {
    const index = options.index ?? indexInstanceData(model, data);
    const verdicts: QueryVerdict[] = [];
    let querySeed = options.seed;
    for (const query of pidm.flatMap((m) => m.queries)) {
        const plan = planQuery(query);
        const served = servedQueryOf(kvlm, query.name);
        const verdict: QueryVerdict = {
            query: query.name,
            collection: served?.collection.name ?? '',
            parameterSets: 0,
            rowsCompared: 0,
            mismatches: 0,
        };
        verdicts.push(verdict);
        if (!served) {
            verdict.mismatches = 1;
            verdict.firstDifference = 'no collection serves this query';
            continue;
        }
        const declared = served.query.params.map((p) => p.name).sort();
        const planned = plan.parameters.map((p) => p.name).sort();
        if (JSON.stringify(declared) !== JSON.stringify(planned)) {
            verdict.mismatches = 1;
            verdict.firstDifference = `parameters differ: the design takes (${declared.join(', ')}), the query (${planned.join(', ')})`;
            continue;
        }
        const prepared = prepareQuery(plan, data, index, options.collation);
        const ordered = plan.orderBy.length > 0;
        for (const set of sampleParameters(prepared, options.samples, 1, querySeed++)) {
            verdict.parameterSets++;
            const expected = evaluatePrepared(prepared, set.values);
            let actual: TypedValue[][];
            let command: string | undefined;
            try {
                ({ rows: actual, command } = await execute(served.collection, served.query, set.values));
            } catch (error) {
                if (isKvmodError(error)) throw error; // a lost server ends the run, it is not a wrong answer
                verdict.mismatches++;
                verdict.firstDifference ??= `${describeParameters(set.values)}: ${(error as Error).message}`;
                continue;
            }
            verdict.rowsCompared += Math.max(expected.length, actual.length);
            const result = compareWithOracle(expected, actual, ordered, (a, b) =>
                sameSortKeys(plan, options.collation, a, b),
            );
            if (!result.matches) {
                verdict.mismatches++;
                if (verdict.firstDifference === undefined) {
                    verdict.firstDifference = `${describeParameters(set.values)}: ${result.difference}`;
                    verdict.firstCommand = command;
                }
            }
        }
    }
    return verdicts;
}

/** `{country: "France"}` for a report line. */
export function describeParameters(values: ParameterValues): string {
    const entries = Object.entries(values);
    return entries.length === 0
        ? '(no parameters)'
        : entries.map(([name, value]) => `${name}=${JSON.stringify(value)}`).join(', ');
}

/**
 * An executor answering from the KVLM design in memory (materialized rows + served query semantics, in an
 * engine's collation): checks the transformation alone, with no engine.
 */
export function inMemoryExecutor(
    model: RuntimeModel,
    data: InstanceData,
    collation: Collation,
    index: InstanceIndex = indexInstanceData(model, data),
): QueryExecutor {
    const rowsByCollection = new Map<Collection, MaterializedRow[]>();
    return async (collection, query, parameters) => {
        let rows = rowsByCollection.get(collection);
        if (!rows) {
            rows = materializeCollection(collection, data, index).rows;
            rowsByCollection.set(collection, rows);
        }
        return {
            rows: evaluateServedQuery(collection, query, rows, parameters, collation).map((row) => row.values),
        };
    };
}

/** The verdicts as a table, one line per query, and a summary line. */
export function formatVerdicts(verdicts: readonly QueryVerdict[]): string {
    const header = ['query', 'collection', 'parameter sets', 'rows compared', 'mismatches', 'first difference'];
    const rows = verdicts.map((v) => [
        v.query,
        v.collection,
        String(v.parameterSets),
        String(v.rowsCompared),
        String(v.mismatches),
        v.firstDifference ?? '',
    ]);
    const widths = header.map((title, column) =>
        Math.max(title.length, ...rows.map((row) => (column === 5 ? 0 : row[column].length))),
    );
    const line = (cells: string[]) =>
        cells
            .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column])))
            .join('  ')
            .trimEnd();
    const failed = verdicts.filter((v) => verdictStatus(v) === 'differ').length;
    const untested = verdicts.filter((v) => verdictStatus(v) === 'untested').map((v) => v.query);
    const matched = verdicts.length - failed - untested.length;
    let summary =
        failed === 0 && untested.length === 0
            ? `all ${verdicts.length} queries match the oracle`
            : failed === 0
              ? `${matched} of ${verdicts.length} queries match the oracle`
              : `${failed} of ${verdicts.length} queries differ from the oracle`;
    if (untested.length > 0) summary += `; ${untested.length} untested (no rows compared): ${untested.join(', ')}`;
    const commands = verdicts
        .filter((v) => v.firstCommand !== undefined)
        .map((v) => `${v.query}, the command of the first difference:\n  ${v.firstCommand}`);
    return [line(header), ...rows.map(line), '', ...commands, ...(commands.length > 0 ? [''] : []), summary].join('\n');
}
