/**
 * The DynamoDB client's entity semantics (client-runtime/kvmod-dynamo-operations.ts, stated from the design data the
 * generated client embeds) against the oracle (`applyEntityOperation` and `rowEffects`, the planner kvmod's own
 * semantics make): over random models and the examples, random operation sequences (invalid ones among them), each
 * operation's outcome (refusal code and sentence, or the entities after it) and the row items it puts and deletes
 * must be the oracle's, exactly.
 */
import { describe, expect, test } from '@jest/globals';
import { buildDynamoViewModel } from '../../src/generation/dynamodb/dynamodb-design.js';
import { dynamoEntityDesign } from '../../src/generation/dynamodb/dynamodb-entity-design.js';
import {
    designPlanner,
    type DynamoEntityOperation,
} from '../../src/generation/typescript/client-runtime/kvmod-dynamo-operations.js';
import type { EntityData } from '../../src/generation/typescript/client-runtime/kvmod-dynamo-entities.js';
import { oraclePlanner } from '../../src/runtime/dynamodb/dynamo-entities.js';
import { randomEntityOperations } from '../../src/runtime/entities/random-operations.js';
import type { InstanceData } from '../../src/runtime/instance-data.js';
import { exampleCase, randomCase, type EntityCase } from './entities/entity-fixtures.js';

/** Entity data as comparable text: objects in identifier order, empty entities left out. */
function dataText(entityCase: EntityCase, data: EntityData): string {
    const out: Record<string, unknown[]> = {};
    for (const [entity, objects] of Object.entries(data).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        if (objects.length === 0) continue;
        const idName = entityCase.model.entities.get(entity)!.idName;
        out[entity] = objects
            .map((object) => [String(object[idName]), JSON.stringify(object)] as const)
            .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
            .map(([, text]) => text);
    }
    return JSON.stringify(out);
}

/** What a function gives or throws, as text. */
function attempt<T>(run: () => T, text: (value: T) => string): string {
    try {
        return text(run());
    } catch (error) {
        return `threw ${error instanceof Error ? error.message : String(error)}`;
    }
}

/** Compares the two planners along one random sequence; the number of operations compared. */
function compareAlong(entityCase: EntityCase, seed: number, count: number): { compared: number; refused: number } {
    const view = buildDynamoViewModel(entityCase.design, { pageSize: 100 });
    const design = dynamoEntityDesign(view, entityCase.design, entityCase.model.entities.values());
    expect(design).not.toBeNull();
    const ours = designPlanner(design!);
    const oracle = oraclePlanner({
        documents: undefined as never,
        view,
        kvlm: entityCase.design,
        model: entityCase.model,
    });
    const steps = (planner: typeof ours, before: EntityData, after: EntityData) =>
        attempt(
            () => planner.rowSteps(structuredClone(before), structuredClone(after)),
            (list) => JSON.stringify(list.map((step) => JSON.stringify(step)).sort()),
        );
    let data: EntityData = {};
    let refused = 0;
    const operations = randomEntityOperations(entityCase.model, seed, count, { design: entityCase.design });
    for (const [at, { operation }] of operations.entries()) {
        const op = operation as DynamoEntityOperation;
        const expected = oracle.apply(structuredClone(data) as InstanceData, operation);
        const got = ours.apply(structuredClone(data), op);
        const where = `${entityCase.name}, seed ${seed}, operation ${at} ${JSON.stringify(operation)}`;
        if (!expected.ok) {
            refused++;
            expect({ where, got }).toEqual({ where, got: expected });
            continue;
        }
        expect({ where, ok: got.ok }).toEqual({ where, ok: true });
        if (!got.ok) continue;
        expect({ where, data: dataText(entityCase, got.data) }).toEqual({
            where,
            data: dataText(entityCase, expected.data),
        });
        expect({ where, steps: steps(ours, data, got.data) }).toEqual({
            where,
            steps: steps(oracle as unknown as typeof ours, data, expected.data),
        });
        data = expected.data;
    }
    return { compared: operations.length, refused };
}

describe('the DynamoDB client planner equals the oracle', () => {
    test.each(['airflights', 'book-ratings', 'tournament'])(
        'example %s: outcomes, entities and row steps of 300 random operations',
        async (name) => {
            const entityCase = await exampleCase(name);
            const { compared, refused } = compareAlong(entityCase, 7, 300);
            expect(compared).toBe(300);
            // Invalid operations are among them, refused with the oracle's code and sentence.
            expect(refused).toBeGreaterThan(20);
        },
        120_000,
    );

    test('random models: outcomes, entities and row steps of random operations', () => {
        let models = 0;
        for (let seed = 1; seed <= 12; seed++) {
            const entityCase = randomCase(seed);
            try {
                buildDynamoViewModel(entityCase.design, { pageSize: 100 });
            } catch {
                // A random model DynamoDB cannot hold (its limits are refused at generation) has no client.
                continue;
            }
            compareAlong(entityCase, seed, 150);
            models++;
        }
        expect(models).toBeGreaterThan(6);
    }, 300_000);
});
