/**
 * The engine runtimes, by the engine name targets declare (`GenerationTarget.engine`): how `load`, `verify`,
 * `data check`, `doctor` and `conformance` find the engine a target's design runs on. A target on a new engine
 * adds its runtime folder (src/runtime/<engine>/) and one line here; a target on an existing engine adds
 * nothing. The lines import lazily, so that front ends which only list the engines stay light (no database
 * client is loaded before a command runs). The registry lives in the runtime, not on the target, because the
 * dependencies point one way: src/generation never imports src/runtime.
 */
import { DEFAULT_TARGET, generationTargets, type RegisteredTarget } from '../generation/generation-targets.js';
import { KvmodError } from '../pipeline/errors.js';
import { registerEngine, type RegisteredEngine } from './engine.js';

/** Each engine's runtime, imported when a command needs it. */
const ENGINES: ReadonlyMap<string, () => Promise<RegisteredEngine>> = new Map([
    ['redisearch', async () => registerEngine((await import('./redisearch/redis-engine.js')).redisEngine)],
    ['redis-core', async () => registerEngine((await import('./redis-core/core-runtime.js')).redisCoreEngine)],
    ['dynamodb', async () => registerEngine((await import('./dynamodb/dynamo-engine.js')).dynamoEngine)],
]);

/** Whether some engine runtime runs the designs of a target (load and verify take it). */
export function runsOnEngine(target: Pick<RegisteredTarget, 'engine'>): boolean {
    return target.engine !== undefined && ENGINES.has(target.engine);
}

/** The targets whose designs run on an engine, in registry order. */
export function runnableTargets(): RegisteredTarget[] {
    return [...generationTargets.values()].filter(runsOnEngine);
}

/** The engine runtime of a target; a KvmodError (`cli.option`) naming the runnable targets when it has none. */
export async function engineOf(target: RegisteredTarget): Promise<RegisteredEngine> {
    const load = target.engine === undefined ? undefined : ENGINES.get(target.engine);
    if (!load) {
        throw new KvmodError(
            `target ${target.name} runs on no engine kvmod drives; load and verify work with: ${runnableTargets()
                .map((t) => t.name)
                .join(', ')}`,
            { code: 'cli.option' },
        );
    }
    return load();
}

/** The engine of the default target (what `doctor` and `conformance` check when no target is named). */
export function defaultEngine(): Promise<RegisteredEngine> {
    return engineOf(generationTargets.get(DEFAULT_TARGET)!);
}
