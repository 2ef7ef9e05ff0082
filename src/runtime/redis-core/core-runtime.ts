/**
 * The core-Redis engine runtime behind the engine contract (../engine.ts): runs the redis-core target's design on
 * any Redis 7 or later without modules, on one server or on a Redis Cluster. A cluster is recognised from the
 * server itself (`INFO cluster`: any node's URL will do; node-redis finds the other nodes), or given as several
 * seed URLs. Its collation is the one the function library implements (README of the design, "Values and text").
 */
import { renderTemplate } from '../../generation/generation-engine.js';
import type { CoreViewModel } from '../../generation/redis-core/redis-core-design.js';
import { redisCoreTarget, type redisCoreTargetOptions } from '../../generation/redis-core/redis-core-target.js';
import { collationFor, compareCodePoints } from '../collation.js';
import {
    EngineError,
    engineErrors,
    withEngineErrors,
    entityStoreErrors,
    type EngineEntityStore,
    type EngineFailure,
    type EngineProbe,
    type EngineRuntime,
    type EngineSession,
    type SchemaOutcome,
} from '../engine.js';
import { isErrorReply, REDIS_LINK_FAILURES } from '../redis-connection/redis-link.js';
import { connectCore, type CoreConnection } from './core-connection.js';
import { coreEqualityForm, coreOrderForm } from './core-consistency.js';
import { prepareCore, runCoreQuery, writeCoreRows } from './core-engine.js';
import { coreStoreAccess } from './core-entity-access.js';
import { redisEntityStore } from '../redis-entities/redis-entity-store.js';

/** The failure each error code of this runtime means. */
const FAILURES: Readonly<Record<string, EngineFailure>> = {
    ...REDIS_LINK_FAILURES,
    'redis.version': 'missing-module',
    'data.unencodable': 'refused',
    'redis-core.library-differs': 'schema-differs',
};

const engineError = engineErrors(FAILURES);

/** Runs `action`, its failures as `EngineError`s. */
const typed = <T>(action: () => Promise<T>): Promise<T> => withEngineErrors(engineError, action);

/** An entity store, its failures as `EngineError`s. */
const typedStore = <D>(store: EngineEntityStore<D>): EngineEntityStore<D> => entityStoreErrors(engineError, store);

/**
 * Text equality: ASCII white space trimmed, ASCII letters lower-cased; order: ASCII letters lower-cased, then code
 * points (UTF-8 bytes). What the library's `equality_form`, `ascii_lower` and `compare_bytes` do.
 */
export const redisCoreCollation = collationFor({
    name: 'redis-core',
    equals: (a, b) => coreEqualityForm(a) === coreEqualityForm(b),
    compare: (a, b) => compareCodePoints(coreOrderForm(a), coreOrderForm(b)),
    orderForm: coreOrderForm,
});

/**
 * Connects to one server, or to the whole cluster when the URLs are several or the one URL is a cluster node
 * (node-redis finds the other nodes from it).
 */
export async function connectCoreNodes(urls: readonly string[], timeoutSeconds?: number): Promise<CoreConnection> {
    const connection = await connectCore(urls[0], { cluster: urls.length > 1 ? [...urls] : undefined, timeoutSeconds });
    if (connection.cluster) return connection;
    // A server that refuses `INFO cluster` (an ACL user without it) is taken as one server.
    const cluster = await info(connection, 'cluster').catch(() => new Map<string, string>());
    if (cluster.get('cluster_enabled') !== '1') return connection;
    await connection.close();
    return connectCore(urls[0], { cluster: [...urls], timeoutSeconds });
}

/** One `INFO` section as fields. */
async function info(connection: CoreConnection, section: string): Promise<Map<string, string>> {
    const [node] = await connection.masters();
    const text = String(await node.send(['INFO', section]));
    return new Map(
        text
            .split(/\r?\n/)
            .filter((line) => line.includes(':') && !line.startsWith('#'))
            .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
    );
}

async function probe(connection: CoreConnection): Promise<EngineProbe> {
    let server: Map<string, string>;
    try {
        server = await info(connection, 'server');
    } catch (error) {
        if (!isErrorReply(error)) throw error;
        server = new Map();
    }
    const version = server.get('valkey_version') ?? server.get('redis_version') ?? 'unknown';
    const major = Number.parseInt(version, 10);
    if (Number.isInteger(major) && major < 7 && !server.has('valkey_version'))
        throw new EngineError(
            'missing-module',
            `${connection.url} runs Redis ${version}: the redis-core design needs Redis 7 or later (Redis Functions, FUNCTION LOAD)`,
            { code: 'redis.version' },
        );
    const masters = connection.cluster ? (await connection.masters()).length : 0;
    return {
        server: connection.url,
        product: server.has('valkey_version') ? 'Valkey' : 'Redis',
        serverVersion: version,
        variant: connection.cluster ? `redis-core on a cluster of ${masters} masters` : 'redis-core',
        options: {},
    };
}

/** The function library the design's templates write (the built-in templates: what `generate` writes). */
async function librarySource(view: CoreViewModel): Promise<string> {
    const library = await renderTemplate(redisCoreTarget, view, 'library.lua');
    if (library === undefined) throw new Error('the redis-core templates wrote no library.lua');
    return library;
}

/** The library's code on each master, or null where it is not loaded. */
async function loadedLibraries(connection: CoreConnection, name: string): Promise<(string | null)[]> {
    const codes: (string | null)[] = [];
    for (const node of await connection.masters()) {
        const reply = (await node.send(['FUNCTION', 'LIST', 'LIBRARYNAME', name, 'WITHCODE'])) as unknown[][];
        const entry = reply.find((library) => {
            const fields = library.map(String);
            return fields[fields.indexOf('library_name') + 1] === name;
        });
        if (!entry) codes.push(null);
        else codes.push(String(entry[entry.map(String).indexOf('library_code') + 1]));
    }
    return codes;
}

function session(connection: CoreConnection, found: EngineProbe): EngineSession<CoreViewModel> {
    return {
        probe: found,
        contradictions: () => [],
        prepareSchema: (view, mode) =>
            typed(async (): Promise<SchemaOutcome[]> => {
                const library = await librarySource(view);
                const loaded = await loadedLibraries(connection, view.library);
                const differs = loaded.some((code) => code !== null && code !== library);
                if (differs && mode === 'keep') {
                    throw new EngineError(
                        'schema-differs',
                        `the function library ${view.library} on ${connection.url} was loaded from another design: its keys may not fit this one; run again with --recreate to delete the design's keys and load it anew`,
                        { code: 'redis-core.library-differs' },
                    );
                }
                await prepareCore(connection, view, library, mode === 'fresh' || differs);
                const action = loaded.every((code) => code === null)
                    ? 'created'
                    : differs || mode === 'fresh'
                      ? 'recreated'
                      : 'kept';
                return [{ object: 'function library', name: view.library, action }];
            }),
        writeRows: (view, collections, options = {}) =>
            typed(() => writeCoreRows(connection, view, collections, options)),
        runQuery: (view, collectionName, queryName, parameters) =>
            typed(async () => {
                const collection = view.collections.find((c) => c.name === collectionName);
                const query = collection?.queries.find((q) => q.name === queryName);
                if (!collection || !query)
                    throw new Error(`the redis-core design has no query ${queryName} in ${collectionName}`);
                const answer = await runCoreQuery(connection, view, collection, query, parameters);
                return { rows: answer.rows, command: answer.command };
            }),
        entities: typedStore(redisEntityStore(coreStoreAccess(connection))),
        close: () => connection.close(),
    };
}

/** Core Redis (7 or later, no module; a single server or a cluster), running the redis-core target's design. */
export const redisCoreEngine: EngineRuntime<typeof redisCoreTargetOptions, CoreViewModel> = {
    name: 'redis-core',
    target: redisCoreTarget,
    collation: redisCoreCollation,
    // Sets and sorted sets hold any bytes: every text can be found and sorted.
    textRules: () => ({ name: 'redis-core', unservable: () => null, unsortable: () => null }),
    variantOf: () => 'redis-core',
    advice: () =>
        'generate with: kvmod generate <model> --target redis-core (runs on Redis 7 or later, no module needed)',
    async connect({ urls, timeoutSeconds }) {
        const connection = await typed(() => connectCoreNodes(urls, timeoutSeconds));
        try {
            return session(connection, await typed(() => probe(connection)));
        } catch (error) {
            await connection.close();
            throw engineError(error);
        }
    },
    // On a cluster an operation is a first call in the entity's slot, then steps a dead writer can leave undone.
    async completePending(design, run) {
        const { completeMessage, completePendingChanges } = await import('./core-complete.js');
        return completeMessage(await completePendingChanges(design, run));
    },
};
