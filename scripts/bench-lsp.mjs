// Diagnostics latency of the bundled language server (dist/server.cjs) over stdio, as an editor feels it:
// the time from sending a didChange to receiving the publishDiagnostics for that document. A 5,000-line
// model is measured against a 500-line baseline in the same run, so the ratio says how latency scales on
// this machine. Not a test: it prints numbers. Run `npm run bench:lsp` (it builds the bundles first).
//
//   node scripts/bench-lsp.mjs [--lines 5000] [--baseline 500] [--edits 15]
import { spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { createMessageConnection, StreamMessageReader, StreamMessageWriter } = require('vscode-languageserver/node');
const root = fileURLToPath(new URL('..', import.meta.url));

function option(name, fallback) {
    const index = process.argv.indexOf(`--${name}`);
    return index > 0 ? Number(process.argv[index + 1]) : fallback;
}

/**
 * A PIDM model of about `lines` lines shaped like the airflights example: entities with an id, attributes
 * and references to the next entities, and queries that select, include, filter and sort through paths.
 * The queries refer to attributes spelled exactly, so the model is valid; `marker` is one attribute
 * spelling the edits toggle. Names start with `prefix`: documents stay in the server's workspace after
 * they are closed, so every model of a run needs its own names.
 */
function syntheticModel(lines, prefix) {
    const entityCount = Math.max(3, Math.round(lines / 48));
    const out = [];
    for (let e = 0; e < entityCount; e++) {
        out.push(`/** Entity number ${e}. */`, `entity ${prefix}E${e} {`, `  id code${e} unique`);
        for (let a = 0; a < 8; a++) out.push(`  attr${e}_${a} ${['text', 'int', 'date', 'float'][a % 4]}`);
        out.push(
            `  ref ${prefix}E${(e + 1) % entityCount}[*] next`,
            `  ref ${prefix}E${(e + 2) % entityCount}[1] other`,
            '}',
            '',
        );
    }
    let q = 0;
    while (out.length < lines - 8) {
        const e = q % entityCount;
        const n = (e + 1) % entityCount;
        const o = (n + 2) % entityCount;
        out.push(
            `query ${prefix}Q${q}_byAttribute:`,
            `SELECT attr${e}_0, attr${e}_1, N.attr${n}_2, O.attr${o}_3,`,
            `  code${e}, N.code${n}`,
            `FROM ${prefix}E${e}`,
            `INCLUDE ${prefix}E${e}.next as N, N.other as O`,
            `WHERE attr${e}_4 = "?" and N.attr${n}_5 >= "?"`,
            `ORDER BY N.attr${n}_1 ASC, attr${e}_2 DESC`,
            '',
        );
        q++;
    }
    return out.join('\n');
}

async function startServer() {
    // KVMOD_BENCH_NODE_ARGS passes flags to the server process, e.g. "--cpu-prof --cpu-prof-dir=prof".
    const nodeArgs = (process.env.KVMOD_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const child = spawn(process.execPath, [...nodeArgs, join(root, 'dist/server.cjs'), '--stdio'], {
        stdio: ['pipe', 'pipe', 'ignore'],
    });
    const connection = createMessageConnection(
        new StreamMessageReader(child.stdout),
        new StreamMessageWriter(child.stdin),
    );
    const waiters = [];
    connection.onNotification('textDocument/publishDiagnostics', (params) => {
        for (const waiter of waiters.splice(0)) {
            if (waiter.uri === params.uri) waiter.resolve(params.diagnostics);
            else waiters.push(waiter);
        }
    });
    connection.onRequest(() => null);
    connection.onNotification(() => undefined);
    connection.listen();
    await connection.sendRequest('initialize', {
        processId: process.pid,
        rootUri: null,
        workspaceFolders: null,
        capabilities: {},
    });
    await connection.sendNotification('initialized', {});
    const next = (uri) => new Promise((resolve) => waiters.push({ uri, resolve }));
    return { child, connection, next };
}

function percentile(sorted, p) {
    return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function measure(server, lines, edits) {
    const text = syntheticModel(lines, `M${lines}_`);
    const uri = pathToFileURL(join(tmpdir(), `kvmod-bench-${lines}.pidm`)).toString();
    const opened = server.next(uri);
    const openStart = performance.now();
    await server.connection.sendNotification('textDocument/didOpen', {
        textDocument: { uri, languageId: 'pidm', version: 1, text },
    });
    const first = await opened;
    const openMs = performance.now() - openStart;
    const errors = first.filter((d) => d.severity === 1);
    if (errors.length > 0) throw new Error(`the ${lines}-line model is not valid: ${errors[0].message}`);
    // Each edit toggles one attribute spelling in the first query: valid → unknown name → valid …
    const samples = [];
    for (let version = 2; version < edits + 2; version++) {
        const broken = version % 2 === 0;
        const changed = broken ? text.replace('SELECT attr0_0,', 'SELECT attr0_0x,') : text;
        const published = server.next(uri);
        const start = performance.now();
        await server.connection.sendNotification('textDocument/didChange', {
            textDocument: { uri, version },
            contentChanges: [{ text: changed }],
        });
        const diagnostics = await published;
        samples.push(performance.now() - start);
        if (broken !== diagnostics.some((d) => d.severity === 1))
            throw new Error(`unexpected diagnostics after edit ${version}`);
    }
    samples.sort((a, b) => a - b);
    return {
        lines: text.split('\n').length,
        openMs,
        median: percentile(samples, 50),
        p95: percentile(samples, 95),
        edits,
    };
}

const target = option('lines', 5000);
const baseline = option('baseline', 500);
const edits = option('edits', 15);
const server = await startServer();
try {
    // Warm the JIT and the parser on a small model so the first measured edit is not a cold start.
    await measure(server, 200, 3);
    const small = await measure(server, baseline, edits);
    const large = await measure(server, target, edits);
    const format = (r) =>
        `${String(r.lines).padStart(6)} lines: open ${r.openMs.toFixed(0).padStart(5)} ms | after an edit: median ${r.median.toFixed(1).padStart(7)} ms, p95 ${r.p95.toFixed(1).padStart(7)} ms (${r.edits} edits)`;
    console.log('kvmod language server: diagnostics latency over stdio (didChange → publishDiagnostics)');
    console.log(format(small));
    console.log(format(large));
    console.log(
        `ratio ${large.lines}/${small.lines} lines: median ×${(large.median / small.median).toFixed(1)}, p95 ×${(large.p95 / small.p95).toFixed(1)}`,
    );
} finally {
    await server.connection.sendRequest('shutdown').catch(() => undefined);
    await server.connection.sendNotification('exit').catch(() => undefined);
    server.connection.dispose();
    setTimeout(() => {
        if (server.child.exitCode === null) server.child.kill();
    }, 1000).unref();
}
