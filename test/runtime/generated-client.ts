/**
 * What the tests of the generated TypeScript client share: generating a client and importing it (transpiled to
 * JavaScript next to itself), calling its functions by name, and writing instance data through its GENERATED
 * entity operations (the code applications run).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import type { EntityReferenceSchema } from '../../src/generation/shared/entity-store.js';
import type { DesignInput } from '../../src/generation/generation-target.js';
import type { TsEntity } from '../../src/generation/typescript/typescript-entities.js';
import { generateFromKvlm } from '../../src/pipeline/generate.js';
import type { InstanceData, InstanceObject } from '../../src/runtime/instance-data.js';

/** The generated module, called by name (its types are proven by the compile test). */
export type ClientModule = Record<string, (...args: unknown[]) => unknown>;

/**
 * Generates a client (with its entity operations when the source PIDM is given), transpiles it, imports it: of the
 * Redis design in a dialect, or of the redis-core design.
 */
export async function importClient(
    source: DesignInput,
    design: { dialect: string } | { design: 'redis-core' },
    out: string,
): Promise<ClientModule> {
    const { files } = await generateFromKvlm(source, { target: 'typescript', targetOptions: design });
    for (const file of files) {
        const js = ts.transpileModule(file.content, {
            compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
        }).outputText;
        const path = join(out, file.path.replace(/\.ts$/, '.js'));
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, js);
    }
    return (await import(pathToFileURL(join(out, 'client.js')).href)) as ClientModule;
}

export function call<T>(module: ClientModule, name: string, ...args: unknown[]): Promise<T> {
    const fn = module[name];
    if (typeof fn !== 'function') throw new Error(`the generated client has no function ${name}`);
    return fn(...args) as Promise<T>;
}

/** A reference an object is created with: `[1]`, and a `[*]` that must list some. */
function required(reference: EntityReferenceSchema): boolean {
    return reference.kind === 'one' || reference.minItems > 0;
}

/**
 * Writes instance data through the generated operations: every object created with its `[1]` references and the
 * `[*]` ones that must list some (their targets first), the others empty, then each `[0..1]` set and each `[*]` list added
 * (references may form cycles). `batch` calls run at once (node-redis pipelines them). Returns the calls made.
 */
export async function writeEntities(
    module: ClientModule,
    client: unknown,
    entities: readonly TsEntity[],
    data: InstanceData,
    batch = 200,
): Promise<number> {
    const byName = new Map(entities.map((entity) => [entity.schema.name, entity]));
    const order: TsEntity[] = [];
    const visit = (entity: TsEntity, path: Set<string>) => {
        if (order.includes(entity)) return;
        if (path.has(entity.schema.name)) throw new Error(`[1] references form a cycle through ${entity.schema.name}`);
        path.add(entity.schema.name);
        for (const reference of entity.schema.references)
            if (required(reference) && reference.target !== entity.schema.name)
                visit(byName.get(reference.target)!, path);
        path.delete(entity.schema.name);
        order.push(entity);
    };
    for (const entity of entities) visit(entity, new Set());
    let calls = 0;
    const run = async (jobs: (() => Promise<unknown>)[]) => {
        for (let i = 0; i < jobs.length; i += batch) await Promise.all(jobs.slice(i, i + batch).map((job) => job()));
        calls += jobs.length;
    };
    const objects = (entity: TsEntity): InstanceObject[] => data[entity.schema.name] ?? [];
    for (const entity of order) {
        await run(
            objects(entity).map((object) => () => {
                const created: Record<string, unknown> = { ...object };
                for (const reference of entity.schema.references)
                    if (!required(reference)) created[reference.name] = reference.kind === 'many' ? [] : null;
                return call(module, entity.names.create, client, created);
            }),
        );
    }
    for (const entity of order) {
        const jobs: (() => Promise<unknown>)[] = [];
        for (const object of objects(entity)) {
            const id = object[entity.schema.idName];
            for (const reference of entity.references) {
                const value = object[reference.schema.name];
                if ('set' in reference.names && reference.schema.kind === 'optional' && value != null) {
                    const name = reference.names.set;
                    jobs.push(() => call(module, name, client, id, value));
                }
                if (
                    'add' in reference.names &&
                    !required(reference.schema) &&
                    Array.isArray(value) &&
                    value.length > 0
                ) {
                    const name = reference.names.add;
                    jobs.push(() => call(module, name, client, id, value));
                }
            }
        }
        await run(jobs);
    }
    return calls;
}
