#!/usr/bin/env node
// `npm run bench:validate [-- --json] [--only big|many|files] [--repeat 3] [--editor]`
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
import './polyfills.mjs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
process.chdir(root);
const { URI } = await import('langium');
const { createKvmodServices } = await import('../out/src/language/kvmod-module.js');

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
if (!json) console.log(editor ? "the language server's services" : "the command line's services (use --editor for the language server's)");
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
if (json) console.log(JSON.stringify(results, null, 2));
