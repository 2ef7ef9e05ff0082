/**
 * The TypeScript target: the generated client of every KVLM fixture and example, in both dialects, compiles with
 * `--strict` (and more) against the real `redis` package types, in one TypeScript program; the client example of
 * docs/targets.md compiles with them; names get one safe spelling and collisions are refused; the embedded
 * run-time files are the Redis target's own modules.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import ts from 'typescript';
import { writeOutputs } from '../../src/generation/generation-writer.js';
import { buildTsClientDesign, safeIdentifier } from '../../src/generation/typescript/typescript-design.js';
import { CLIENT_RUNTIME_FILES } from '../../src/generation/typescript/typescript-runtime-files.js';
import { buildRedisViewModel } from '../../src/generation/redis/redis-view-model.js';
import { generateFromKvlm } from '../../src/pipeline/generate.js';
import { KVLM_MODELS, loadKvlmFile, parseKvlm, repoRoot } from './generation-fixtures.js';

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
        // The docs' example imports the airflights client generated into ./out.
        const example = join(dir, 'docs-example.ts');
        const airflights = join(dir, 'examples_airflights_airflights_kvlm', 'redisearch2', 'client.js');
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
        expect(roots.length).toBe(CLIENT_RUNTIME_FILES.length + KVLM_MODELS.length * 2 + 1);
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
        for (const file of CLIENT_RUNTIME_FILES) {
            const source = await readFile(join(repoRoot, file.source), 'utf8');
            expect(file.content.split('\n').slice(1).join('\n')).toBe(normalise(source));
        }
    });
});
