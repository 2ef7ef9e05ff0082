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

    test('the write map of book-ratings: per attribute the rows and keys an update writes, per copy its count', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'kvmod-report-'));
        try {
            const pidm = 'examples/book-ratings/book-ratings.pidm';
            expect(await main(['generate', pidm, '--target', 'report', '-o', dir], memoryIo())).toBe(0);
            const report = await readFile(reportFile(dir, 'book_ratings', DEFAULT_DESIGN), 'utf8');
            const section = (from: string, to: string) => report.slice(report.indexOf(from), report.indexOf(to));
            // The Book's costs: a root attribute copied once per collection, times the Tags of a Book where a
            // collection binds Book.tags; a reference per target added or removed.
            expect(
                section(
                    '| attribute or reference | copies | rows per update of one Book',
                    '\n\n| attribute or reference | copied into',
                ),
            ).toBe(
                [
                    '| attribute or reference | copies | rows per update of one Book | keys written per update |',
                    '| --- | --- | --- | --- |',
                    '| isbn (identifier) | 6 | 3 + 2 × Tags per Book + Comments per Book | never updated: an identifier change is refused (`entity.identifier-change`) |',
                    '| title | 5 | 3 + 2 × Tags per Book | 1 entity hash + (3 + 2 × Tags per Book) rows |',
                    '| author | 4 | 2 + 2 × Tags per Book | 1 entity hash + (2 + 2 × Tags per Book) rows |',
                    '| rank | 3 | 2 + Tags per Book | 1 entity hash + (2 + Tags per Book) rows |',
                    '| price | 2 | 2 | 1 entity hash + 2 rows |',
                    '| link | 0 | 0 | 1 entity hash |',
                    '| published | 1 | 1 | 1 entity hash + 1 row |',
                    '| tags → Tag (reference) | 2 | 2 | per target added or removed: 1 entity hash + 1 reverse hash + 2 rows |',
                    '| comments → Comment (reference) | 1 | 1 | per target added or removed: 1 entity hash + 1 reverse hash + 1 row |',
                ].join('\n'),
            );
            // Tag.name is copied in two collections, one row per Book referencing the Tag; User.username two steps up.
            expect(section('### Tag', '### Comment')).toBe(
                [
                    '### Tag',
                    '',
                    '| attribute or reference | copies | rows per update of one Tag | keys written per update |',
                    '| --- | --- | --- | --- |',
                    '| name (identifier) | 2 | 2 × Books per Tag | never updated: an identifier change is refused (`entity.identifier-change`) |',
                    '| books → Book (reference) | 0 | 0 | per target added or removed: 1 entity hash + 1 reverse hash |',
                    '',
                    '| attribute or reference | copied into | roles | rows | which rows |',
                    '| --- | --- | --- | --- | --- |',
                    '| name (identifier) | `Q2_authorsOfTag.T_name` | filtered, key part | Books per Tag | 1 row per Book of the Tag (Book.tags reversed: [*]) |',
                    '| name (identifier) | `Q3_booksWithTag.T_name` | filtered, key part | Books per Tag | 1 row per Book of the Tag (Book.tags reversed: [*]) |',
                    '| books → Book (reference) | nothing |  | none | none |',
                    '',
                    '',
                ].join('\n'),
            );
            expect(section('| username (identifier) | 1 |', '\n| fullName | 0')).toBe(
                '| username (identifier) | 1 | Comments per User × Books per Comment | never updated: an identifier change is refused (`entity.identifier-change`) |',
            );
            // The entity store: an entity hash per instance, a reverse hash per referenced instance and reference.
            expect(report.split('\n').filter((line) => line.startsWith('| `kvmod:'))).toEqual([
                '| `kvmod:book_ratings:{Book:<isbn>}` | hash | the stored forms of isbn, title, author, rank, price, link, published, `>tags`, `>comments`, `_v` | one per Book |',
                '| `kvmod:book_ratings:{Tag:<name>}` | hash | the stored forms of name, `>books`, `_v` | one per Tag |',
                '| `kvmod:book_ratings:{Comment:<_id>}` | hash | the stored forms of _id, text, postedAt, `>writer`, `_v` | one per Comment |',
                '| `kvmod:book_ratings:{User:<username>}` | hash | the stored forms of username, fullName, joined, `_v` | one per User |',
                '| `kvmod:book_ratings:{Tag:<name>}:<Book.tags` | hash | the isbn of each Book whose tags names the Tag (value "") | one per Tag some Book.tags names |',
                '| `kvmod:book_ratings:{Comment:<_id>}:<Book.comments` | hash | the isbn of each Book whose comments names the Comment (value "") | one per Comment some Book.comments names |',
                '| `kvmod:book_ratings:{Book:<isbn>}:<Tag.books` | hash | the name of each Tag whose books names the Book (value "") | one per Book some Tag.books names |',
                '| `kvmod:book_ratings:{User:<username>}:<Comment.writer` | hash | the _id of each Comment whose writer names the User (value "") | one per User some Comment.writer names |',
            ]);
            expect(report).toContain('Memory, measured on Redis 7.0.15');
        } finally {
            await rm(dir, { recursive: true, force: true });
        }
    });

    test('design by cost: a write-heavy book rating site, the cost policy’s design beside the 80% rule’s with their costs', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'kvmod-report-'));
        try {
            const text = await readFile(join(repoRoot, 'examples/book-ratings/book-ratings.pidm'), 'utf8');
            const pidm = join(dir, 'books.pidm');
            await writeFile(
                pidm,
                text.slice(0, text.indexOf('\n// The workload')) +
                    '\nworkload {\n  query Q1_booksByRank 1\n  update Book.rank 100\n  update Book.title 20\n  create Book 10\n}\n',
            );
            // The report shows the comparison whatever policy made the design it describes (here the default, safe).
            expect(await main(['generate', pidm, '--target', 'report', '-o', dir], memoryIo())).toBe(0);
            const report = await readFile(reportFile(dir, 'books', DEFAULT_DESIGN), 'utf8');
            const section = (from: string, to: string) => report.slice(report.indexOf(from), report.indexOf(to));
            expect(section('| query | runs |', '| reference | targets per instance |')).toBe(
                [
                    '| query | runs |',
                    '| --- | ---: |',
                    '| Q1_booksByRank | 1 |',
                    ...['Q2_authorsOfTag', 'Q3_booksWithTag', 'Q4_commentsOfBook', 'Q5_booksAbovePrice'].map(
                        (query) => `| ${query} | 1 (default) |`,
                    ),
                    ...['Q6_booksOfAuthor', 'Q7_bargainsOrTopRanked'].map((query) => `| ${query} | 1 (default) |`),
                    '',
                    '| entity | instances | creates | updates (all) | deletes | updates of one attribute or reference |',
                    '| --- | ---: | ---: | ---: | ---: | --- |',
                    '| Book | 1,000 (default) | 10 | 0 | 0 | rank 100, title 20 |',
                    '| Tag | 1,000 (default) | 0 | 0 | 0 |  |',
                    '| Comment | 1,000 (default) | 0 | 0 | 0 |  |',
                    '| User | 1,000 (default) | 0 | 0 | 0 |  |',
                    '',
                    '',
                ].join('\n'),
            );
            // The figures are those of `transform --merge cost --explain`: 9999 against 23199. With 1,000 books (the
            // default count) Q1, Q5 and Q7 each scan every book; Q5 and Q6 stay apart (a merge would widen the rows
            // Q1 and Q7 scan), the 80% rule's Q1+Q3 makes Q1 scan 10 rows a book.
            expect(section('| | cost policy', 'Collections of the 80% rule')).toBe(
                [
                    '| | cost policy (`--merge cost`) | 80% rule (`--merge paper`) |',
                    '| --- | ---: | ---: |',
                    '| collections | 5 | 6 |',
                    '| reads | 3,245 | 15,835 |',
                    '| writes | 6,754 | 7,364 |',
                    '| time (reads + writes) | 9,999 | 23,199 |',
                    '| memory | 125,250 | 174,500 |',
                    '',
                    "The designs differ: the cost policy's time is 56.9% below the 80% rule's.",
                    '',
                    'Collections of the cost policy (`--merge cost`):',
                    '',
                    '| collection | queries | reads | writes | time | memory |',
                    '| --- | --- | ---: | ---: | ---: | ---: |',
                    '| Q1_booksByRank_Q7_bargainsOrTopRanked | Q1_booksByRank, Q7_bargainsOrTopRanked | 2,420 | 420 | 2,840 | 6,250 |',
                    '| Q2_authorsOfTag_Q3_booksWithTag | Q2_authorsOfTag, Q3_booksWithTag | 140 | 3,720 | 3,860 | 60,250 |',
                    '| Q4_commentsOfBook | Q4_commentsOfBook | 60 | 500 | 560 | 50,250 |',
                    '| Q5_booksAbovePrice | Q5_booksAbovePrice | 610 | 42 | 652 | 3,250 |',
                    '| Q6_booksOfAuthor | Q6_booksOfAuthor | 15 | 122 | 137 | 5,250 |',
                    '| (entity operations, any design) | | 0 | 1,950 | 1,950 | 0 |',
                    '',
                    '',
                ].join('\n'),
            );
            expect(section('| Q1_booksByRank_Q3_booksWithTag |', '| Q2_authorsOfTag | Q2')).toBe(
                '| Q1_booksByRank_Q3_booksWithTag | Q1_booksByRank, Q3_booksWithTag | 14,090 | 3,820 | 17,910 | 70,250 |\n',
            );
            // The narrower collections with a lookup: priced as `--explain` prices them, not chosen.
            expect(report.slice(report.indexOf('Priced, not served by this target yet'))).toContain(
                [
                    'yet, so the policy never chooses it and only merges or splits collections.',
                    '',
                    '| collection | looks up | time now | time narrowed | reads narrowed | writes narrowed | memory narrowed |',
                    '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
                    '| Q2_authorsOfTag_Q3_booksWithTag | Book (author, title) | 3,860 | 3,580 | 180 | 3,400 | 40,250 |',
                    '| Q4_commentsOfBook | Comment (text) | 560 | 480 | 80 | 400 | 40,250 |',
                    '| Q5_booksAbovePrice | Book (title) | 652 | 442 | 422 | 20 | 2,250 |',
                    '| Q6_booksOfAuthor | Book (title, rank) | 137 | 56 | 26 | 30 | 3,250 |',
                    '',
                ].join('\n'),
            );
            expect(report).not.toContain('The model declares no `workload` block');
        } finally {
            await rm(dir, { recursive: true, force: true });
        }
    });

    test('design by cost without a workload block: every figure a default, and the same design when both policies agree', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'kvmod-report-'));
        try {
            const text = await readFile(join(repoRoot, 'examples/book-ratings/book-ratings.pidm'), 'utf8');
            const pidm = join(dir, 'books.pidm');
            await writeFile(pidm, text.slice(0, text.indexOf('\n// The workload')) + '\n');
            expect(await main(['generate', pidm, '--target', 'report', '-o', dir], memoryIo())).toBe(0);
            const report = await readFile(reportFile(dir, 'books', DEFAULT_DESIGN), 'utf8');
            expect(report).toContain(
                'The model declares no `workload` block: every figure below is a default (docs/pidm-language.md, Workload).',
            );
            expect(report).toContain('| Book.tags | 10 (default) |');
            const airflights = await readFile(join(repoRoot, 'examples/airflights/report/redis/report.md'), 'utf8');
            expect(airflights).toContain('Both policies make the same collections under this workload.');
            expect(airflights).toContain('| time (reads + writes) | 6,562.3 | 6,562.3 |');
        } finally {
            await rm(dir, { recursive: true, force: true });
        }
    });

    test('a design with counter keys keeps its entities: the entity store section lists each collection row map', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'kvmod-report-'));
        try {
            const pidm = 'examples/book-ratings/book-ratings.pidm';
            expect(
                await main(['generate', pidm, '--target', 'report', '--key', 'counter', '-o', dir], memoryIo()),
            ).toBe(0);
            const report = await readFile(reportFile(dir, 'book_ratings', DEFAULT_DESIGN), 'utf8');
            const section = report.slice(report.indexOf('## Entity store'), report.indexOf('## Design by cost'));
            expect(section).not.toContain('None:');
            expect(section).toContain('| `kvmod:book_ratings:{Book:<isbn>}` | hash |');
            expect(
                section.match(/^\| `Q\w+_[0-9a-f]{6}:rows` \| hash \| the row map of `Q\w+` \(counter keys\)/gm),
            ).toHaveLength(6);
            expect(section).toMatch(
                /^\| `Q3_booksWithTag_[0-9a-f]{6}:rows` \| hash \| the row map of `Q3_booksWithTag` \(counter keys\): per row, the stored identifiers of its objects \(root first, `:`-joined\) → its number; ≈50–90 bytes per row \(Redis 7\.0: 51 for one id, 74–87 for two or three\) \| one \|$/m,
            );
        } finally {
            await rm(dir, { recursive: true, force: true });
        }
    });

    test('the write map and the cost need the source PIDM: from a .kvlm without it, the sections say so', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'kvmod-report-'));
        try {
            const kvlm = join(dir, 'book-ratings.kvlm');
            await writeFile(kvlm, await readFile(join(repoRoot, 'examples/book-ratings/book-ratings.kvlm'), 'utf8'));
            expect(await main(['generate', kvlm, '--target', 'report', '-o', dir], memoryIo())).toBe(0);
            const report = await readFile(reportFile(dir, 'book_ratings', DEFAULT_DESIGN), 'utf8');
            expect(report.slice(report.indexOf('## Write map'))).toBe(
                '## Write map\n\nNot known: the source PIDM model was not available (generate the report from the `.pidm` to see which collections\ncopy each attribute).\n\n' +
                    '## Entity store\n\nNot known: the source PIDM model was not available (the entity store needs the entities: generate the report from\nthe `.pidm`).\n\n' +
                    '## Design by cost\n\nNot known: the source PIDM model was not available (the workload is in the PIDM: generate the report from the\n`.pidm`).\n\n',
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
