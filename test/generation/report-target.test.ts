/**
 * The report target: a design report in Markdown whose every Mermaid diagram Mermaid's own parser accepts
 * (run headless in Node), with a golden report per example (drift-checked by scripts/check-generated.sh).
 */
import { describe, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryIo } from '../../src/cli/cli-io.js';
import { main } from '../../src/cli/main.js';
import { REPORT_DESIGNS } from '../../src/generation/report/report-designs.js';
import { repoRoot } from './generation-fixtures.js';

/** Where `generate --target report` writes the report of a design below the output root (its output folder). */
const [DEFAULT_DESIGN, CORE_DESIGN] = REPORT_DESIGNS;
const reportFile = (root: string, database: string, design: string) =>
    join(root, database, 'report', design, 'report.md');

const EXAMPLES = readdirSync(join(repoRoot, 'examples')).sort();

/** The ```mermaid blocks of a Markdown text. */
function mermaidBlocks(markdown: string): string[] {
    return [...markdown.matchAll(/^```mermaid\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
}

/** Mermaid's verdict on each diagram: null when accepted, the parser's message otherwise. */
function parseWithMermaid(diagrams: string[]): (string | null)[] {
    const run = spawnSync(process.execPath, [join(repoRoot, 'test/support/mermaid-parse.mjs')], {
        input: JSON.stringify(diagrams),
        encoding: 'utf8',
        timeout: 120_000,
    });
    if (run.status !== 0) throw new Error(`mermaid-parse.mjs failed: ${run.stderr}`);
    return JSON.parse(run.stdout) as (string | null)[];
}

describe('kvmod generate --target report', () => {
    test('every diagram of every example report is accepted by Mermaid, and a broken one is not', () => {
        const diagrams = EXAMPLES.flatMap((name) =>
            mermaidBlocks(readFileSync(join(repoRoot, 'examples', name, 'report', 'redis', 'report.md'), 'utf8')),
        );
        expect(diagrams.length).toBeGreaterThan(EXAMPLES.length * 3);
        const verdicts = parseWithMermaid([...diagrams, 'erDiagram\n    A }}--|| B : "x"\n']);
        expect(verdicts.slice(0, diagrams.length)).toEqual(diagrams.map(() => null));
        expect(verdicts.at(-1)).toMatch(/Parse error/);
    }, 180_000);

    test('writes <out>/<database>/report/redis/report.md equal to the golden; a target option it does not declare is a usage error', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'kvmod-report-'));
        try {
            const io = memoryIo();
            expect(
                await main(['generate', 'examples/airflights/airflights.pidm', '--target', 'report', '-o', dir], io),
            ).toBe(0);
            expect(await readFile(reportFile(dir, 'airflights', DEFAULT_DESIGN), 'utf8')).toBe(
                await readFile(join(repoRoot, 'examples/airflights/report/redis/report.md'), 'utf8'),
            );
            const wrong = memoryIo();
            expect(
                await main(
                    [
                        'generate',
                        'examples/airflights/airflights.pidm',
                        '--target',
                        'report',
                        '--limit',
                        '5',
                        '-o',
                        dir,
                    ],
                    wrong,
                ),
            ).toBe(2);
            expect(wrong.stderr).toContain(
                'target report has no option --limit (its options: --design, --dialect, --db-prefix)',
            );
            const load = memoryIo();
            expect(
                await main(
                    [
                        'load',
                        'examples/airflights/airflights.pidm',
                        '--target',
                        'report',
                        '--data',
                        'd.json',
                        '--redis',
                        'redis://127.0.0.1:1',
                    ],
                    load,
                ),
            ).toBe(2);
            expect(load.stderr).toContain('Choices: "redis"');
        } finally {
            await rm(dir, { recursive: true, force: true });
        }
    });

    test('--design redis-core: the report equals its golden, and its calls are the ones the redis-core target writes', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'kvmod-report-'));
        try {
            const model = 'examples/book-ratings/book-ratings.pidm';
            expect(
                await main(['generate', model, '--target', 'report', '--design', 'redis-core', '-o', dir], memoryIo()),
            ).toBe(0);
            expect(await main(['generate', model, '--target', 'redis-core', '-o', dir], memoryIo())).toBe(0);
            const markdown = await readFile(reportFile(dir, 'book_ratings', CORE_DESIGN), 'utf8');
            expect(markdown).toBe(
                await readFile(reportFile(join(repoRoot, 'examples'), 'book-ratings', CORE_DESIGN), 'utf8'),
            );
            const calls = (await readFile(join(dir, 'book_ratings', 'redis-core', 'calls.redis'), 'utf8')).split('\n');
            const commands = [...markdown.matchAll(/^(FCALL_RO .*)$/gm)].map((match) => match[1]);
            expect(commands).toHaveLength(14);
            for (const command of commands) expect([command, calls.includes(command)]).toEqual([command, true]);
            // No RediSearch in it: no index, no FT command, no storage signature.
            expect(markdown).not.toMatch(/FT\.SEARCH|FT\.AGGREGATE|_[0-9a-f]{6}:/);
            // The config's `design` chooses it too.
            const config = join(dir, 'kvmod.config.json');
            await writeFile(config, '{ "design": "redis-core" }\n');
            const configured = join(dir, 'configured');
            expect(
                await main(['generate', model, '--target', 'report', '--config', config, '-o', configured], memoryIo()),
            ).toBe(0);
            expect(await readFile(reportFile(configured, 'book_ratings', CORE_DESIGN), 'utf8')).toBe(markdown);
            const wrong = memoryIo();
            expect(await main(['generate', model, '--target', 'report', '--design', 'core', '-o', dir], wrong)).toBe(2);
            expect(wrong.stderr).toContain('"redis-core"');
        } finally {
            await rm(dir, { recursive: true, force: true });
        }
    });

    test('the write map needs the source PIDM: from a .kvlm without it, the section says so', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'kvmod-report-'));
        try {
            const kvlm = join(dir, 'book-ratings.kvlm');
            await writeFile(kvlm, await readFile(join(repoRoot, 'examples/book-ratings/book-ratings.kvlm'), 'utf8'));
            expect(await main(['generate', kvlm, '--target', 'report', '-o', dir], memoryIo())).toBe(0);
            const report = await readFile(reportFile(dir, 'book_ratings', DEFAULT_DESIGN), 'utf8');
            expect(report.slice(report.indexOf('## Write map'))).toBe(
                '## Write map\n\nNot known: the source PIDM model was not available (generate the report from the `.pidm` to see which collections\ncopy each attribute).\n\n',
            );
        } finally {
            await rm(dir, { recursive: true, force: true });
        }
    });

    test('--dialect redisearch1 --db-prefix: the access paths and keys of the redis target’s design with those options', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'kvmod-report-'));
        try {
            const options = ['--dialect', 'redisearch1', '--db-prefix', '-o', dir];
            for (const target of ['report', 'redis'])
                expect(
                    await main(
                        ['generate', 'examples/airflights/airflights.pidm', '--target', target, ...options],
                        memoryIo(),
                    ),
                ).toBe(0);
            const report = await readFile(reportFile(dir, 'airflights', DEFAULT_DESIGN), 'utf8');
            const redis = join(dir, 'airflights', 'redis', 'redisearch1');
            const queries = (await readFile(join(redis, 'queries.redis'), 'utf8')).split('\n');
            const writes = await readFile(join(redis, 'writes.redis'), 'utf8');
            expect(report).toContain(
                'On Redis with RediSearch (RediSearch 1.2: the 1.x module on Redis 5–7, e.g. Debian 12), the redis target’s redisearch1 dialect with --db-prefix:'.replace(
                    '’',
                    "'",
                ),
            );
            // Each command shown is the one the 1.2 scripts send (through the index's pointer key, no PARAMS).
            const commands = [...report.matchAll(/^```redis\n(.*)\n```$/gm)].map((match) => match[1]);
            expect(commands).toHaveLength(9);
            for (const command of commands) {
                expect(command).not.toMatch(/PARAMS|DIALECT/);
                expect([command, queries.includes(command)]).toEqual([command, true]);
            }
            // Each key as the rows are stored: the prefixed physical index (with its storage signature), then the parts.
            const keys = [...report.matchAll(/^- Key: .*: `([^`:]+):[^`]*`\.$/gm)].map((match) => match[1]);
            expect(keys).toHaveLength(8);
            for (const prefix of keys) {
                expect(prefix).toMatch(/^airflights_Q\d.*_[0-9a-f]{6}$/);
                expect([prefix, writes.includes(` ${prefix}:$`)]).toEqual([prefix, true]);
            }
        } finally {
            await rm(dir, { recursive: true, force: true });
        }
    });
});
