/**
 * The kvmod commands as the VS Code client sends them: `workspace/executeCommand` requests to the bundled
 * server over stdio. They run the same pipeline as the command line on the files of the model.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
    KvmodCommandResult,
    KvmodExplainResult,
    KvmodTargetInfo,
} from '../../src/language/lsp/kvmod-command-handler.js';
import { buildBundles, fileUri, LspSession, repoRoot } from './lsp-test-client.js';
import { generationTargets } from '../../src/generation/generation-targets.js';
import { redisTargetOptions } from '../../src/generation/redis/redis-target.js';

let dir: string;
let session: LspSession;
let modelUri: string;

function execute<T>(command: string, ...args: unknown[]): Promise<T> {
    return session.request<T>('workspace/executeCommand', { command, arguments: args });
}

beforeAll(async () => {
    buildBundles();
    dir = mkdtempSync(join(tmpdir(), 'kvmod-commands-'));
    cpSync(join(repoRoot, 'examples/airflights/airflights.pidm'), join(dir, 'airflights.pidm'));
    modelUri = fileUri(join(dir, 'airflights.pidm'));
    session = await LspSession.start();
    await session.open(modelUri, readFileSync(join(dir, 'airflights.pidm'), 'utf8'));
});

afterAll(async () => {
    await session?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('kvmod commands over LSP', () => {
    it('"Transform to KVLM" writes the .kvlm next to the model and returns its URI', async () => {
        const result = await execute<KvmodCommandResult>('kvmod.server.transform', { uri: modelUri, settings: {} });
        expect(result.ok).toBe(true);
        expect(result.written).toEqual([fileUri(join(dir, 'airflights.kvlm'))]);
        const kvlm = readFileSync(join(dir, 'airflights.kvlm'), 'utf8');
        expect(kvlm.startsWith('database airflights\n')).toBe(true);
        expect(kvlm).toContain('collection Q3_passengersOfGivenFlight {');
        expect(result.messages.at(-1)).toMatch(/^wrote .*airflights\.kvlm \(\d+ collection\(s\) from 1 file\(s\)\)$/);
    });

    it('"Transform to KVLM" honours the merge policy setting', async () => {
        const none = await execute<KvmodCommandResult>('kvmod.server.transform', {
            uri: modelUri,
            settings: { policy: 'none' },
        });
        expect(none.ok).toBe(true);
        const kvlm = readFileSync(join(dir, 'airflights.kvlm'), 'utf8');
        expect(kvlm).toContain('merge none threshold 0.8');
        expect(kvlm.match(/^\s*collection /gm)).toHaveLength(9);
    });

    it('"Transform to KVLM" reports the errors of an invalid model and writes nothing', async () => {
        const broken = join(dir, 'broken.pidm');
        writeFileSync(broken, 'entity A { id code }\nquery Q: SELECT nickname FROM A\n');
        await session.open(fileUri(broken), readFileSync(broken, 'utf8'));
        const result = await execute<KvmodCommandResult>('kvmod.server.transform', {
            uri: fileUri(broken),
            settings: {},
        });
        expect(result.ok).toBe(false);
        expect(result.written).toEqual([]);
        expect(result.messages.some((line) => /broken\.pidm:2:\d+: error: .*nickname/.test(line))).toBe(true);
        expect(existsSync(join(dir, 'broken.kvlm'))).toBe(false);
    });

    it('"Explain merges" returns the merge decisions as the CLI prints them', async () => {
        const result = await execute<KvmodExplainResult>('kvmod.server.explainMerges', {
            uri: modelUri,
            settings: { policy: 'safe', threshold: 0.8 },
        });
        expect(result.ok).toBe(true);
        const lines = result.text.trimEnd().split('\n');
        expect(lines[0]).toMatch(/^Merge decisions \(policy safe, threshold 0\.8; /);
        expect(lines[1]).toMatch(/^left +right +common +n1 +n2 +common\/n1 +common\/n2 +decision$/);
        expect(result.text).toContain('merged -> Q4_passengersDepartingGivenCountry_Q5_passengersDepartingGivenPeriod');
    });

    it('"Explain merges" says that merging is off under the none policy', async () => {
        const result = await execute<KvmodExplainResult>('kvmod.server.explainMerges', {
            uri: modelUri,
            settings: { policy: 'none' },
        });
        expect(result.text.split('\n')[1]).toBe('Merging is off (--merge none): one collection per query.');
    });

    it('reports a bad setting as a failed command, not a crash', async () => {
        const result = await execute<KvmodCommandResult>('kvmod.server.transform', {
            uri: modelUri,
            settings: { threshold: 7 },
        });
        expect(result.ok).toBe(false);
        expect(result.messages).toHaveLength(1);
        expect(result.messages[0]).toMatch(/^kvmod: .*threshold/);
    });

    it('lists the generation targets with their declared options for the settings and the quick pick', async () => {
        const targets = await execute<KvmodTargetInfo[]>('kvmod.server.listTargets');
        expect(targets.map((target) => target.name)).toEqual([...generationTargets.keys()]);
        const redis = targets.find((target) => target.name === 'redis')!;
        expect(redis.options.find((option) => option.name === 'dialect')).toEqual({
            name: 'dialect',
            type: 'choice',
            choices: ['redisearch2', 'redisearch1'],
            default: 'redisearch2',
            description: redisTargetOptions.dialect.description,
            outputFolder: true,
        });
        expect(redis.options.map((option) => option.name)).toEqual(Object.keys(redisTargetOptions));
        // The quick pick offers one item per output folder, each with every option that decides the folder.
        expect(redis.variants).toEqual([
            { label: 'redis: redisearch2', options: { dialect: 'redisearch2' } },
            { label: 'redis: redisearch1', options: { dialect: 'redisearch1' } },
        ]);
        // The client's folders: one per dialect of the RediSearch design, then one per other design it can run,
        // each item setting both the design and the dialect (so picking a dialect resets a configured other design).
        const client = targets.find((target) =>
            target.variants.some(
                (variant) => variant.options.design !== undefined && variant.options.dialect === 'redisearch1',
            ),
        )!;
        const others = client.options
            .find((option) => option.name === 'design')!
            .choices!.filter((design) => design !== redis.name);
        expect(others.length).toBeGreaterThan(0);
        expect(client.variants.map((variant) => variant.options)).toEqual([
            { design: redis.name, dialect: 'redisearch2' },
            { design: redis.name, dialect: 'redisearch1' },
            ...others.map((design) => ({ design, dialect: 'redisearch2' })),
        ]);
        expect(client.variants.slice(-others.length).map((variant) => variant.label)).toEqual(
            others.map((design) => `${client.name}: ${design}`),
        );
    });

    it('"Generate…" writes the target\'s files into the output folder through the pipeline', async () => {
        const targets = await execute<KvmodTargetInfo[]>('kvmod.server.listTargets');
        const redis = targets.find((target) => target.name === 'redis')!;
        const dialect = redis.options.find((option) => option.outputFolder)!.choices!.at(-1)!;
        const result = await execute<KvmodCommandResult>('kvmod.server.generate', {
            uri: modelUri,
            settings: { target: 'redis', targetOptions: { dialect, dbPrefix: true }, outputFolder: 'out-gen' },
        });
        expect(result.ok).toBe(true);
        expect(result.written.length).toBeGreaterThan(0);
        const folder = join(dir, 'out-gen', 'airflights', 'redis', dialect);
        for (const uri of result.written) expect(uri.startsWith(fileUri(folder))).toBe(true);
        expect(readFileSync(join(folder, 'indexes.redis'), 'utf8')).toContain('airflights_');
        expect(readdirSync(join(dir, 'out-gen'), { recursive: true }).length).toBeGreaterThan(0);
    });

    it("reads the kvmod.config.json above the model: its settings win over the editor's", async () => {
        const config = join(dir, 'kvmod.config.json');
        writeFileSync(config, '{ "output": "from-config", "merge": "none" }\n');
        try {
            const result = await execute<KvmodCommandResult>('kvmod.server.generate', {
                uri: modelUri,
                settings: { target: 'redis', outputFolder: 'out-gen', policy: 'safe' },
            });
            expect(result.messages.filter((m) => m.startsWith('kvmod:'))).toEqual([]);
            expect(result.ok).toBe(true);
            for (const uri of result.written) expect(uri.startsWith(fileUri(join(dir, 'from-config')))).toBe(true);
            expect(readFileSync(join(dir, 'airflights.kvlm'), 'utf8')).toContain('merge none threshold 0.8');
            writeFileSync(config, '{ "merge": "fast" }\n');
            const refused = await execute<KvmodCommandResult>('kvmod.server.transform', {
                uri: modelUri,
                settings: {},
            });
            expect(refused.ok).toBe(false);
            expect(refused.messages).toEqual([
                expect.stringMatching(
                    /^kvmod: .*kvmod\.config\.json:1:12: 'merge' must be one of "safe", "paper", "none", "cost"$/,
                ),
            ]);
        } finally {
            rmSync(config);
        }
    });

    it('reads a kvmod.config.ts the same way (the bundled server runs TypeScript through jiti)', async () => {
        const config = join(dir, 'kvmod.config.ts');
        writeFileSync(config, "const output: string = 'from-ts-config';\nexport default { output };\n");
        try {
            const result = await execute<KvmodCommandResult>('kvmod.server.generate', {
                uri: modelUri,
                settings: { target: 'redis', outputFolder: 'out-gen' },
            });
            expect(result.messages.filter((m) => m.startsWith('kvmod:'))).toEqual([]);
            expect(result.ok).toBe(true);
            for (const uri of result.written) expect(uri.startsWith(fileUri(join(dir, 'from-ts-config')))).toBe(true);
        } finally {
            rmSync(config);
        }
    });

    it('dispatches Load and Verify to the runtime actions (tested against Redis in server-runtime-actions.test.ts)', async () => {
        for (const command of ['kvmod.server.load', 'kvmod.server.verify']) {
            const result = await execute<KvmodCommandResult>(command, { uri: modelUri, settings: {} });
            expect(result.ok).toBe(false);
            expect(result.messages).toEqual([expect.stringMatching(/^kvmod: no Redis server is configured: /)]);
        }
    });

    it('refuses a command without a model URI', async () => {
        await expect(execute('kvmod.server.transform', {})).rejects.toThrow(
            'kvmod commands take one argument { uri, settings }.',
        );
    });
});
