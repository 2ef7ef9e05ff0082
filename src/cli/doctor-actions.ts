/**
 * The action of `kvmod doctor`: connects through the target's engine runtime, which probes the server (its
 * version, and the module and dialect it serves the design with), and says how to generate for it. Loaded by
 * the command's handler only when it runs (it pulls in the database client).
 */
import { DEFAULT_TARGET, getGenerationTarget } from '../generation/generation-targets.js';
import type { EngineProbe } from '../runtime/engine.js';
import { engineOf } from '../runtime/engine-registry.js';
import { processIo, type CliIo } from './cli-io.js';

/** The arguments of `kvmod doctor`. */
export interface DoctorArgs {
    /** `redis://host:port`. */
    redis: string;
    /** The target whose engine checks the server (default: the default target). */
    target?: string;
    /** `text` (default) or `json`. */
    format?: 'text' | 'json';
    /** Seconds to wait for the connection and each reply (default: the engine's, 30 s). */
    timeout?: number;
}

/** What `kvmod doctor --format json` prints. */
export interface DoctorReport {
    /** The server, its password hidden. */
    server: string;
    /** The server's version (`7.0.15`). */
    redisVersion: string;
    /** The search module's version as MODULE LIST gives it (`10205`), 0 when it could only be probed. */
    searchVersion: number;
    /** The dialect to generate for. */
    dialect: string;
    /** What to fix on the server (a query timeout that cuts answers silently), a sentence each. */
    warnings: string[];
}

/** Checks the server and prints what it runs; resolves to 0 (a missing module or server is a KvmodError). */
export async function runDoctor(args: DoctorArgs, io: CliIo = processIo): Promise<number> {
    const engine = await engineOf(getGenerationTarget(args.target ?? DEFAULT_TARGET));
    const { probe, advice } = await engine.use(async (typed) => {
        const session = await typed.connect({ urls: [args.redis], timeoutSeconds: args.timeout });
        await session.close();
        return { probe: session.probe, advice: typed.advice(session.probe) };
    });
    const report: DoctorReport = {
        server: probe.server,
        redisVersion: probe.serverVersion,
        searchVersion: probe.module?.version ?? 0,
        dialect: probe.variant,
        warnings: probe.warnings ?? [],
    };
    if (args.format === 'json') {
        io.out(JSON.stringify(report, null, 2) + '\n');
        return 0;
    }
    io.out(`server: ${report.server} (${probe.product} ${report.redisVersion})\n`);
    if (probe.module) {
        io.out(`search module: ${moduleLabel(probe.module)} -> dialect ${probe.variant}\n`);
    } else io.out(`engine: ${probe.variant}\n`);
    io.out(`${advice}\n`);
    for (const warning of report.warnings) io.out(`warning: ${warning}\n`);
    return 0;
}

/** A probed module as people read it: `RediSearch 1.2.5`, or `RediSearch (version hidden)`. */
export function moduleLabel(module: NonNullable<EngineProbe['module']>): string {
    return module.version > 0 ? `${module.name} ${dotted(module.version)}` : `${module.name} (version hidden)`;
}

/** `10205` → `1.2.5`, as Redis modules number their versions. */
function dotted(version: number): string {
    return `${Math.floor(version / 10000)}.${Math.floor(version / 100) % 100}.${version % 100}`;
}
