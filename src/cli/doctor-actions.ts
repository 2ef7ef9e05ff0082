/**
 * The action of `kvmod doctor`: connects, reads the Redis version (INFO server) and the search module's
 * (MODULE LIST, or probes where that is denied), and says which dialect to generate for. Loaded by the
 * command's handler only when it runs (it pulls in node-redis).
 */
import type { RedisDialect } from '../generation/redis/redis-dialects.js';
import { connectRedis, detectDialect } from '../runtime/redis-link.js';
import { processIo, type CliIo } from './cli-io.js';

/** The arguments of `kvmod doctor`. */
export interface DoctorArgs {
    /** `redis://host:port`. */
    redis: string;
    /** `text` (default) or `json`. */
    format?: 'text' | 'json';
}

/** What `kvmod doctor --format json` prints. */
export interface DoctorReport {
    /** The server, its password hidden. */
    server: string;
    redisVersion: string;
    /** The search module's version as MODULE LIST gives it (`10205`), 0 when it could only be probed. */
    searchVersion: number;
    dialect: RedisDialect;
}

/** Checks the server and prints what it runs; resolves to 0 (a missing module or server is a KvmodError). */
export async function runDoctor(args: DoctorArgs, io: CliIo = processIo): Promise<number> {
    const link = await connectRedis(args.redis);
    let report: DoctorReport;
    try {
        const info = String(await link.send(['INFO', 'server']));
        const redisVersion = /^redis_version:(.+)$/m.exec(info)?.[1]?.trim() ?? 'unknown';
        const { dialect, version } = await detectDialect(link);
        report = { server: link.url, redisVersion, searchVersion: version, dialect };
    } finally {
        await link.close();
    }
    if (args.format === 'json') {
        io.out(JSON.stringify(report, null, 2) + '\n');
        return 0;
    }
    const module =
        report.searchVersion > 0 ? `RediSearch ${dotted(report.searchVersion)}` : 'RediSearch (version hidden)';
    io.out(`server: ${report.server} (Redis ${report.redisVersion})\n`);
    io.out(`search module: ${module} -> dialect ${report.dialect}\n`);
    io.out(
        report.dialect === 'redisearch1'
            ? 'generate with: kvmod generate <model> --dialect redisearch1 (scripts for 2.x would create indexes that never index a row here)\n'
            : 'generate with: kvmod generate <model> (the default dialect, redisearch2)\n',
    );
    return 0;
}

/** `10205` → `1.2.5`, as RediSearch numbers its versions. */
function dotted(version: number): string {
    return `${Math.floor(version / 10000)}.${Math.floor(version / 100) % 100}.${version % 100}`;
}
