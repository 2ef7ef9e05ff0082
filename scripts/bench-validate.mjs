#!/usr/bin/env node
// `npm run bench:validate [-- --json] [--only big|many|files|entities] [--repeat 3] [--editor]`
//
// Measures how PIDM validation scales, in-process against the compiled code in `out/` (`npm run build:ts`
// first), with the services `kvmod validate` uses (lean CST, compact references), or with `--editor` those
// of the language server. Models are generated in memory:
//   big    one query with N projections (aliases, INCLUDE aliases, implicit includes, WHERE, ORDER BY)
//   many   N small queries over 50 entities, in one file
//   files  N small queries over 50 entities, spread over 100 files (the workspace-wide checks)
// Each case is parsed and linked first (timed apart), then validated; the ratios divide a case's times by
// those of the smallest size of its family measured in the same run, next to the size ratio, so linear
// scaling reads as "time ratio ≈ size ratio". Each case runs `--repeat` times; the fastest validation counts.
//
//   entities  N entities, each with a `[1]` reference to the next and two `[*]` references to entities drawn at
//             random, read by N/4 queries of four entities each, written to a file and checked by the real
//             command, `node bin/kvmod.js validate FILE`, once per size: its wall time and CPU time (user +
//             system, which a busy machine inflates less). The same file by hand:
//               node scripts/pidm-grid.mjs --entities N --span 4 --queries N/4 --fields 4 --attributes 3 \
//                   --references 2 --out entities.pidm && node bin/kvmod.js validate entities.pidm
import './polyfills.mjs';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
process.chdir(root);
const { URI } = await import('langium');
const { createKvmodServices } = await import('../out/src/language/kvmod-module.js');
const { generateGridPidm } = await import('../out/src/testing/random-pidm.js');
const { pidmChunks } = await import('../out/src/language/pidm/pidm-printer.js');

const args = process.argv.slice(2);
const json = args.includes('--json');
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const repeat = args.includes('--repeat') ? Number(args[args.indexOf('--repeat') + 1]) : 3;
const editor = args.includes('--editor');

/** Entities shared by the `big` family: one multi-valued and one nested optional reference. */
const BIG_ENTITIES = `entity E {
  id k unique
  a text
  n int
  ref F[1] f
  ref G[*] gs
}
entity F {
  id fk
  b text
  ref H[0..1] h
}
entity G {
  id gk
  c int
}
entity H {
  id hk
  d text
}
`;

/** One query selecting `n` attributes, through the FROM entity, INCLUDE aliases and an implicit include. */
function bigQuery(n) {
    const forms = ['a', 'k', 'f.b', 'FH.d', 'GG.c', 'E.n', 'GG.gk', 'f.fk'];
    const projections = [];
    for (let i = 0; i < n; i++) {
        const path = forms[i % forms.length];
        projections.push(i % 2 === 0 ? `${path} AS p${i}` : path);
    }
    return [
        {
            path: 'big.pidm',
            text: `${BIG_ENTITIES}query Q:
SELECT ${projections.join(',\n  ')}
FROM E
INCLUDE E.gs AS GG, E.f.h AS FH
WHERE n = 1 and GG.c > 2 and FH.d = "?"
ORDER BY a ASC, GG.c DESC, k ASC
`,
        },
    ];
}

/** Fifty entities in a ring: each has an id, three attributes, a single- and a multi-valued reference. */
function ringEntities(count = 50) {
    const lines = [];
    for (let i = 0; i < count; i++) {
        const next = (i + 1) % count;
        lines.push(`entity E${i} {
  id k${i} unique
  name text
  size int
  day date
  ref E${next}[1] one
  ref E${next}[*] many
}`);
    }
    return lines.join('\n');
}

/** A small query over entity `i % 50` with an INCLUDE, an implicit include, WHERE and ORDER BY. */
function smallQuery(i, entities = 50) {
    const e = i % entities;
    const n = (e + 1) % entities;
    return `query Q${i}:
SELECT k${e}, name, size, M.k${n}, M.name, one.size AS s
FROM E${e}
INCLUDE E${e}.many AS M
WHERE size > 3 and M.day = "2024-01-01"
ORDER BY name ASC, M.size DESC`;
}

/** `n` small queries in the same file as their entities. */
function manyQueries(n) {
    const queries = [];
    for (let i = 0; i < n; i++) queries.push(smallQuery(i));
    return [{ path: 'many.pidm', text: `${ringEntities()}\n${queries.join('\n\n')}\n` }];
}

/** `n` small queries spread over 100 files; the entities live in the first. */
function queriesInFiles(n, fileCount = 100) {
    const files = [{ path: 'files/entities.pidm', text: `${ringEntities()}\n` }];
    const perFile = Math.ceil(n / fileCount);
    for (let f = 0; f < fileCount; f++) {
        const queries = [];
        for (let i = f * perFile; i < Math.min(n, (f + 1) * perFile); i++) queries.push(smallQuery(i));
        files.push({ path: `files/q${f}.pidm`, text: `${queries.join('\n\n')}\n` });
    }
    return files;
}

const FAMILIES = [
    { name: 'big', unit: 'projections', sizes: [10_000, 50_000, 100_000], make: bigQuery },
    { name: 'many', unit: 'queries', sizes: [1_000, 5_000, 10_000], make: manyQueries },
    { name: 'files', unit: 'queries', sizes: [1_000, 5_000, 10_000], make: queriesInFiles },
];

/** The `entities` family's sizes, checked by the command line. */
const ENTITY_COUNTS = [5_000, 10_000, 20_000, 40_000];

/** Writes the `entities` model of `count` entities to `path` (as `scripts/pidm-grid.mjs` would). */
async function writeEntitiesModel(count, path) {
    const model = generateGridPidm({
        queries: Math.ceil(count / 4),
        fieldsPerQuery: 4,
        seed: 2024,
        entities: count,
        attributesPerEntity: 3,
        span: 4,
        referencesPerEntity: 2,
    });
    const stream = createWriteStream(path);
    for (const chunk of pidmChunks(model)) {
        if (!stream.write(chunk)) await once(stream, 'drain');
    }
    stream.end();
    await once(stream, 'finish');
}

/**
 * Makes every node process of the command (bin/kvmod.js may start a second one with more memory) add its CPU time to
 * `cpuFile` when it exits: a child's usage is not reported to its parent.
 */
function cpuProbe(folder, cpuFile) {
    const probe = join(folder, 'cpu-probe.mjs');
    writeFileSync(
        probe,
        `import { appendFileSync } from 'node:fs';\n` +
            `process.on('exit', () => { const u = process.cpuUsage(); ` +
            `appendFileSync(${JSON.stringify(cpuFile)}, String((u.user + u.system) / 1000) + '\\n'); });\n`,
    );
    return probe;
}

/** Runs `node bin/kvmod.js validate path`; its wall and CPU times and its summary line. */
async function runValidate(path, folder) {
    const cpuFile = join(folder, 'cpu');
    rmSync(cpuFile, { force: true });
    const started = performance.now();
    const child = spawn(
        process.execPath,
        [`--import=${cpuProbe(folder, cpuFile)}`, join(root, 'bin/kvmod.js'), 'validate', path],
        {
            stdio: ['ignore', 'pipe', 'pipe'],
        },
    );
    let output = '';
    child.stdout.on('data', (data) => (output += data));
    child.stderr.on('data', (data) => (output += data));
    const [code] = await once(child, 'exit');
    const wall = performance.now() - started;
    if (code !== 0) throw new Error(`kvmod validate ${path} exited ${code}:\n${output.slice(-2000)}`);
    const cpu = readFileSync(cpuFile, 'utf8')
        .trim()
        .split('\n')
        .reduce((sum, line) => sum + Number(line), 0);
    return { wall, cpu, summary: output.trim().split('\n').at(-1) };
}

/** Parses and links the files as one workspace, then validates every document; returns the timings. */
async function measure(files) {
    const services = createKvmodServices({}, undefined, undefined, { batch: !editor });
    const documents = services.shared.workspace.LangiumDocuments;
    const factory = services.shared.workspace.LangiumDocumentFactory;
    const t0 = performance.now();
    const docs = files.map((file) => {
        const document = factory.fromString(file.text, URI.file(`/bench/${file.path}`));
        documents.addDocument(document);
        return document;
    });
    await services.shared.workspace.DocumentBuilder.build(docs, { validation: false });
    const t1 = performance.now();
    let diagnostics = 0;
    for (const document of docs) {
        const validator = services.shared.ServiceRegistry.getServices(document.uri).validation.DocumentValidator;
        diagnostics += (await validator.validateDocument(document)).length;
    }
    const t2 = performance.now();
    return { build: t1 - t0, validate: t2 - t1, diagnostics };
}

const results = [];
if (!json)
    console.log(
        editor
            ? "the language server's services"
            : "the command line's services (use --editor for the language server's)",
    );
for (const family of FAMILIES) {
    if (only && family.name !== only) continue;
    let baseline;
    for (const size of family.sizes) {
        const files = family.make(size);
        let best;
        for (let r = 0; r < repeat; r++) {
            const run = await measure(files);
            if (!best || run.validate < best.validate) best = run;
        }
        baseline ??= { size, build: best.build, validate: best.validate };
        const row = {
            case: `${family.name} ${size} ${family.unit}`,
            buildMs: Math.round(best.build),
            validateMs: Math.round(best.validate),
            diagnostics: best.diagnostics,
            sizeRatio: size / baseline.size,
            timeRatio: Number((best.validate / baseline.validate).toFixed(2)),
            buildRatio: Number((best.build / baseline.build).toFixed(2)),
        };
        results.push(row);
        if (!json) {
            console.log(
                `${row.case.padEnd(26)} parse+link ${String(row.buildMs).padStart(6)} ms   validate ${String(row.validateMs).padStart(6)} ms` +
                    `   ${String(row.diagnostics).padStart(5)} diagnostics   size x${row.sizeRatio}  validate x${row.timeRatio}  parse+link x${row.buildRatio}`,
            );
        }
    }
}
if (!only || only === 'entities') {
    const folder = mkdtempSync(join(tmpdir(), 'kvmod-bench-validate-'));
    try {
        let baseline;
        for (const count of ENTITY_COUNTS) {
            const path = join(folder, `entities-${count}.pidm`);
            await writeEntitiesModel(count, path);
            const run = await runValidate(path, folder);
            baseline ??= { count, ...run };
            const row = {
                case: `entities ${count} (kvmod validate)`,
                wallMs: Math.round(run.wall),
                cpuMs: Math.round(run.cpu),
                summary: run.summary,
                sizeRatio: count / baseline.count,
                cpuRatio: Number((run.cpu / baseline.cpu).toFixed(2)),
            };
            results.push(row);
            if (!json) {
                console.log(
                    `${row.case.padEnd(34)} wall ${String(row.wallMs).padStart(7)} ms   cpu ${String(row.cpuMs).padStart(7)} ms` +
                        `   size x${row.sizeRatio}  cpu x${row.cpuRatio}   (${row.summary})`,
                );
            }
        }
    } finally {
        rmSync(folder, { recursive: true, force: true });
    }
}
if (json) console.log(JSON.stringify(results, null, 2));
