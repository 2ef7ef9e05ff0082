/**
 * The generated TypeScript client of the DynamoDB design (`--design dynamodb`) on dynalite: it compiles strict
 * against the AWS SDK's types with the parameter and result types of the RediSearch client; every example's data
 * loaded by `kvmod load --target dynamodb`, then every query run through the GENERATED page iterator (pages of 2
 * items) with parameter sets drawn from the data and compared with the oracle; a page is one `Query` request whose
 * cursor is its `LastEvaluatedKey`.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { memoryIo } from '../../src/cli/cli-io.js';
import { runDataGenerate } from '../../src/cli/data-actions.js';
import { main } from '../../src/cli/main.js';
import { buildTsDynamoClientDesign } from '../../src/generation/typescript/typescript-dynamo-design.js';
import { DYNAMO_CLIENT_RUNTIME_FILES } from '../../src/generation/typescript/typescript-runtime-files.js';
import { generateFromKvlm } from '../../src/pipeline/generate.js';
import { dynamoCollation } from '../../src/runtime/dynamodb/dynamo-engine.js';
import { readInstanceData } from '../../src/runtime/instance-data.js';
import { loadRuntimeDesign } from '../../src/runtime/runtime-design.js';
import { verdictStatus, verifyQueries } from '../../src/runtime/verify.js';
import { repoRoot } from '../generation/generation-fixtures.js';
import { startDynalite, type DynaliteTestServer } from '../support/dynalite-server.js';

const EXAMPLES = ['airflights', 'book-ratings', 'tournament'];

/** A page as the generated client returns it. */
interface Page {
    rows: Record<string, unknown>[];
    hasNext: boolean;
    cursor: Record<string, unknown> | undefined;
    next(): Promise<Page | undefined>;
}

/** The generated module, called by name (its types are proven by the compile test). */
type ClientModule = Record<string, unknown>;

/** The compiler options of an application that uses the client strictly. */
const STRICT_OPTIONS: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    noUncheckedIndexedAccess: true,
    noImplicitReturns: true,
    noUnusedLocals: true,
    exactOptionalPropertyTypes: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts'],
    types: ['node'],
    skipLibCheck: true,
};

/** An application of the airflights client's entity operations (compiled strict; a wrong patch would not). */
const AIRFLIGHTS_APP = `
import { connect, createAircraft, updateAircraft, getAircraft, deleteAircraft, addAircraftFlights, EntityError,
    completePendingChanges, type AircraftPatch, type EntityErrorCode, type EntityWrite } from './client.js';
export async function run(): Promise<EntityErrorCode | number> {
    const client = connect({ endpoint: 'http://127.0.0.1:1' });
    const made: EntityWrite = await createAircraft(client, { registrationNumber: 'F-1', model: 'A320', capacity: 180, flights: [] });
    const patch: AircraftPatch = { capacity: 190 };
    await updateAircraft(client, 'F-1', patch, { ifVersion: made.version });
    await addAircraftFlights(client, 'F-1', ['AF1']);
    const read = await getAircraft(client, 'F-1');
    await completePendingChanges(client);
    try {
        await deleteAircraft(client, 'F-1', { detach: true });
    } catch (error) {
        if (error instanceof EntityError) return error.code;
    }
    return read === null ? 0 : read.version + read.capacity;
}
`;

let server: DynaliteTestServer;
let dir: string;
const clients: { destroy(): void }[] = [];

/** The client's files written under `out`. */
async function writeClient(files: readonly { path: string; content: string }[], out: string): Promise<void> {
    for (const file of files) {
        const path = join(out, file.path);
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, file.content);
    }
}

/** Generates the DynamoDB client of an example, transpiles it to JavaScript next to itself, imports it. */
async function importClient(model: string, name: string): Promise<ClientModule> {
    const design = await loadRuntimeDesign(model);
    const { files } = await generateFromKvlm(
        { kvlm: design.kvlm, pidm: design.pidm },
        { target: 'typescript', targetOptions: { design: 'dynamodb' } },
    );
    const out = join(dir, name);
    await writeClient(
        files.map((file) => ({
            path: file.path.replace(/\.ts$/, '.js'),
            content: ts.transpileModule(file.content, {
                compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
            }).outputText,
        })),
        out,
    );
    return (await import(pathToFileURL(join(out, 'client.js')).href)) as ClientModule;
}

function call<T>(module: ClientModule, name: string, ...args: unknown[]): T {
    const fn = module[name];
    if (typeof fn !== 'function') throw new Error(`the generated client has no function ${name}`);
    return (fn as (...a: unknown[]) => T)(...args);
}

beforeAll(async () => {
    server = await startDynalite();
    // Under the repository: the generated files find the AWS SDK in its node_modules.
    await mkdir(join(repoRoot, '.kvmod-tmp'), { recursive: true });
    dir = await mkdtemp(join(repoRoot, '.kvmod-tmp', 'ts-dynamo-client-'));
});

afterAll(async () => {
    for (const client of clients) client.destroy();
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the generated TypeScript client of the DynamoDB design', () => {
    test("the shipped run-time files are kvmod's own modules (the engine runs the same reader), imports pointed at each other", async () => {
        expect(DYNAMO_CLIENT_RUNTIME_FILES.map((file) => file.path)).toEqual([
            'kvmod/dynamodb-keys.ts',
            'kvmod/kvmod-dynamo-client.ts',
            'kvmod/calendar-date.ts',
            'kvmod/entity-error-codes.ts',
            'kvmod/kvmod-dynamo-entities.ts',
            'kvmod/kvmod-dynamo-operations.ts',
        ]);
        for (const file of DYNAMO_CLIENT_RUNTIME_FILES) {
            const source = await readFile(join(repoRoot, file.source), 'utf8');
            const [header, ...rest] = file.content.split('\n');
            expect(header).toBe(
                `// Copied by kvmod from its ${file.source}: the rules of the DynamoDB design have one source. Do not edit.`,
            );
            expect(rest.join('\n')).toBe(
                source.replace(/from '(?:\.\.?\/)+(?:[\w-]+\/)*([\w-]+)\.js'/g, "from './$1.js'"),
            );
        }
    });

    test('every example client compiles strict against the AWS SDK types, with the query types of the RediSearch client', async () => {
        const roots: string[] = [];
        for (const example of EXAMPLES) {
            const design = await loadRuntimeDesign(`examples/${example}/${example}.pidm`);
            const source = { kvlm: design.kvlm, pidm: design.pidm };
            const { files } = await generateFromKvlm(source, {
                target: 'typescript',
                targetOptions: { design: 'dynamodb' },
            });
            // The runtime ships verbatim, and nothing of the Redis clients' runtime.
            expect(files.filter((f) => f.path !== 'client.ts')).toEqual(
                DYNAMO_CLIENT_RUNTIME_FILES.map(({ path, content }) => ({ path, content })),
            );
            const client = files.find((f) => f.path === 'client.ts')!.content;
            expect(client).not.toMatch(/from 'redis'|kvmod-client\.js/);
            const rediSearch = (await generateFromKvlm(source, { target: 'typescript' })).files.find(
                (f) => f.path === 'client.ts',
            )!.content;
            const interfaces = (text: string) =>
                [...text.matchAll(/export interface \w+(?:Params|Result) \{[^}]*\}/g)].map((m) => m[0]);
            const own = interfaces(client);
            expect(own.length).toBeGreaterThan(0);
            expect(interfaces(rediSearch).filter((i) => own.includes(i))).toEqual(own);
            const out = join(dir, 'compile', example);
            await writeClient(files, out);
            roots.push(join(out, 'client.ts'));
            if (example === 'airflights') {
                // An application using the entity API strictly: the Redis clients' names, patch types and codes.
                await writeFile(join(out, 'app.ts'), AIRFLIGHTS_APP);
                roots.push(join(out, 'app.ts'));
            }
        }
        const program = ts.createProgram(roots, STRICT_OPTIONS);
        const diagnostics = ts.getPreEmitDiagnostics(program).map((d) =>
            ts.formatDiagnostic(d, {
                getCanonicalFileName: (f) => f,
                getCurrentDirectory: () => dir,
                getNewLine: () => '\n',
            }),
        );
        expect(diagnostics).toEqual([]);
    }, 300_000);

    test.each(EXAMPLES)(
        '%s: data loaded by kvmod load --target dynamodb; every query, read 2 items a page through the generated client, answers like the oracle',
        async (example) => {
            const model = `examples/${example}/${example}.pidm`;
            const design = await loadRuntimeDesign(model);
            const module = await importClient(model, example);
            const tsDesign = buildTsDynamoClientDesign(design.kvlm, {});
            const client = call<{ destroy(): void }>(module, 'connect', {
                endpoint: server.url,
                region: 'us-east-1',
                credentials: { accessKeyId: 'kvmod', secretAccessKey: 'kvmod' },
            });
            clients.push(client);
            const file = join(dir, `${example}.json`);
            expect(await runDataGenerate({ model, scale: 30, seed: 3, output: file }, memoryIo())).toBe(0);
            const load = memoryIo();
            const args = [
                'load',
                model,
                '--data',
                file,
                '--target',
                'dynamodb',
                '--endpoint',
                server.url,
                '--recreate',
            ];
            expect(await main(args, load)).toBe(0);
            const data = await readInstanceData(file, design.model);

            let multiPage = 0;
            let rowsRead = 0;
            const verdicts = await verifyQueries(
                design.pidm,
                design.kvlm,
                design.model,
                data,
                async (_collection, query, parameters) => {
                    const served = tsDesign.queries.find((q) => q.dynamo.name === query.name)!;
                    const params = Object.fromEntries(served.params.map((p) => [p.prop, parameters[p.param]]));
                    const rows: Record<string, unknown>[] = [];
                    let pages = 0;
                    for await (const page of call<AsyncIterable<Page>>(module, served.names.pages, client, params, {
                        pageSize: 2,
                    })) {
                        pages++;
                        // One Query request of 2 items: at most 2 rows, and a cursor exactly while more is left.
                        if (served.dynamo.clientSort.length === 0) {
                            expect(page.rows.length).toBeLessThanOrEqual(2);
                            expect(page.cursor !== undefined).toBe(page.hasNext);
                        }
                        rows.push(...page.rows);
                    }
                    if (pages > 1) multiPage++;
                    rowsRead += rows.length;
                    return { rows: rows.map((row) => served.columns.map((column) => row[column.prop] as never)) };
                },
                { samples: 6, seed: 1, collation: dynamoCollation },
            );
            expect(verdicts.map((v) => `${v.query}: ${v.firstDifference ?? verdictStatus(v)}`)).toEqual(
                verdicts.map((v) => `${v.query}: match`),
            );
            expect(verdicts.length).toBe(tsDesign.queries.length);
            expect(multiPage).toBeGreaterThan(0);
            expect(rowsRead).toBeGreaterThan(10);
        },
        300_000,
    );

    test('a cursor given back starts the next page where the first ended; a missing parameter is refused before sending', async () => {
        const model = 'examples/airflights/airflights.pidm';
        const module = await importClient(model, 'airflights-cursor');
        const client = call<{ destroy(): void }>(module, 'connect', {
            endpoint: server.url,
            region: 'us-east-1',
            credentials: { accessKeyId: 'kvmod', secretAccessKey: 'kvmod' },
        });
        clients.push(client);
        const file = join(dir, 'airflights-cursor.json');
        expect(await runDataGenerate({ model, scale: 30, seed: 5, output: file }, memoryIo())).toBe(0);
        const args = ['load', model, '--data', file, '--target', 'dynamodb', '--endpoint', server.url, '--recreate'];
        expect(await main(args, memoryIo())).toBe(0);
        const params = { capacity: -1e9, capacity_2: 1e9 };
        const all: Record<string, unknown>[] = [];
        for await (const page of call<AsyncIterable<Page>>(module, 'Q1_aircraftsCapacityWithinPages', client, params))
            all.push(...page.rows);
        expect(all.length).toBeGreaterThan(3);
        const first = await call<Promise<Page>>(module, 'Q1_aircraftsCapacityWithin', client, params, { pageSize: 3 });
        expect(first.rows).toEqual(all.slice(0, 3));
        expect(first.hasNext).toBe(true);
        const later = await call<Promise<Page>>(module, 'Q1_aircraftsCapacityWithin', client, params, {
            pageSize: 3,
            after: first.cursor,
        });
        expect(later.rows).toEqual(all.slice(3, 6));
        await expect(
            call<Promise<Page>>(module, 'Q1_aircraftsCapacityWithin', client, { capacity: 1 }),
        ).rejects.toThrow('Q1_aircraftsCapacityWithin: no value for parameter capacity_2');
    }, 300_000);

    test('the entity operations of the generated client: rows follow, queries see them, refusals carry the codes and write nothing', async () => {
        const model = 'examples/airflights/airflights.pidm';
        const module = await importClient(model, 'airflights-entities');
        const client = call<{ destroy(): void }>(module, 'connect', {
            endpoint: server.url,
            region: 'us-east-1',
            credentials: { accessKeyId: 'kvmod', secretAccessKey: 'kvmod' },
        });
        clients.push(client);
        const file = join(dir, 'airflights-entities.json');
        expect(await runDataGenerate({ model, scale: 30, seed: 5, output: file }, memoryIo())).toBe(0);
        const args = ['load', model, '--data', file, '--target', 'dynamodb', '--endpoint', server.url, '--recreate'];
        const loaded = memoryIo();
        expect({ code: await main(args, loaded), stderr: loaded.stderr }).toMatchObject({ code: 0 });
        const capacity = async (registrationNumber: string) => {
            const rows: Record<string, unknown>[] = [];
            for await (const page of call<AsyncIterable<Page>>(module, 'Q1_aircraftsCapacityWithinPages', client, {
                capacity: -1e9,
                capacity_2: 1e9,
            }))
                rows.push(...page.rows);
            return rows.filter((row) => row.registrationNumber === registrationNumber).map((row) => row.capacity);
        };
        const codeOf = async (promise: Promise<unknown>) => {
            try {
                await promise;
                return 'done';
            } catch (error) {
                return (error as { name: string; code: string }).name + ' ' + (error as { code: string }).code;
            }
        };
        const object = { registrationNumber: 'KV-NEW', model: 'A380', capacity: 555, flights: [] };
        const made = await call<Promise<{ version: number; rowsWritten: number }>>(
            module,
            'createAircraft',
            client,
            object,
        );
        expect(made.version).toBe(1);
        expect(made.rowsWritten).toBeGreaterThan(0);
        expect(await capacity('KV-NEW')).toEqual([555]);
        expect(await call<Promise<unknown>>(module, 'getAircraft', client, 'KV-NEW')).toEqual({
            ...object,
            version: 1,
        });
        expect(await codeOf(call(module, 'createAircraft', client, object))).toBe('EntityError entity.exists');
        expect(await codeOf(call(module, 'updateAircraft', client, 'KV-NONE', { capacity: 1 }))).toBe(
            'EntityError entity.not-found',
        );
        expect(await codeOf(call(module, 'updateAircraft', client, 'KV-NEW', { capacity: 'many' }))).toBe(
            'EntityError entity.bad-value',
        );
        expect(await codeOf(call(module, 'updateAircraft', client, 'KV-NEW', { capacity: 1 }, { ifVersion: 7 }))).toBe(
            'EntityError entity.conflict',
        );
        expect(await codeOf(call(module, 'addAircraftFlights', client, 'KV-NEW', ['no-such-flight']))).toBe(
            'EntityError entity.missing-target',
        );
        // The refusals wrote nothing.
        expect(await capacity('KV-NEW')).toEqual([555]);
        const updated = await call<Promise<{ version: number }>>(module, 'updateAircraft', client, 'KV-NEW', {
            capacity: 600,
            model: undefined,
        });
        expect(updated.version).toBe(2);
        expect(await capacity('KV-NEW')).toEqual([600]);
        expect(await call<Promise<boolean>>(module, 'completePendingChanges', client)).toBe(false);
        expect(await call<Promise<{ version: number }>>(module, 'deleteAircraft', client, 'KV-NEW')).toMatchObject({
            version: 0,
        });
        expect(await capacity('KV-NEW')).toEqual([]);
        expect(await call<Promise<unknown>>(module, 'getAircraft', client, 'KV-NEW')).toBeNull();
        // What the client wrote is what kvmod's live check expects of the entities it reads back.
        const live = memoryIo();
        const verify = ['verify', model, '--target', 'dynamodb', '--endpoint', server.url, '--live'];
        expect({ code: await main(verify, live), stderr: live.stderr }).toMatchObject({ code: 0 });
    }, 300_000);
});
