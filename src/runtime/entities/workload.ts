/**
 * The workload of issue 28: random sequences of entity operations drawn from the model (`randomEntityOperations`),
 * run through an executor (the generated client's entity functions, against a real server) and checked.
 *
 * - One writer: every outcome is compared with the in-memory semantics (`applyEntityOperation`): done or refused
 *   alike, with the same code; a refused operation leaves a digest of every key as it was; every `checkEvery`
 *   operations (and after the last) the live check reads the entities back, compares them with the oracle's, and
 *   compares every row and index entry with what they imply.
 * - Two writers on separate connections, drawing from the same small identifier pools so that they collide: their
 *   interleaving is the server's, so there is no outcome to expect per operation; the live check at every pause
 *   (the writers stop together) is the proof that no operation left a torn row. An error that is no refusal fails
 *   either way.
 *
 * The sequences depend on the seed only. A failure is shrunk (`shrinkFailing`) by replaying candidate sequences with
 * one writer on an emptied server (`WorkloadStore.reset`), and reported as the short sequence that still fails the
 * same way. Nothing here knows an engine: the store and the executors are given (see ../redis-entities/workload-engine.ts).
 */
import type { KvlmModel } from '../../language/generated/ast.js';
import { identityOf, type InstanceData } from '../instance-data.js';
import type { RuntimeModel } from '../runtime-model.js';
import type { TextRules } from '../servable-values.js';
import { applyEntityOperation, type EntityErrorCode, type EntityOperation } from './entity-operations.js';
import { randomEntityOperations, type OperationIntent, type RandomOperation } from './random-operations.js';
import { shrinkFailing } from './shrink.js';

/** What an executor says of one operation: done, refused with an entity code, or failed otherwise (`code` null). */
export type ExecutedOutcome = { ok: true } | { ok: false; code: EntityErrorCode | null; message: string };

/** Runs entity operations on one connection, one at a time. */
export interface EntityExecutor {
    execute(operation: EntityOperation): Promise<ExecutedOutcome>;
}

/** What the live check found: the entities read back (instance data) and one sentence per difference. */
export interface LiveCheckOutcome {
    data: InstanceData;
    differences: string[];
}

/** The server side of a workload. */
export interface WorkloadStore {
    /** Empties the design's part of the server and installs the design anew (schema and entity Function). */
    reset(): Promise<void>;
    /** The executor of writer `index` (each on its own connection). */
    writer(index: number): Promise<EntityExecutor>;
    /** Read-only: the entities read back and the differences of every row and index entry from what they imply. */
    check(): Promise<LiveCheckOutcome>;
    /** A digest of every key of the server (a refused operation must leave it as it was). */
    digest(): Promise<string>;
}

export interface WorkloadOptions {
    model: RuntimeModel;
    /** The design: patches then cover every role of attribute it gives. */
    design?: KvlmModel;
    /** The design's text rules (what the client refuses as unservable). */
    rules?: TextRules;
    /** Operations in all (shared between the writers). */
    operations: number;
    seed: number;
    writers: 1 | 2;
    /** Operations between two live checks (at least 1). */
    checkEvery: number;
    /** Identifiers per entity (default 4): small, so that operations collide. */
    idsPerEntity?: number;
    /** Shrink a failing sequence (default true). */
    shrink?: boolean;
    /** Told after each live check: operations done so far. */
    onProgress?: (done: number, total: number) => void;
}

/** The settings of a run, as `kvmod workload` takes them (the rest of `WorkloadOptions` comes from the design). */
export type WorkloadRunSettings = Pick<
    WorkloadOptions,
    'operations' | 'seed' | 'writers' | 'checkEvery' | 'idsPerEntity' | 'shrink' | 'onProgress'
>;

/** The run's settings out of an engine's options (which carry the server and the design's options too). */
export function runSettings(options: WorkloadRunSettings): WorkloadRunSettings {
    const { operations, seed, writers, checkEvery, idsPerEntity, shrink, onProgress } = options;
    return { operations, seed, writers, checkEvery, idsPerEntity, shrink, onProgress };
}

/** How a run failed. */
export type FailureKind =
    | 'outcome' // one writer: an outcome differs from the oracle's (done vs refused, or another code)
    | 'refused-wrote' // one writer: a refused operation changed some key
    | 'entities' // one writer: the entities read back differ from the oracle's
    | 'live' // the live check found a row or index entry the entities do not imply (or miss one)
    | 'error'; // an operation failed with an error that is no refusal

/** One operation as it ran. */
export interface RanOperation {
    operation: EntityOperation;
    writer: number;
    outcome: ExecutedOutcome;
}

export interface WorkloadFailure {
    kind: FailureKind;
    /** Plain sentences: what differed (the first few). */
    details: string[];
    /** How many operations had run when it was found. */
    after: number;
    /** The operations that ran up to the failure, in the order the server finished them. */
    ran: number;
    /** The shortest sequence found that fails the same way with one writer on an emptied server. */
    shrunk: EntityOperation[];
    /**
     * `shrunk`: replayed by one writer and shrunk; `not reproduced`: one writer on an emptied server does not fail
     * so (two writers' interleaving), `shrunk` is every operation that ran; `off`: not asked to shrink.
     */
    shrinking: 'shrunk' | 'not reproduced' | 'off';
}

export interface WorkloadReport {
    seed: number;
    writers: number;
    operations: number;
    checks: number;
    /** Refused operations whose digest was compared (one writer). */
    refusalsDigested: number;
    /** Per intent (what an operation exercises): how many were done and refused. */
    intents: Record<string, { done: number; refused: number }>;
    /** Per refusal code: how many. */
    codes: Record<string, number>;
    failure?: WorkloadFailure;
}

/** The differences shown per failure. */
const SHOWN = 10;

/** The seed of writer `index`'s sequence: writer 0 draws the run's seed. */
export function writerSeed(seed: number, index: number): number {
    return index === 0 ? seed : (seed + Math.imul(index, 0x9e3779b1)) >>> 0;
}

/** The operations each writer runs. */
export function workloadSequences(options: WorkloadOptions): RandomOperation[][] {
    const per = Math.ceil(options.operations / options.writers);
    return Array.from({ length: options.writers }, (_, index) =>
        randomEntityOperations(
            options.model,
            writerSeed(options.seed, index),
            Math.min(per, options.operations - per * index),
            { design: options.design, rules: options.rules, idsPerEntity: options.idsPerEntity },
        ),
    );
}

/** Runs the workload on a store that `reset` has not prepared yet; the report's `failure` says what differed. */
export async function runWorkload(store: WorkloadStore, options: WorkloadOptions): Promise<WorkloadReport> {
    const report: WorkloadReport = {
        seed: options.seed,
        writers: options.writers,
        operations: 0,
        checks: 0,
        refusalsDigested: 0,
        intents: {},
        codes: {},
    };
    const sequences = workloadSequences(options);
    await store.reset();
    const ran: RanOperation[] = [];
    const found =
        options.writers === 1
            ? await runOneWriter(store, options, sequences[0], ran, report)
            : await runWriters(store, options, sequences, ran, report);
    if (found !== undefined) report.failure = await shrunkFailure(store, options, found, ran);
    return report;
}

/** A failure as found, before shrinking. */
interface Found extends Failed {
    after: number;
}

/**
 * A failure of one check. Its signature is what a shrink keeps: the kind, and for an outcome the operation's kind and
 * both outcomes' codes, so that a candidate failing another way (an update of a deleted entity refused for its value
 * by the client, for its absence by the oracle) does not stand in for the failure found.
 */
interface Failed {
    kind: FailureKind;
    signature: string;
    details: string[];
}

function count(report: WorkloadReport, drawn: RandomOperation | undefined, outcome: ExecutedOutcome): void {
    report.operations++;
    const intent: OperationIntent | 'replayed' = drawn?.intent ?? 'replayed';
    const tally = (report.intents[intent] ??= { done: 0, refused: 0 });
    if (outcome.ok) tally.done++;
    else {
        tally.refused++;
        const code = outcome.code ?? 'error';
        report.codes[code] = (report.codes[code] ?? 0) + 1;
    }
}

function describeOutcome(outcome: ExecutedOutcome | { ok: false; code: string | null; message: string }): string {
    return outcome.ok ? 'done' : `refused ${outcome.code ?? '(no entity code)'}: ${outcome.message}`;
}

/** The state one writer's checks carry from operation to operation. */
interface OneWriter {
    data: InstanceData;
}

/**
 * Runs one operation with one writer and compares it with the oracle: the failure, or undefined. `digests` says
 * whether a refusal's digest is compared.
 */
async function stepOneWriter(
    store: WorkloadStore,
    writer: EntityExecutor,
    options: WorkloadOptions,
    state: OneWriter,
    operation: EntityOperation,
    digests: boolean,
    onRan: (outcome: ExecutedOutcome, digested: boolean) => void,
): Promise<Failed | undefined> {
    const expected = applyEntityOperation(options.model, state.data, operation, { rules: options.rules });
    const before = !expected.ok && digests ? await store.digest() : undefined;
    const outcome = await writer.execute(operation);
    onRan(outcome, before !== undefined);
    state.data = expected.data;
    if (!outcome.ok && outcome.code === null)
        return { kind: 'error', signature: 'error', details: [`${operationText(operation)}: ${outcome.message}`] };
    const same = expected.ok ? outcome.ok : !outcome.ok && outcome.code === expected.refusal.code;
    if (!same)
        return {
            kind: 'outcome',
            signature: `outcome ${operation.kind}: ${outcome.ok ? 'done' : outcome.code} where the oracle says ${expected.ok ? 'done' : expected.refusal.code}`,
            details: [
                `${operationText(operation)}: the server ${describeOutcome(outcome)}; the oracle ${expected.ok ? 'does it' : `refuses it with ${expected.refusal.code}: ${expected.refusal.message}`}`,
            ],
        };
    if (before !== undefined) {
        const after = await store.digest();
        if (after !== before)
            return {
                kind: 'refused-wrote',
                signature: `refused-wrote ${operation.kind}`,
                details: [
                    `${operationText(operation)} was refused (${expected.ok ? '' : expected.refusal.code}) but changed the server's keys`,
                ],
            };
    }
    return undefined;
}

/** The live check, plus (one writer) the entities read back against the oracle's. */
async function liveCheck(
    store: WorkloadStore,
    model: RuntimeModel,
    expected: InstanceData | undefined,
): Promise<Failed | undefined> {
    const checked = await store.check();
    if (expected !== undefined) {
        const differences = entityDifferences(model, expected, checked.data);
        if (differences.length > 0) return { kind: 'entities', signature: 'entities', details: differences };
    }
    if (checked.differences.length > 0) return { kind: 'live', signature: 'live', details: checked.differences };
    return undefined;
}

async function runOneWriter(
    store: WorkloadStore,
    options: WorkloadOptions,
    sequence: RandomOperation[],
    ran: RanOperation[],
    report: WorkloadReport,
): Promise<Found | undefined> {
    const writer = await store.writer(0);
    const state: OneWriter = { data: {} };
    const every = Math.max(1, options.checkEvery);
    for (let i = 0; i < sequence.length; i++) {
        const drawn = sequence[i];
        const failed = await stepOneWriter(
            store,
            writer,
            options,
            state,
            drawn.operation,
            true,
            (outcome, digested) => {
                ran.push({ operation: drawn.operation, writer: 0, outcome });
                count(report, drawn, outcome);
                if (digested) report.refusalsDigested++;
            },
        );
        if (failed !== undefined) return { ...failed, after: ran.length };
        if ((i + 1) % every === 0 || i + 1 === sequence.length) {
            report.checks++;
            const differs = await liveCheck(store, options.model, state.data);
            if (differs !== undefined) return { ...differs, after: ran.length };
            options.onProgress?.(ran.length, options.operations);
        }
    }
    return undefined;
}

/**
 * Two (or more) writers, each on its own connection, each running its share of `checkEvery` operations at a time
 * concurrently with the others, one operation in flight per writer; then the live check.
 */
async function runWriters(
    store: WorkloadStore,
    options: WorkloadOptions,
    sequences: RandomOperation[][],
    ran: RanOperation[],
    report: WorkloadReport,
): Promise<Found | undefined> {
    const writers = await Promise.all(sequences.map((_, index) => store.writer(index)));
    const share = Math.max(1, Math.ceil(options.checkEvery / writers.length));
    const next = sequences.map(() => 0);
    let error: Found | undefined;
    while (next.some((at, index) => at < sequences[index].length)) {
        await Promise.all(
            writers.map(async (writer, index) => {
                const sequence = sequences[index];
                const end = Math.min(sequence.length, next[index] + share);
                for (; next[index] < end && error === undefined; next[index]++) {
                    const drawn = sequence[next[index]];
                    const outcome = await writer.execute(drawn.operation);
                    ran.push({ operation: drawn.operation, writer: index, outcome });
                    count(report, drawn, outcome);
                    if (!outcome.ok && outcome.code === null)
                        error ??= {
                            kind: 'error',
                            signature: 'error',
                            details: [`writer ${index + 1}: ${operationText(drawn.operation)}: ${outcome.message}`],
                            after: ran.length,
                        };
                }
            }),
        );
        if (error !== undefined) return error;
        report.checks++;
        const differs = await liveCheck(store, options.model, undefined);
        if (differs !== undefined) return { ...differs, after: ran.length };
        options.onProgress?.(ran.length, options.operations);
    }
    return undefined;
}

/**
 * Replays `operations` with one writer on an emptied server and says whether they fail with `signature`. Only what can
 * show that failure is checked: digests around refusals for a refusal that writes, the live check after the last
 * operation for entities or rows that differ, outcomes always; a failure of another signature is passed over.
 */
export async function replayFails(
    store: WorkloadStore,
    options: WorkloadOptions,
    operations: readonly EntityOperation[],
    signature: string,
): Promise<boolean> {
    await store.reset();
    const writer = await store.writer(0);
    const state: OneWriter = { data: {} };
    const digests = signature.startsWith('refused-wrote');
    for (const operation of operations) {
        const failed = await stepOneWriter(store, writer, options, state, operation, digests, () => undefined);
        if (failed?.signature === signature) return true;
    }
    if (signature !== 'live' && signature !== 'entities') return false;
    return (await liveCheck(store, options.model, state.data))?.signature === signature;
}

/**
 * Shrinks the operations that ran up to the failure: candidates are replayed with one writer (`replayFails`), and
 * one fails when it fails the same way (the same signature). `shrinkFailing` asks synchronously, so its questions are answered ahead: it
 * is run again with every answer known so far until it asks nothing new (each replay is made once).
 */
async function shrunkFailure(
    store: WorkloadStore,
    options: WorkloadOptions,
    found: Found,
    ran: readonly RanOperation[],
): Promise<WorkloadFailure> {
    const operations = ran.slice(0, found.after).map((entry) => entry.operation);
    const base: Omit<WorkloadFailure, 'shrunk' | 'shrinking'> = {
        kind: found.kind,
        details: found.details.slice(0, SHOWN),
        after: found.after,
        ran: operations.length,
    };
    if (options.shrink === false) return { ...base, shrunk: operations, shrinking: 'off' };
    const answers = new Map<string, boolean>();
    const failsSame = (positions: readonly number[]): Promise<boolean> =>
        replayFails(
            store,
            options,
            positions.map((position) => operations[position]),
            found.signature,
        );
    const all = operations.map((_, position) => position);
    answers.set(all.join(','), await failsSame(all));
    if (!answers.get(all.join(','))) return { ...base, shrunk: operations, shrinking: 'not reproduced' };
    for (;;) {
        let asked: readonly number[] | undefined;
        let shrunk: number[] | undefined;
        try {
            shrunk = shrinkFailing(all, (candidate) => {
                const answer = answers.get(candidate.join(','));
                if (answer !== undefined) return answer;
                asked = candidate;
                throw new UnansweredYet();
            });
        } catch (error) {
            if (!(error instanceof UnansweredYet)) throw error;
        }
        if (shrunk !== undefined) {
            // The store is left as the shrunk sequence leaves it: what a user inspects after the run.
            await replayFails(
                store,
                options,
                shrunk.map((position) => operations[position]),
                found.signature,
            );
            return { ...base, shrunk: shrunk.map((position) => operations[position]), shrinking: 'shrunk' };
        }
        answers.set(asked!.join(','), await failsSame(asked!));
    }
}

class UnansweredYet extends Error {}

/** An operation as JSON on one line (non-finite numbers as `{"$number":"NaN"}`: JSON has none). */
export function operationText(operation: EntityOperation): string {
    return JSON.stringify(operation, jsonNumbers);
}

/** The JSON of a sequence of operations, one per line, that `parseOperations` reads back. */
export function operationsJson(operations: readonly EntityOperation[]): string {
    return operations.length === 0 ? '[]' : `[\n${operations.map((op) => `  ${operationText(op)}`).join(',\n')}\n]`;
}

/** Reads `operationsJson` back (the `$number` forms become numbers again). */
export function parseOperations(text: string): EntityOperation[] {
    return JSON.parse(text, (_key, value: unknown) =>
        value !== null && typeof value === 'object' && '$number' in value && Object.keys(value).length === 1
            ? Number((value as { $number: string }).$number)
            : value,
    ) as EntityOperation[];
}

/** A JSON.stringify replacer that writes non-finite numbers as `{"$number":"NaN"}` (JSON has none). */
export function jsonNumbers(_key: string, value: unknown): unknown {
    return typeof value === 'number' && !Number.isFinite(value) ? { $number: String(value) } : value;
}

/**
 * How the entities read back differ from the oracle's, one sentence per entity instance: each side canonical (objects
 * by identity, values by identity, lists in order), so a number read back as the number it was written as is equal.
 */
export function entityDifferences(model: RuntimeModel, expected: InstanceData, actual: InstanceData): string[] {
    const differences: string[] = [];
    for (const entity of model.entities.values()) {
        const canonical = (data: InstanceData): Map<string, string> => {
            const objects = new Map<string, string>();
            for (const object of data[entity.name] ?? []) {
                const fields: unknown[] = [];
                for (const attribute of entity.attributes) fields.push(canonicalValue(object[attribute.name]));
                for (const reference of entity.references) fields.push(canonicalValue(object[reference.name]));
                objects.set(identityOf(object[entity.idName]), JSON.stringify(fields));
            }
            return objects;
        };
        const want = canonical(expected);
        const got = canonical(actual);
        for (const [id, fields] of want) {
            const read = got.get(id);
            if (read === undefined) differences.push(`${entity.name} ${JSON.stringify(id)} is missing on the server`);
            else if (read !== fields)
                differences.push(
                    `${entity.name} ${JSON.stringify(id)} is ${read} on the server, ${fields} in the oracle`,
                );
        }
        for (const id of got.keys())
            if (!want.has(id))
                differences.push(`${entity.name} ${JSON.stringify(id)} is on the server, not in the oracle`);
    }
    return differences;
}

function canonicalValue(value: unknown): unknown {
    if (value === undefined || value === null) return null;
    if (Array.isArray(value)) return value.map(identityOf);
    return identityOf(value);
}
