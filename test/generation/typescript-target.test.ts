/**
 * The TypeScript target: the generated client of every KVLM fixture and example, in both dialects, compiles with
 * `--strict` (and more) against the real `redis` package types, in one TypeScript program; the client example of
 * docs/targets.md compiles with them; names get one safe spelling and collisions are refused; the embedded
 * run-time files are the Redis target's own modules.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { writeOutputs } from '../../src/generation/generation-writer.js';
import { buildTsClientDesign, safeIdentifier } from '../../src/generation/typescript/typescript-design.js';
import {
    CLIENT_RUNTIME_FILES,
    CORE_CLIENT_RUNTIME_FILES,
} from '../../src/generation/typescript/typescript-runtime-files.js';
import { buildRedisViewModel } from '../../src/generation/redis/redis-view-model.js';
import { generateFromKvlm } from '../../src/pipeline/generate.js';
import { KVLM_MODELS, loadKvlmFile, parseKvlm, repoRoot } from './generation-fixtures.js';
import { loadRuntimeDesign } from '../../src/runtime/runtime-design.js';
import { loadTexts } from '../../src/pipeline/load.js';
import { transformPidmToKvlm } from '../../transformations/pidm-to-kvlm/index.js';
import { SHOP_PIDM } from '../runtime/entities/entity-fixtures.js';

const EXAMPLES = ['airflights', 'book-ratings', 'tournament'];

/** The design of a PIDM text: its KVLM (natural keys) with the PIDM, as `generate` reads a `.pidm`. */
async function pidmDesign(text: string) {
    const workspace = await loadTexts([{ path: 'model.pidm', text }]);
    const errors = workspace.diagnostics.filter((d) => d.severity === 'error');
    if (errors.length > 0) throw new Error(errors.map((e) => e.message).join('\n'));
    const pidm = workspace.pidm.map((entry) => entry.model);
    return { kvlm: transformPidmToKvlm(pidm, { merge: 'safe', keyStrategy: 'natural' }).model, pidm };
}

/** The entity API of the shop model as an application writes it; each line marked `// TS<code>` must not compile. */
const SHOP_USAGE = `import { connect, createBook, updateBook, getBook, deleteBook, addBookTags, removeBookTags, setBookPublisher, setBookSequelOf, installEntityFunctions, EntityError, type BookPatch } from './client.js';
const client = await connect('redis://127.0.0.1:1');
await installEntityFunctions(client);
await createBook(client, { isbn: 'b1', title: 'Dune', author: 'Herbert', rank: 1, price: 9.5, blurb: '', tags: [], publisher: 'ace', sequelOf: null });
await updateBook(client, 'b1', { title: 'Dune Messiah' });
await updateBook(client, 'b1', { title: undefined });
const patch: BookPatch = {};
await updateBook(client, 'b1', patch, { ifVersion: 3 });
const book = await getBook(client, 'b1');
if (book !== null) { const v: number = book.version; const t: string = book.title; const s: string | null = book.sequelOf; const tags: string[] = book.tags; void [v, t, s, tags]; }
await addBookTags(client, 'b1', ['sf']);
await removeBookTags(client, 'b1', ['sf']);
await setBookPublisher(client, 'b1', 'tor');
await setBookSequelOf(client, 'b1', null);
try { await deleteBook(client, 'b1', { detach: true }); } catch (error) { if (error instanceof EntityError && error.code === 'entity.still-referenced') console.log(error.referrers?.[0]?.count); }
await updateBook(client, 'b1', { title: null }); // TS2322
await updateBook(client, 'b1', { tags: ['sf'] }); // TS2353
await updateBook(client, 'b1', { isbn: 'b2' }); // TS2353
await updateBook(client, 'b1', { rank: 'high' }); // TS2322
await setBookPublisher(client, 'b1', null); // TS2345
await createBook(client, { isbn: 'b1', title: 'Dune' }); // TS2345
await import('./client.js').then((m) => m.writeQ3_booksWithTag); // TS2551
`;

/** Compiler options at least as strict as an application's: `--strict` and the usual extra checks. */
export const STRICT_OPTIONS: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    noUncheckedIndexedAccess: true,
    noImplicitReturns: true,
    noImplicitOverride: true,
    noUnusedLocals: true,
    exactOptionalPropertyTypes: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts'],
    types: ['node'],
    skipLibCheck: true,
};

/** The client example of docs/targets.md: the code block after the marker line. */
export async function docsExample(): Promise<string> {
    const page = await readFile(join(repoRoot, 'docs', 'targets.md'), 'utf8');
    const match = /<!-- typescript-client-example -->\s*```ts\n([\s\S]*?)```/.exec(page);
    if (!match)
        throw new Error('docs/targets.md has no TypeScript client example after <!-- typescript-client-example -->');
    return match[1]!;
}

let dir: string;

beforeAll(async () => {
    // Inside the repository, so that `redis` and `@types/node` resolve from its node_modules.
    await mkdir(join(repoRoot, '.kvmod-tmp'), { recursive: true });
    dir = await mkdtemp(join(repoRoot, '.kvmod-tmp', 'ts-client-'));
});

afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
});

describe('typescript target', () => {
    test('every generated client (every KVLM model, both dialects) and the client example of the docs compile strict against the redis types', async () => {
        // The run-time files are the same in every output (checked here): one shared copy, linked as each
        // output's kvmod/ folder, is type-checked once.
        const runtime = CLIENT_RUNTIME_FILES.map(({ path, content }) => ({ path, content }));
        await writeOutputs(join(dir, 'shared'), runtime);
        const roots = runtime.map((file) => join(dir, 'shared', file.path));
        for (const path of KVLM_MODELS) {
            const kvlm = await loadKvlmFile(path);
            for (const dialect of ['redisearch2', 'redisearch1']) {
                const { files } = await generateFromKvlm(kvlm, { target: 'typescript', targetOptions: { dialect } });
                expect(files.filter((f) => f.path !== 'client.ts')).toEqual(runtime);
                const out = join(dir, path.replace(/\W/g, '_'), dialect);
                await writeOutputs(
                    out,
                    files.filter((f) => f.path === 'client.ts'),
                );
                await symlink(join(dir, 'shared', 'kvmod'), join(out, 'kvmod'));
                roots.push(join(out, 'client.ts'));
            }
        }
        // Each example generated from its PIDM: the clients with their entity operations.
        for (const example of EXAMPLES) {
            const design = await loadRuntimeDesign(`examples/${example}/${example}.pidm`);
            for (const dialect of ['redisearch2', 'redisearch1']) {
                const { files } = await generateFromKvlm(
                    { kvlm: design.kvlm, pidm: design.pidm },
                    { target: 'typescript', targetOptions: { dialect } },
                );
                const client = files.find((f) => f.path === 'client.ts')!;
                expect(client.content).toContain('export function installEntityFunctions(');
                const out = join(dir, `${example}-pidm`, dialect);
                await writeOutputs(out, [client]);
                await symlink(join(dir, 'shared', 'kvmod'), join(out, 'kvmod'));
                roots.push(join(out, 'client.ts'));
            }
        }
        // The docs' example imports the airflights client generated into ./out.
        const example = join(dir, 'docs-example.ts');
        const airflights = join(dir, 'airflights-pidm', 'redisearch2', 'client.js');
        await writeFile(
            example,
            (await docsExample()).replace(
                "'./out/airflights/typescript/redisearch2/client.js'",
                JSON.stringify(airflights),
            ),
        );
        roots.push(example);
        // A file that does not type-check, in the same program: proves the check can fail.
        const broken = join(dir, 'broken.ts');
        await writeFile(broken, "import { createClient } from 'redis';\nexport const n: number = createClient();\n");
        const program = ts.createProgram([...roots, broken], STRICT_OPTIONS);
        const all = ts.getPreEmitDiagnostics(program);
        const diagnostics = all
            .filter((d) => d.file?.fileName !== broken)
            .map((d) =>
                ts.formatDiagnostic(d, {
                    getCanonicalFileName: (f) => f,
                    getCurrentDirectory: () => dir,
                    getNewLine: () => '\n',
                }),
            );
        expect(diagnostics).toEqual([]);
        expect(all.filter((d) => d.file?.fileName === broken).map((d) => d.code)).toEqual([2322]);
        expect(roots.length).toBe(CLIENT_RUNTIME_FILES.length + (KVLM_MODELS.length + EXAMPLES.length) * 2 + 1);
    });

    test.each([
        ['RediSearch', { dialect: 'redisearch1' }, SHOP_USAGE],
        // The redis-core client's setup is loadLibrary: the entity Function lives in the design's library.
        ['redis-core', { design: 'redis-core' }, SHOP_USAGE.replace(/installEntityFunctions/g, 'loadLibrary')],
    ])(
        'the entity API of the %s client type-checks as the contract says: a one-field patch compiles, undefined is no change; null, a reference, the identifier, a wrong type, unsetting a [1] do not',
        async (name, targetOptions, usage) => {
            const { files } = await generateFromKvlm(await pidmDesign(SHOP_PIDM), {
                target: 'typescript',
                targetOptions,
            });
            const out = join(dir, `shop-entities-${name}`);
            await writeOutputs(out, files);
            await writeFile(join(out, 'usage.ts'), usage);
            const program = ts.createProgram([join(out, 'client.ts'), join(out, 'usage.ts')], STRICT_OPTIONS);
            const found = ts
                .getPreEmitDiagnostics(program)
                .map(
                    (d) =>
                        `${d.file?.fileName.slice(out.length + 1)}:${d.file!.getLineAndCharacterOfPosition(d.start!).line + 1} TS${d.code}`,
                );
            const expected = usage.split('\n').flatMap((line, i) => {
                const code = /\/\/ (TS\d+)$/.exec(line)?.[1];
                return code === undefined ? [] : [`usage.ts:${i + 1} ${code}`];
            });
            expect(expected).toHaveLength(7);
            expect(found).toEqual(expected);
            const client = files.find((f) => f.path === 'client.ts')!.content;
            // The redis-core client's functions take one server or a cluster.
            const type = name === 'redis-core' ? 'core.CoreClient' : 'kvmod.CommandClient';
            expect(client).toContain(
                `export function setBookSequelOf(client: ${type}, isbn: string, target: string | null)`,
            );
            expect(client).toContain(`export function setBookPublisher(client: ${type}, isbn: string, target: string)`);
            expect(client).toContain('    title?: string | undefined;');
            expect(client).not.toMatch(/export (async )?function (write|delete)Q\d/);
        },
    );

    test('an entity operation named like a query is refused naming both', async () => {
        const design = await pidmDesign(`entity Book {
  id isbn
  title text
}

query getBook:
SELECT isbn, title
FROM Book
WHERE isbn = "?"
`);
        const redis = buildRedisViewModel(design.kvlm, { dialect: 'redisearch1' }, { pidm: design.pidm });
        expect(() => buildTsClientDesign(redis)).toThrow(
            'the get of entity Book and the function of query getBook would both be named getBook in the TypeScript client (module scope); rename one of them in the model',
        );
    });

    test('every client of the redis-core design (every KVLM model) compiles strict against the redis types, with the types of the RediSearch client', async () => {
        const runtime = [...CLIENT_RUNTIME_FILES, ...CORE_CLIENT_RUNTIME_FILES].map(({ path, content }) => ({
            path,
            content,
        }));
        await writeOutputs(join(dir, 'core-shared'), runtime);
        const roots = runtime.map((file) => join(dir, 'core-shared', file.path));
        for (const path of KVLM_MODELS) {
            const kvlm = await loadKvlmFile(path);
            const { files, warnings } = await generateFromKvlm(kvlm, {
                target: 'typescript',
                targetOptions: { design: 'redis-core' },
            });
            expect(warnings.filter((w) => w.code === 'redis-core.no-entity-store')).toEqual([
                {
                    code: 'redis-core.no-entity-store',
                    message:
                        'the design keeps no entities, so it has no entity operations (no entity functions in the client): the design was read from a .kvlm file without its source PIDM model, so the entities (their attributes and references) are unknown',
                },
            ]);
            expect(files.filter((f) => f.path !== 'client.ts' && f.path !== 'library.ts')).toEqual(runtime);
            const out = join(dir, 'core', path.replace(/\W/g, '_'));
            await writeOutputs(
                out,
                files.filter((f) => f.path === 'client.ts' || f.path === 'library.ts'),
            );
            await symlink(join(dir, 'core-shared', 'kvmod'), join(out, 'kvmod'));
            roots.push(join(out, 'client.ts'));
            // The same parameter and result types as the RediSearch client of the model.
            const rediSearch = (await generateFromKvlm(kvlm, { target: 'typescript' })).files.find(
                (f) => f.path === 'client.ts',
            )!.content;
            const client = files.find((f) => f.path === 'client.ts')!.content;
            // Without the source PIDM the design keeps no entities: no entity operations, as for RediSearch.
            expect(client).not.toMatch(/kvmodEntities|ENTITY_STORE|export function create/);
            const interfaces = (text: string) =>
                [...text.matchAll(/export interface \w+(?:Params|Result) \{[^}]*\}/g)].map((m) => m[0]);
            const own = interfaces(client);
            expect(own.length).toBeGreaterThan(0);
            expect(interfaces(rediSearch).filter((i) => own.includes(i))).toEqual(own);
            // library.ts holds library.lua, as the redis-core target writes it.
            const lua = (await generateFromKvlm(kvlm, { target: 'redis-core' })).files.find(
                (f) => f.path === 'library.lua',
            )!.content;
            const library = files.find((f) => f.path === 'library.ts')!.content;
            const module = ts.transpileModule(library, { compilerOptions: { module: ts.ModuleKind.CommonJS } });
            const exports: { LIBRARY_SOURCE?: string } = {};
            new Function('exports', module.outputText)(exports);
            expect(exports.LIBRARY_SOURCE).toBe(lua);
        }
        // Each example generated from its PIDM: the clients with their entity operations, which loadLibrary sets up.
        for (const example of EXAMPLES) {
            const design = await loadRuntimeDesign(`examples/${example}/${example}.pidm`);
            const { files, warnings } = await generateFromKvlm(
                { kvlm: design.kvlm, pidm: design.pidm },
                { target: 'typescript', targetOptions: { design: 'redis-core' } },
            );
            expect(warnings.filter((w) => w.code === 'redis-core.no-entity-store')).toEqual([]);
            const client = files.find((f) => f.path === 'client.ts')!.content;
            expect(client).toContain(
                '    library: LIBRARY_SOURCE,\n    cluster: core.clusterEntityCalls(CLUSTER_STEPS),\n} satisfies kvmodEntities.ClientEntityStore;',
            );
            expect(client).toMatch(/export function create\w+\(client: core\.CoreClient/);
            expect(client).not.toContain('installEntityFunctions');
            const out = join(dir, 'core', `${example}-pidm`);
            await writeOutputs(
                out,
                files.filter((f) => f.path === 'client.ts' || f.path === 'library.ts'),
            );
            await symlink(join(dir, 'core-shared', 'kvmod'), join(out, 'kvmod'));
            roots.push(join(out, 'client.ts'));
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
        expect(roots.length).toBe(runtime.length + KVLM_MODELS.length + EXAMPLES.length);
    });

    test("the redis-core client embeds library.lua as the run's templates render it (an overridden library is the one loadLibrary loads)", async () => {
        const design = await loadRuntimeDesign('examples/book-ratings/book-ratings.pidm');
        const source = { kvlm: design.kvlm, pidm: design.pidm };
        const templates = await mkdtemp(join(tmpdir(), 'kvmod-core-templates-'));
        try {
            const builtIn = await readFile(join(repoRoot, 'templates', 'redis-core', 'library.lua.hbs'), 'utf8');
            await writeFile(join(templates, 'library.lua.hbs'), `-- audited by ops\n${builtIn}`);
            const lua = (
                await generateFromKvlm(source, { target: 'redis-core', templatesDir: templates, log: () => {} })
            ).files.find((f) => f.path === 'library.lua')!.content;
            expect(lua.startsWith('-- audited by ops\n')).toBe(true);
            const { files } = await generateFromKvlm(source, {
                target: 'typescript',
                targetOptions: { design: 'redis-core' },
                templatesDir: templates,
                log: () => {},
            });
            const library = files.find((f) => f.path === 'library.ts')!.content;
            const module = ts.transpileModule(library, { compilerOptions: { module: ts.ModuleKind.CommonJS } });
            const exports: { LIBRARY_SOURCE?: string } = {};
            new Function('exports', module.outputText)(exports);
            expect(exports.LIBRARY_SOURCE).toBe(lua);
        } finally {
            await rm(templates, { recursive: true, force: true });
        }
    });

    test('unsafe names get one safe spelling', () => {
        expect(
            ['class', 'delete', '1st', 'Origin.city', 'total €', 'ok_name', 'await', '$x'].map(safeIdentifier),
        ).toEqual(['class_', 'delete_', '_1st', 'Origin_city', 'total__', 'ok_name', 'await_', '$x']);
    });

    test('a field called class, a label 1st and a query called delete are spelt safely in the client', async () => {
        const kvlm = await parseKvlm(`database odd
collection C {
    key C_id natural(T.id)
    from T as T
    field class: text = T.class label "1st" projected(delete) filtered(delete)
    field id: int = T.id label "id" projected(delete)
    query delete {
        param class: text
        where class = ?class
        select class as "1st", id
    }
}
`);
        const { files } = await generateFromKvlm(kvlm, {
            target: 'typescript',
            targetOptions: { dialect: 'redisearch1' },
        });
        const client = files.find((f) => f.path === 'client.ts')!.content;
        expect(client).toContain('export function delete_(client: kvmod.CommandClient, params: Delete_Params');
        expect(client).toContain('    class_: string;');
        expect(client).toContain('readonly _1st: string | null;');
        expect(client).toContain("{ prop: 'class_', param: 'class' }");
    });

    test('two names spelt alike are an error naming both', async () => {
        const kvlm = await parseKvlm(`database clash
collection C {
    key C_id natural(T.id)
    from T as T
    field a: text = T.a label "x.y" projected(Q)
    field b: text = T.b label "x_y" projected(Q)
    query Q {
        select a as "x.y", b as "x_y"
    }
}
`);
        const redis = buildRedisViewModel(kvlm, { dialect: 'redisearch1' });
        expect(() => buildTsClientDesign(redis)).toThrow(
            'column "x_y" and column "x.y" would both be named x_y in the TypeScript client (the properties of QResult); rename one of them in the model',
        );
    });

    test("the embedded run-time files are the Redis target's modules, imports pointed at each other", async () => {
        const normalise = (text: string) =>
            text
                .replace(/from '(?:\.{1,2}\/)+(?:[\w-]+\/)*([\w-]+)\.js'/g, "from './$1.js'")
                .replace("from './redis-view-model.js'", "from './redis-view-model-types.js'");
        for (const file of [...CLIENT_RUNTIME_FILES, ...CORE_CLIENT_RUNTIME_FILES]) {
            const source = await readFile(join(repoRoot, file.source), 'utf8');
            expect(file.content.split('\n').slice(1).join('\n')).toBe(normalise(source));
        }
    });
});
