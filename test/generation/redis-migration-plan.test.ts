/**
 * The migration plan between two Redis designs (pure): what changes per collection and query, and the online steps.
 */
import { describe, expect, test } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import {
    buildRedisViewModel,
    formatMigrationPlan,
    planMigration,
    type RedisViewModel,
} from '../../src/generation/index.js';
import { parseKvlm, repoRoot } from './generation-fixtures.js';

const FIXTURE = 'test/fixtures/kvlm/airflights-q4q5.kvlm';

async function design(
    edit: (text: string) => string = (t) => t,
    dialect: 'redisearch1' | 'redisearch2' = 'redisearch1',
): Promise<RedisViewModel> {
    const text = await readFile(`${repoRoot}${FIXTURE}`, 'utf8');
    const edited = edit(text);
    return buildRedisViewModel(await parseKvlm(edited), { dialect });
}

/** Q3 also returns the flight's date. */
const selectDate = (text: string) =>
    text
        .replace(
            '    field FL_code: text = FL.code label "FL.code" filtered(Q3_passengersOfGivenFlight)\n',
            '    field FL_code: text = FL.code label "FL.code" filtered(Q3_passengersOfGivenFlight)\n    field FL_departureDate: date = FL.departureDate label "FL.departureDate" projected(Q3_passengersOfGivenFlight)\n',
        )
        .replace(
            'select firstName as "firstName", lastName as "lastName", idPassport as "idPassport"\n',
            'select firstName as "firstName", lastName as "lastName", idPassport as "idPassport", FL_departureDate as "FL.departureDate"\n',
        );

describe('the migration plan', () => {
    test('the same design twice is an empty plan: nothing to do', async () => {
        const plan = planMigration(await design(), await design());
        expect(plan.empty).toBe(true);
        expect(plan.steps).toEqual([]);
        expect(plan.collections.map((c) => c.change)).toEqual(['kept', 'kept']);
        expect(formatMigrationPlan(plan)).toContain('Nothing to do');
    });

    test('a projected field added to a query rebuilds its collection beside the old one: create, write, switch, drop', async () => {
        const from = await design();
        const to = await design(selectDate);
        const plan = planMigration(from, to, new Map([['Q3_passengersOfGivenFlight', 42]]));
        const q3 = to.collections[0]!;
        expect(formatMigrationPlan(plan)).toBe(`Migration plan for airflights (redisearch1)

Collections:
  Q3_passengersOfGivenFlight: rebuilt (index ${from.collections[0]!.physicalIndex} -> ${q3.physicalIndex})
    field FL_departureDate added: date = FL.departureDate, stored only
  Q4_passengersDepartingGivenCountry_Q5_passengersDepartingGivenPeriod: kept (index ${to.collections[1]!.physicalIndex}, rows stay)

Queries:
  Q3_passengersOfGivenFlight: changed (in Q3_passengersOfGivenFlight)

Steps (online: queries keep answering from the old design until the switch):
  1. create index ${q3.physicalIndex} for Q3_passengersOfGivenFlight (1 index build)
     answers: unchanged: the old design keeps answering; nothing reads the new index yet
  2. write 42 rows of Q3_passengersOfGivenFlight into ${q3.physicalIndex}
     answers: unchanged: the old design keeps answering; nothing reads the new index yet
  3. switch Q3_passengersOfGivenFlight -> ${q3.physicalIndex} in one MULTI
     answers: atomic: every query answers from the old design before this step and from the new one after it, never a mix
  4. drop index ${from.collections[0]!.physicalIndex} of Q3_passengersOfGivenFlight with its rows
     answers: unchanged: nothing reads the old index any more

Cost: 1 index build, 42 rows written, 1 old index dropped with its rows.
`);
        expect(plan.steps.map((s) => s.commands)).toEqual([
            [q3.create.argv.map((a) => a.join(''))],
            [],
            [['MULTI'], ['SET', 'kvmod:index:Q3_passengersOfGivenFlight', q3.physicalIndex], ['EXEC']],
            [['FT.DROP', from.collections[0]!.physicalIndex]],
        ]);
    });

    test("built from the server's entities, the plan loads the migration library (dual writes) before the fill and the new design's library in the switch", async () => {
        const from = await design();
        const to = await design(selectDate);
        const plan = planMigration(from, to, undefined, [], 'entities');
        const q3 = to.collections[0]!.physicalIndex;
        expect(plan.source).toBe('entities');
        expect(plan.steps.map((s) => [s.action, s.indexes])).toEqual([
            ['create-index', [q3]],
            ['write-both', [q3]],
            ['write-rows', [q3]],
            ['switch', [q3]],
            ['drop-index', [from.collections[0]!.physicalIndex]],
        ]);
        expect(plan.steps[3]!.commands).toEqual([
            ['MULTI'],
            ['SET', 'kvmod:index:Q3_passengersOfGivenFlight', q3],
            ['FUNCTION', 'LOAD', 'REPLACE', "<the new design's entity library>"],
            ['EXEC'],
        ]);
        const text = formatMigrationPlan(plan);
        expect(text).toContain(
            `  2. load the migration library: entity operations write ${q3} too\n     answers: unchanged: the old design keeps answering; from here every entity operation (the application's writes) updates the old design's rows and the new ones, so no write made during the build is missing after the switch\n  3. write every row of Q3_passengersOfGivenFlight into ${q3} from the server's entities\n`,
        );
    });

    test('a design of another database: the rename is a step of its own, first, whatever else changes', async () => {
        const from = await design();
        const to = await design((text) => selectDate(text.replace('database airflights\n', 'database flights\n')));
        const plan = planMigration(from, to);
        expect(plan.database).toEqual({ from: 'airflights', to: 'flights' });
        expect(plan.steps.map((s) => s.action)).toEqual([
            'rename-database',
            'create-index',
            'write-rows',
            'switch',
            'drop-index',
        ]);
        expect(formatMigrationPlan(plan)).toContain(
            'Migration plan for airflights -> flights (redisearch1)\n\nCollections:\n',
        );
        expect(formatMigrationPlan(plan)).toContain(
            '  1. rename the database airflights -> flights\n     answers: not done online: see below\n',
        );
    });

    test('on RediSearch 2.x the switch moves aliases and the drop deletes the documents (FT.DROPINDEX … DD)', async () => {
        const from = await design(undefined, 'redisearch2');
        const to = await design(selectDate, 'redisearch2');
        const plan = planMigration(from, to);
        expect(plan.steps.find((s) => s.action === 'switch')!.commands).toEqual([
            ['MULTI'],
            ['FT.ALIASUPDATE', 'Q3_passengersOfGivenFlight', to.collections[0]!.physicalIndex],
            ['EXEC'],
        ]);
        expect(plan.steps.find((s) => s.action === 'drop-index')!.commands).toEqual([
            ['FT.DROPINDEX', from.collections[0]!.physicalIndex, 'DD'],
        ]);
        expect(plan.cost.rowsWritten).toBeNull();
    });

    test('a query that moves to a collection of another name: the new one is added, the old one removed, after the switch', async () => {
        const from = await design();
        const to = await design((text) =>
            text
                .replaceAll('collection Q3_passengersOfGivenFlight {', 'collection Q3_byFlight {')
                .replaceAll('key Q3_passengersOfGivenFlight_id', 'key Q3_byFlight_id'),
        );
        const plan = planMigration(from, to);
        expect(plan.collections.map((c) => [c.name, c.change, c.mergedFrom, c.splitInto])).toEqual([
            ['Q3_byFlight', 'added', ['Q3_passengersOfGivenFlight'], []],
            ['Q4_passengersDepartingGivenCountry_Q5_passengersDepartingGivenPeriod', 'kept', [], []],
            ['Q3_passengersOfGivenFlight', 'removed', [], ['Q3_byFlight']],
        ]);
        expect(plan.queries.find((q) => q.query === 'Q3_passengersOfGivenFlight')).toEqual({
            query: 'Q3_passengersOfGivenFlight',
            change: 'moved',
            from: 'Q3_passengersOfGivenFlight',
            to: 'Q3_byFlight',
        });
        expect(plan.steps.map((s) => s.action)).toEqual([
            'create-index',
            'write-rows',
            'switch',
            'remove-name',
            'drop-index',
        ]);
        expect(plan.steps[3]!.commands).toEqual([['DEL', 'kvmod:index:Q3_passengersOfGivenFlight']]);
    });
});
