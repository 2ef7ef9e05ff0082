/**
 * The RediSearch engine runtime (both dialects) behind the engine contract (../engine.ts): it runs the Redis
 * target's design with the connection (redis-link.ts), loader (redis-loader.ts) and query reader
 * (redis-query.ts) the runtime has always used, and turns their failures into typed `EngineError`s with the
 * same messages and codes.
 */
import { formatCliCommand } from '../../generation/shared/redis-escaping.js';
import { unservableNumber } from '../../generation/shared/redis-number-rules.js';
import { redisTarget, type redisTargetOptions } from '../../generation/redis/redis-target.js';
import { REDIS_TEXT_RULES } from '../../generation/shared/redis-text-rules.js';
import type { RedisViewModel } from '../../generation/redis/redis-view-model.js';
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
} from '../engine.js';
import { formatCount } from '../format-count.js';
import { ensureIndexes, loadIntoRedis } from './redis-loader.js';
import {
    connectRedis,
    detectDialect,
    type SearchModule,
    isErrorReply,
    REDIS_LINK_FAILURES,
    RedisConnectionLost,
    type RedisLink,
} from '../redis-connection/redis-link.js';
import { runEngineQuery } from './redis-query.js';
import { designRecordArgv } from './redis-stable-names.js';
import { redisearchCollation } from './redis-collation.js';
import { cutsAnswers, queryTimeoutWarning, readQueryTimeout } from './redis-query-timeout.js';
import { screenedUnservable } from './redis-servable-screen.js';
import { redisStoreAccess } from './redis-entity-access.js';
import { redisEntityStore } from '../redis-entities/redis-entity-store.js';

/** The failure each of the Redis runtime's error codes means. */
const FAILURES: Readonly<Record<string, EngineFailure>> = {
    ...REDIS_LINK_FAILURES,
    'redis.no-search': 'missing-module',
    'redis.index-differs': 'schema-differs',
};

/** The same failure as an `EngineError` (message and code kept); other errors as they are. */
const engineError = engineErrors(FAILURES);

/** Runs `action`, its failures as `EngineError`s. */
const typed = <T>(action: () => Promise<T>): Promise<T> => withEngineErrors(engineError, action);

/** An entity store, its failures as `EngineError`s. */
const typedStore = <D>(store: EngineEntityStore<D>): EngineEntityStore<D> => entityStoreErrors(engineError, store);

/** The server's version from INFO server; `unknown` when the server does not say or the user may not ask. */
async function serverVersion(link: RedisLink): Promise<string> {
    try {
        const info = String(await link.send(['INFO', 'server']));
        return /^redis_version:(.+)$/m.exec(info)?.[1]?.trim() ?? 'unknown';
    } catch (error) {
        if (isErrorReply(error)) return 'unknown';
        throw error;
    }
}

/** What a session knows of its server: the engine probe everyone reads, and the search module's details. */
interface Probed {
    found: EngineProbe;
    search: SearchModule;
}

async function probe(link: RedisLink): Promise<Probed> {
    const search = await detectDialect(link);
    const { dialect, version } = search;
    const timeout = await readQueryTimeout(link, search);
    const warning = queryTimeoutWarning(link.url, dialect, timeout);
    const found: EngineProbe = {
        server: link.url,
        product: 'Redis',
        serverVersion: await serverVersion(link),
        module: { name: 'RediSearch', version },
        variant: dialect,
        options: { dialect },
        warnings: warning !== null ? [warning] : [],
    };
    // 2.x queries carry TIMEOUT 0; on 1.2 nothing turns a cutting timeout off.
    if (dialect === 'redisearch1' && warning !== null && timeout !== null && cutsAnswers(timeout))
        found.answersMayBeCut = warning;
    return { found, search };
}

function session(link: RedisLink, { found, search }: Probed): EngineSession<RedisViewModel> {
    return {
        probe: found,
        contradictions(given) {
            if (given.dialect === undefined || String(given.dialect) === found.variant) return [];
            // e.g. 2.x commands on a 1.2 server: FT.CREATE … PREFIX is accepted and ignored, nothing gets indexed.
            return [
                `${link.url} runs ${found.variant} (module version ${found.module?.version ?? 0}), but --dialect ${String(given.dialect)} was given: its commands may be accepted and do nothing`,
            ];
        },
        async prepareSchema(view, mode) {
            try {
                const indexes = await ensureIndexes(
                    link,
                    view,
                    view.collections,
                    mode === 'recreate',
                    mode === 'fresh',
                );
                const outcomes = indexes.map((outcome) => ({
                    object: 'index',
                    name: outcome.index,
                    action: outcome.action,
                }));
                // What the server now serves, for `kvmod plan --redis` (see redis-stable-names.ts).
                await link.send(designRecordArgv(view));
                return outcomes;
            } catch (error) {
                if (!(error instanceof RedisConnectionLost)) throw engineError(error);
                const message =
                    error.code === 'redis.timeout'
                        ? `${error.message}; no row was written; run the same command again to finish`
                        : `lost the connection to ${link.url} before any row was written; run the same command again to finish`;
                throw new EngineError(FAILURES[error.code] ?? 'connection-lost', message, {
                    code: error.code,
                    cause: error,
                });
            }
        },
        writeRows: (view, collections, options = {}) =>
            typed(async () => {
                const { collections: written, rows } = await loadIntoRedis(link, view, collections, {
                    ...options,
                    skipIndexes: true,
                    rowWritesBlock: search.rowWritesBlock,
                });
                return { collections: written, rows };
            }),
        runQuery: (view, collectionName, queryName, parameters) =>
            typed(async () => {
                const query = view.collections
                    .find((c) => c.name === collectionName)
                    ?.queries.find((q) => q.name === queryName);
                if (!query) throw new Error(`the Redis design has no query ${queryName} in ${collectionName}`);
                const answer = await runEngineQuery(link, query, parameters);
                return { rows: answer.rows, command: formatCliCommand(answer.argv) };
            }),
        entities: typedStore(redisEntityStore(redisStoreAccess(link))),
        close: () => link.close(),
    };
}

/** RediSearch (2.x and 1.2), running the Redis target's design. */
export const redisEngine: EngineRuntime<typeof redisTargetOptions, RedisViewModel> = {
    name: 'redisearch',
    target: redisTarget,
    collation: redisearchCollation,
    textRules: ({ dialect }) => {
        const rules = REDIS_TEXT_RULES[dialect];
        return {
            name: dialect,
            unservable: screenedUnservable(dialect),
            unsortable: (text) => rules.unsortable(text),
            unservableNumber: (value) => unservableNumber(dialect, value),
        };
    },
    variantOf: (view) => view.dialect,
    advice: (found) =>
        found.variant === 'redisearch1'
            ? 'generate with: kvmod generate <model> --dialect redisearch1 (scripts for 2.x would create indexes that never index a row here)'
            : 'generate with: kvmod generate <model> (the default dialect, redisearch2)',
    async connect({ urls, timeoutSeconds }) {
        if (urls.length !== 1)
            throw new EngineError(
                'url',
                `RediSearch runs on one server: give one URL, not ${formatCount(urls.length)}`,
                {
                    code: 'redis.url',
                },
            );
        const link = await typed(() => connectRedis(urls[0], { timeoutSeconds }));
        try {
            return session(link, await probe(link));
        } catch (error) {
            await link.close();
            throw engineError(error);
        }
    },
};
