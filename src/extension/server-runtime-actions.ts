/**
 * The editor's "Load into Redis" and "Verify against Redis" commands, run inside the language server through
 * the same runtime actions as `kvmod load` and `kvmod verify` (runtime-actions.ts). The server and the data
 * come from the config file above the model (its `redis`, with REDIS_URL, and `data`), else from the
 * `kvmod.runtime.*` settings; without a data file the model's synthetic data is used (as `kvmod data
 * generate` makes it). Messages name the server with its password hidden, as the runtime gives it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { URI } from 'langium';
import type { KvmodCommandArgs, KvmodCommandResult } from '../language/lsp/kvmod-command-handler.js';
import type { RawOptionValues } from '../generation/generation-options.js';
import { allTargetOptions } from '../generation/generation-targets.js';
import { loadConfig, type KvmodConfig } from '../pipeline/config.js';
import { isKvmodError } from '../pipeline/errors.js';
import { generateInstanceData } from '../runtime/data-generator.js';
import { loadIntoEngine, verifyOnEngine, type RuntimeRunOptions } from '../runtime/runtime-actions.js';
import { loadRuntimeModel } from '../runtime/runtime-design.js';
import { formatVerdicts, verdictStatus } from '../runtime/verify.js';

/** Objects per entity of the synthetic data used when no data file is configured (`kvmod data generate`'s default). */
const SYNTHETIC_SCALE = 100;

/** `kvmod load` for the model of `args.uri`. */
export async function loadIntoConfiguredServer(
    args: KvmodCommandArgs,
    env: Record<string, string | undefined> = process.env,
): Promise<KvmodCommandResult> {
    return withRunOptions(args, env, async (options, messages) => {
        const result = await loadIntoEngine(options);
        messages.push(...result.warnings.map((warning) => `warning: ${warning}`));
        for (const object of result.schema) messages.push(`${object.object} ${object.name}: ${object.action}`);
        for (const collection of result.collections) messages.push(`${collection.name}: ${collection.rows} rows`);
        messages.push(`loaded ${result.rows} rows into ${result.server} (${result.engine})`);
        return true;
    });
}

/** `kvmod verify` for the model of `args.uri`: ok when no query differs from the oracle. */
export async function verifyOnConfiguredServer(
    args: KvmodCommandArgs,
    env: Record<string, string | undefined> = process.env,
): Promise<KvmodCommandResult> {
    return withRunOptions(args, env, async (options, messages) => {
        const result = await verifyOnEngine(options);
        messages.push(...result.warnings.map((warning) => `warning: ${warning}`));
        for (const verdict of result.verdicts.filter((v) => verdictStatus(v) === 'untested'))
            messages.push(`warning: ${verdict.query} was not tested: no parameter set gave a row to compare`);
        messages.push(`loaded ${result.load.rows} rows into ${result.server} (${result.engine})`);
        messages.push(formatVerdicts(result.verdicts));
        return result.ok;
    });
}

/** The run options from the config and settings, with synthetic data in a scratch file when none is named. */
async function withRunOptions(
    args: KvmodCommandArgs,
    env: Record<string, string | undefined>,
    run: (options: RuntimeRunOptions, messages: string[]) => Promise<boolean>,
): Promise<KvmodCommandResult> {
    const modelPath = URI.parse(args.uri).fsPath;
    const folder = dirname(modelPath);
    const { config } = await loadConfig(folder, env);
    const settings = args.settings ?? {};
    const server = config.redis ?? (settings.redisUrl?.trim() || undefined);
    if (!server) {
        return {
            ok: false,
            messages: [
                'kvmod: no Redis server is configured: set "redis" in kvmod.config.json (or kvmod.config.ts), the REDIS_URL environment variable, or the kvmod.runtime.redisUrl setting',
            ],
            written: [],
        };
    }
    const messages: string[] = [];
    const dataFile = config.data ?? (settings.dataFile?.trim() ? resolve(folder, settings.dataFile) : undefined);
    let scratch: string | undefined;
    let dataPath = dataFile;
    try {
        if (!dataPath) {
            scratch = await mkdtemp(join(tmpdir(), 'kvmod-editor-data-'));
            dataPath = join(scratch, 'data.json');
            const data = generateInstanceData(await loadRuntimeModel(modelPath), { scale: SYNTHETIC_SCALE, seed: 1 });
            await writeFile(dataPath, JSON.stringify(data));
            messages.push(`no data file configured: synthetic data, ${SYNTHETIC_SCALE} objects per entity (seed 1)`);
        }
        const options: RuntimeRunOptions = {
            modelPath,
            dataPath,
            server,
            target: config.target ?? settings.target,
            targetOptions: { ...settings.targetOptions, ...configTargetOptions(config) },
            timeoutSeconds: config.timeout,
            threshold: config.threshold ?? settings.threshold,
            merge: config.merge ?? settings.policy,
            keyStrategy: config.key,
        };
        const ok = await run(options, messages);
        return { ok, messages, written: [] };
    } catch (error) {
        // What the CLI prints as `kvmod: <message>` (an unreachable server, a refused login, model errors).
        if (!isKvmodError(error)) throw error;
        return { ok: false, messages: [...messages, `kvmod: ${error.message}`], written: [] };
    } finally {
        if (scratch) await rm(scratch, { recursive: true, force: true });
    }
}

/** The target options the config file sets, by their declared names. */
function configTargetOptions(config: KvmodConfig): RawOptionValues {
    const values: Record<string, string | number | boolean> = {};
    for (const name of allTargetOptions().keys()) {
        const value = config[name];
        if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') values[name] = value;
    }
    return values;
}
