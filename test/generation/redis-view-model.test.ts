import { describe, expect, test } from '@jest/globals';
import {
    bindRedisCommand,
    buildRedisViewModel,
    GenerationError,
    insertArgv,
    queryArgv,
    deleteArgv,
    POINTER_QUERY_LUA,
    type RedisViewModel,
} from '../../src/generation/index.js';
import { loadKvlmFile, parseKvlm } from './generation-fixtures.js';
import { createHash } from 'node:crypto';
import { storageSignature, type StorageShape } from '../../src/generation/redis/redis-naming.js';

const airflights = () => loadKvlmFile('test/fixtures/kvlm/airflights-q4q5.kvlm');
const edge = () => loadKvlmFile('test/fixtures/kvlm/redis-edge.kvlm');
const Q45 = 'Q4_passengersDepartingGivenCountry_Q5_passengersDepartingGivenPeriod';

function schemaOf(vm: RedisViewModel, collection: string): string[] {
    const c = vm.collections.find((x) => x.name === collection)!;
    return c.fields.flatMap((f) => [
        ...(f.index ? [`${f.name} ${f.index.type}${f.index.sortable ? ' SORTABLE' : ''}`] : []),
        ...(f.equalityKey !== null ? [`${f.equalityKey} TAG`] : []),
    ]);
}

describe('the Redis view model', () => {
    test('text equality is TAG, dates and times NUMERIC, sorted fields SORTABLE, projection-only fields not indexed', async () => {
        const vm = buildRedisViewModel(await airflights());
        // 2.x: a compared text is searched in its equality companion; the field keeps a TAG only to be sorted.
        expect(schemaOf(vm, 'Q3_passengersOfGivenFlight')).toEqual(['FL_code__eq TAG']);
        expect(schemaOf(vm, Q45)).toEqual([
            'Origin_city TAG SORTABLE',
            'FL_departureTime NUMERIC SORTABLE',
            'FL_departureDate NUMERIC',
            'Origin_country TAG SORTABLE',
            'Origin_country__eq TAG',
        ]);
        expect(vm.collections[0]!.create.argv.flat().slice(-4)).toEqual(['FL_code__eq', 'TAG', 'SEPARATOR', '\u001f']);
        const legacy = buildRedisViewModel(await airflights(), { dialect: 'redisearch1' });
        expect(schemaOf(legacy, 'Q3_passengersOfGivenFlight')).toEqual(['FL_code TAG']);
        expect(schemaOf(legacy, Q45).at(-1)).toBe('Origin_country TAG SORTABLE');
        const tag = legacy.collections[0]!.fields.find((f) => f.name === 'FL_code')!.index!;
        expect(tag.separator).toBe('\u001f');
    });

    test('keys are the physical index prefix and the natural key parts; with dbPrefix the database name leads', async () => {
        const plain = buildRedisViewModel(await airflights());
        expect(plain.collections[0]!.index).toBe('Q3_passengersOfGivenFlight');
        expect(plain.collections[0]!.physicalIndex).toBe('Q3_passengersOfGivenFlight_05b099');
        expect(plain.collections[0]!.key.pattern).toBe('Q3_passengersOfGivenFlight_05b099:<idPassport>:<FL_code>');
        const prefixed = buildRedisViewModel(await airflights(), { dbPrefix: true });
        expect(prefixed.collections[0]!.index).toBe('airflights_Q3_passengersOfGivenFlight');
        expect(prefixed.collections[0]!.keyPrefix).toBe('airflights_Q3_passengersOfGivenFlight_05b099:');
        expect(
            insertArgv(prefixed, 'Q3_passengersOfGivenFlight', {
                firstName: 'A',
                lastName: 'B',
                idPassport: 'P:1',
                FL_code: 'AF 1',
            }),
        ).toEqual([
            'HSET',
            'airflights_Q3_passengersOfGivenFlight_05b099:P%3A1:AF 1',
            'Q3_passengersOfGivenFlight_id',
            'P%3A1:AF 1',
            'firstName',
            'A',
            'lastName',
            'B',
            'idPassport',
            'P:1',
            'FL_code',
            'AF 1',
            'FL_code__eq',
            'af 1',
        ]);
    });

    test('one sort key is FT.SEARCH with SORTBY; several are FT.AGGREGATE loading the id field, sorting numbers through APPLY and text on its sort companion', async () => {
        const vm = buildRedisViewModel(await airflights(), { dialect: 'redisearch1' });
        const q4 = vm.collections[1]!.queries[0]!;
        expect(q4.kind).toBe('aggregate');
        expect(q4.load[0]).toBe(`${Q45}_id`);
        expect(q4.sortKeys).toEqual([
            { field: 'Origin_city', direction: 'ASC', property: '@Origin_city__sort', numeric: false },
            { field: 'FL_departureTime', direction: 'ASC', property: '@FL_departureTime_num', numeric: true },
        ]);
        expect(queryArgv(vm, q4.name, { departureDate: '2024-05-01', country: 'Côte d’Ivoire' }).slice(2, 6)).toEqual([
            '1',
            `kvmod:index:${Q45}`,
            'FT.AGGREGATE',
            '@FL_departureDate:[20240501 20240501] @Origin_country:{Côte\\ d’Ivoire}',
        ]);
        const byTotal = buildRedisViewModel(await edge()).collections[0]!.queries.find((q) => q.name === 'Q_range')!;
        expect(byTotal.kind).toBe('search');
        expect(byTotal.command.argv.flat()).toEqual(expect.arrayContaining(['SORTBY', 'total', 'DESC']));
    });

    test('RediSearch 2 queries carry PARAMS and DIALECT 2; RediSearch 1.2 queries get the values escaped into the query', async () => {
        const kvlm = await airflights();
        const two = queryArgv(buildRedisViewModel(kvlm), 'Q3_passengersOfGivenFlight', { code: 'AF 1' });
        expect(two).toEqual([
            'FT.SEARCH',
            'Q3_passengersOfGivenFlight',
            '@FL_code__eq:{$code}',
            'RETURN',
            '3',
            'firstName',
            'lastName',
            'idPassport',
            'LIMIT',
            '0',
            '10000',
            'TIMEOUT',
            '0',
            'PARAMS',
            '2',
            'code',
            'af 1',
            'DIALECT',
            '2',
        ]);
        const one = queryArgv(
            buildRedisViewModel(kvlm, { dialect: 'redisearch1', limit: 50 }),
            'Q3_passengersOfGivenFlight',
            { code: 'AF 1' },
        );
        expect(one).toEqual([
            'EVAL',
            POINTER_QUERY_LUA,
            '1',
            'kvmod:index:Q3_passengersOfGivenFlight',
            'FT.SEARCH',
            '@FL_code:{AF\\ 1}',
            'RETURN',
            '3',
            'firstName',
            'lastName',
            'idPassport',
            'LIMIT',
            '0',
            '50',
        ]);
    });

    test('a text sort key of an FT.AGGREGATE is a sort companion: every write stores the case-folded value, the query loads and sorts it, and still returns the raw field', async () => {
        const kvlm = await airflights();
        const row = {
            Origin_city: 'ÉVORA Straße',
            Destination_city: 'Rome',
            FL_departureTime: '09:00:00',
            idPassport: 'P1',
            firstName: 'A',
            lastName: 'B',
            birthdate: '1980-01-02',
            sex: 'F',
            nationality: 'FR',
            FL_departureDate: '2024-05-01',
            Origin_country: 'Côte d’Ivoire',
            FL_code: 'F1',
        };
        for (const dialect of ['redisearch1', 'redisearch2'] as const) {
            const vm = buildRedisViewModel(kvlm, { dialect });
            const q45 = vm.collections.find((c) => c.name === Q45)!;
            expect(q45.fields.filter((f) => f.sortKey).map((f) => [f.name, f.sortKey])).toEqual([
                ['Origin_city', 'Origin_city__sort'],
                ['Origin_country', 'Origin_country__sort'],
            ]);
            expect(q45.rowParams.map((p) => p.name)).not.toContain('Origin_city__sort');
            expect(q45.create.argv.flat()).not.toContain('Origin_city__sort');
            const argv = insertArgv(vm, Q45, row);
            const pairs = argv.slice(argv.indexOf('Origin_city'), argv.indexOf('Origin_city') + 4);
            expect(pairs).toEqual(['Origin_city', 'ÉVORA Straße', 'Origin_city__sort', 'évora strasse']);
            expect(argv[argv.indexOf('Origin_country__sort') + 1]).toBe('côte d’ivoire');
            const withoutCity = insertArgv(vm, Q45, { ...row, Origin_city: null });
            expect(withoutCity).not.toContain('Origin_city');
            expect(withoutCity).not.toContain('Origin_city__sort');

            const q5 = q45.queries.find((q) => q.name.startsWith('Q5'))!;
            expect(q5.load).toEqual([
                `${Q45}_id`,
                ...q5.projections.map((p) => p.field),
                'Origin_country__sort',
                'Origin_city__sort',
            ]);
            const words = q5.command.argv.flat();
            const sortBy = words.indexOf('SORTBY');
            expect(words.slice(sortBy, sortBy + 6)).toEqual([
                'SORTBY',
                '4',
                '@Origin_country__sort',
                'ASC',
                '@Origin_city__sort',
                'ASC',
            ]);
            expect(q5.projections.map((p) => p.field)).toContain('Origin_city');
        }
    });

    test('a sort companion takes the next free name when <field>__sort is taken, and FT.SEARCH sort keys get none', async () => {
        const kvlm = await parseKvlm(`database d
collection C {
    key C_id natural(E.id)
    from E as E
    field name: text = E.name indexed sorted(Q)
    field name__sort: text = E.other projected(Q)
    field n: int = E.n indexed sorted(Q)
    field single: text = E.single indexed projected(S) sorted(S)
    query Q {
        order by name asc, n desc
        select name__sort
    }
    query S {
        order by single asc
        select single
    }
}
`);
        const c = buildRedisViewModel(kvlm).collections[0]!;
        expect(c.fields.map((f) => [f.name, f.sortKey])).toEqual([
            ['name', 'name__sort_'],
            ['name__sort', null],
            ['n', null],
            ['single', null],
        ]);
        const q = c.queries.find((x) => x.name === 'Q')!;
        expect(q.load).toEqual(['C_id', 'name__sort', 'name__sort_', 'n']);
        expect(q.sortKeys.map((k) => k.property)).toEqual(['@name__sort_', '@n_num']);
        expect(
            insertArgv(buildRedisViewModel(kvlm), 'C', { E_id: 'k', name: 'Zoë', name__sort: 'x', n: 1, single: 'S' }),
        ).toEqual([
            'HSET',
            'C_1e9fdb:k',
            'C_id',
            'k',
            'name',
            'Zoë',
            'name__sort_',
            'zoë',
            'name__sort',
            'x',
            'n',
            '1',
            'single',
            'S',
        ]);
    });

    test('RediSearch 1.2 rows are written with FT.ADD … REPLACE and deleted with FT.DEL … DD; 2.x with HSET and DEL', async () => {
        const kvlm = await airflights();
        const row = { firstName: 'A', lastName: 'B', idPassport: 'P1', FL_code: 'F1' };
        expect(
            insertArgv(buildRedisViewModel(kvlm, { dialect: 'redisearch1' }), 'Q3_passengersOfGivenFlight', row).slice(
                0,
                6,
            ),
        ).toEqual([
            'FT.ADD',
            'Q3_passengersOfGivenFlight_92960a',
            'Q3_passengersOfGivenFlight_92960a:P1:F1',
            '1.0',
            'REPLACE',
            'FIELDS',
        ]);
        expect(
            deleteArgv(buildRedisViewModel(kvlm, { dialect: 'redisearch1' }), 'Q3_passengersOfGivenFlight', row),
        ).toEqual(['FT.DEL', 'Q3_passengersOfGivenFlight_92960a', 'Q3_passengersOfGivenFlight_92960a:P1:F1', 'DD']);
        expect(deleteArgv(buildRedisViewModel(kvlm), 'Q3_passengersOfGivenFlight', row)).toEqual([
            'DEL',
            'Q3_passengersOfGivenFlight_05b099:P1:F1',
        ]);
    });

    test('an absent optional value leaves its field out of the write; a missing key part is an error', async () => {
        const vm = buildRedisViewModel(await airflights());
        const argv = insertArgv(vm, 'Q3_passengersOfGivenFlight', {
            firstName: null,
            lastName: 'B',
            idPassport: 'P1',
            FL_code: 'F1',
        });
        expect(argv).not.toContain('firstName');
        expect(argv).toContain('lastName');
        expect(() => insertArgv(vm, 'Q3_passengersOfGivenFlight', { lastName: 'B', FL_code: 'F1' })).toThrow(
            /no value for parameter 'idPassport'/,
        );
    });

    test('counter keys INCR a per-collection counter inside one EVAL (never MULTI/GET/SET), sort companions included', async () => {
        const vm = buildRedisViewModel(await edge(), { dialect: 'redisearch1' });
        const orders = vm.collections.find((c) => c.name === 'Orders')!;
        expect(orders.key).toEqual({
            kind: 'counter',
            parts: [],
            counterKey: 'Orders_d028dc:counter',
            pattern: 'Orders_d028dc:<INCR Orders_d028dc:counter>',
        });
        const argv = bindRedisCommand(orders.insert, {
            ref: 'r',
            total: 1,
            placed: '2024-01-01T00:00:00',
            paid: false,
            qty: 1,
            city: 'c',
            day: '2024-01-01',
            at: '00:00:00',
            note: 'Note',
        });
        expect(argv[0]).toBe('EVAL');
        expect(argv.slice(-4)).toEqual(['note', 'Note', 'note__sort', 'note']);
        expect(argv[1]).toContain("redis.call('INCR', KEYS[1])");
        expect(argv.slice(2, 7)).toEqual([
            '1',
            'Orders_d028dc:counter',
            'Orders_d028dc',
            'Orders_d028dc:',
            'Orders_id',
        ]);
        expect(vm.counterInsertLua).toBe(argv[1]);
    });

    test('a key part no field holds becomes a key-only row value; a collection with nothing to filter indexes its id field', async () => {
        const vm = buildRedisViewModel(await edge());
        const plain = vm.collections.find((c) => c.name === 'Plain')!;
        expect(plain.rowParams).toEqual([
            { name: 'P__id', type: 'text', source: 'P._id', keyOnly: true },
            { name: 'name', type: 'text', source: 'P.name', keyOnly: false },
        ]);
        expect(plain.schemaFields).toEqual(['Plain_id']);
        expect(plain.queries[0]!.filter).toBe('*');
    });

    test('or, not and literals are parenthesised and escaped for the query syntax', async () => {
        const vm = buildRedisViewModel(await edge());
        const byRef = vm.collections[0]!.queries.find((q) => q.name === 'Q_byRef')!;
        expect(byRef.filter).toBe(
            '((@ref__eq:{$ref}) | (@city__eq:{saint\\-\\%c3\\%89tienne\\,\\ \\"loire\\"\\ \\{x\\}\\ \\|\\ y})) @paid:[1 1] (-(-@city__eq:{in}))',
        );
        const range = vm.collections[0]!.queries.find((q) => q.name === 'Q_range')!;
        expect(range.filter).toBe(
            '@total:[$low +inf] @total:[-inf ($high] @placed:[($since +inf] -@day:[20240229 20240229] @qty:[-inf 10] @qty:[(-1 +inf]',
        );
    });

    test('RediSearch 1.2 queries negate only single TAG clauses, after the positive ones: its NOT drops rows', async () => {
        const vm = buildRedisViewModel(await edge(), { dialect: 'redisearch1' });
        const filter = (name: string) => vm.collections[0]!.queries.find((q) => q.name === name)!.filter;
        // `not city != "in"` is `city = "in"`; a numeric `!=` is the two ranges around the value.
        expect(filter('Q_byRef')).toBe(
            '((@ref:{$ref}) | (@city:{Saint\\-Étienne\\,\\ \\"Loire\\"\\ \\{x\\}\\ \\|\\ y})) @paid:[1 1] @city:{in}',
        );
        expect(filter('Q_range')).toBe(
            '@total:[$low +inf] @total:[-inf ($high] @placed:[($since +inf] ((@day:[-inf (20240229]) | (@day:[(20240229 +inf])) @qty:[-inf 10] @qty:[(-1 +inf]',
        );
    });

    test('a range over a text field cannot be expressed and is an error naming the field and the query', async () => {
        const kvlm = await parseKvlm(`database d
collection C {
    key C_id counter
    from E as E
    field name: text = E.name label "name" projected(Q) ranged(Q)
    query Q {
        param low: text
        where name >= ?low
        select name
    }
}
`);
        expect(() => buildRedisViewModel(kvlm)).toThrow(GenerationError);
        expect(() => buildRedisViewModel(kvlm)).toThrow(/'name' \(text\) is compared with <, <=, > or >= in Q/);
    });

    test('an unknown dialect or an out-of-range limit is an option error', async () => {
        const kvlm = await airflights();
        expect(() => buildRedisViewModel(kvlm, { dialect: 'redisearch3' as never })).toThrow(
            /unknown Redis dialect 'redisearch3'/,
        );
        expect(() => buildRedisViewModel(kvlm, { limit: 0 })).toThrow(/limit must be an integer from 1/);
    });
});

describe('the storage signature', () => {
    /** The canonical form as one object, the way the signature was first computed: the pieces must hash alike. */
    function reference(shape: StorageShape): string {
        const canonical = {
            fields: shape.fields.map((f) => ({
                name: f.name,
                type: f.type,
                source: f.source,
                index: f.index && { type: f.index.type, sortable: f.index.sortable, separator: f.index.separator },
                sortKey: f.sortKey,
                ...(f.equalityKey !== null ? { equalityKey: f.equalityKey } : {}),
            })),
            idField: shape.idField,
            key: { kind: shape.key.kind, parts: shape.key.parts.map((p) => [p.source, p.param, p.type]) },
            root: shape.root,
            nodes: shape.nodes,
        };
        return createHash('sha256').update(JSON.stringify(canonical)).digest('hex').slice(0, 6);
    }

    test('is the hash of the canonical JSON, also for many fields and names that need escaping', async () => {
        const vm = buildRedisViewModel(await edge());
        for (const c of vm.collections) expect(storageSignature(c)).toBe(reference(c));
        const odd = ['a"b', 'é\u001f\\', '\ud83d\ude00 x', '\ud800', ''];
        const fields = Array.from({ length: 3000 }, (_, i) => ({
            ...vm.collections[0]!.fields[0]!,
            name: `${odd[i % odd.length]}${i}`,
            source: `N.${odd[(i + 1) % odd.length]}`,
            index:
                i % 3 === 0 ? null : { type: 'TAG' as const, sortable: i % 2 === 0, separator: '\u001f', reason: 'r' },
            sortKey: i % 7 === 0 ? `${i}__sort` : null,
            equalityKey: i % 5 === 0 ? `${i}__eq` : null,
        }));
        const shape = { ...vm.collections[0]!, fields };
        expect(storageSignature(shape)).toBe(reference(shape));
    });
});
