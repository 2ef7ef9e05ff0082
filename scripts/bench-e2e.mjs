#!/usr/bin/env node
// `npm run bench:e2e [-- --only 100x1000,1000x100] [--commands validate,transform,generate] [--json] [--keep DIR]`
//
// The commands a user runs, on files: writes the issue-14 grid of random PIDM models as text (entities
// E0 … E9 of 150 attributes chained by [1] references; m queries FROM E0 INCLUDE the chain, n attributes
// selected by path, one filter, one sort — see generateGridPidm) and times `kvmod validate`, `kvmod
// transform` and `kvmod generate --target redis` on each, every one a separate `node bin/kvmod.js`
// process. Figures: wall time, CPU time (user + system: steadier than wall on a shared machine) and peak
// RSS of the process, read from GNU time (`/usr/bin/time`), and the one-minute load average when each
// command ended (above the number of cores, wall time measures the other processes too). Ratios divide each cell by the 10 × 10 cell
// measured in the same run, next to the ratio of the file sizes: linear cost reads "time ratio ≈ size
// ratio" once start-up is small beside the work. Needs `npm run build:ts` (the npm script runs it).
import './polyfills.mjs';
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { generateGridPidm } = await import(`${root}out/src/testing/random-pidm.js`);
const { pidmChunks } = await import(`${root}out/src/language/pidm/pidm-printer.js`);

const args = process.argv.slice(2);
if (args.includes('--help')) {
    const header = readFileSync(fileURLToPath(import.meta.url), 'utf8')
        .split('\n')
        .slice(1);
    const comment = header.slice(
        0,
        header.findIndex((line) => !line.startsWith('//')),
    );
    process.stdout.write(comment.map((line) => line.replace(/^\/\/ ?/, '')).join('\n') + '\n');
    process.exit(0);
}
const option = (name) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
const json = args.includes('--json');
const GRID = ['10x10', '100x100', '100x1000', '1000x100', '300x1000', '1000x1000'];
const only = option('only')?.split(',');
const cells = ['10x10', ...GRID.filter((cell) => cell !== '10x10' && (!only || only.includes(cell)))];
const commands = option('commands')?.split(',') ?? ['validate', 'transform', 'generate'];
const TIME = '/usr/bin/time';
if (!existsSync(TIME)) {
    process.stderr.write('bench:e2e needs GNU time at /usr/bin/time (Debian package `time`) for the peak RSS\n');
    process.exit(1);
}

const keep = option('keep');
mkdirSync(join(root, 'node_modules', '.cache'), { recursive: true });
const dir = keep ?? mkdtempSync(join(root, 'node_modules', '.cache', 'kvmod-bench-e2e-'));
mkdirSync(dir, { recursive: true });

/** Writes one grid file chunk by chunk (the 10 MB text is never one string). */
async function writeGrid(cell) {
    const [queries, fields] = cell.split('x').map(Number);
    const path = join(dir, `grid-${cell}.pidm`);
    if (existsSync(path)) return path;
    const model = generateGridPidm({ queries, fieldsPerQuery: fields, seed: 2024 });
    const stream = createWriteStream(path);
    for (const chunk of pidmChunks(model)) if (!stream.write(chunk)) await once(stream, 'drain');
    stream.end();
    await once(stream, 'finish');
    return path;
}

function argsFor(command, file, out) {
    if (command === 'validate') return ['validate', file];
    if (command === 'transform') return ['transform', file, '-o', out];
    return ['generate', file, '--target', 'redis', '-o', out];
}

/** Runs one command under GNU time; wall from here, CPU and peak RSS from time's report. */
function run(command, file, cell) {
    const out = join(dir, `out-${command}-${cell}`);
    rmSync(out, { recursive: true, force: true });
    const report = join(dir, 'time.txt');
    const started = performance.now();
    const result = spawnSync(
        TIME,
        ['-o', report, '-f', '%U %S %M', process.execPath, join(root, 'bin/kvmod.js'), ...argsFor(command, file, out)],
        { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    const wall = (performance.now() - started) / 1000;
    const [user, system, rssKb] = readFileSync(report, 'utf8').trim().split('\n').at(-1).split(' ').map(Number);
    const failed =
        result.status !== 0 ? (result.stderr || result.stdout).trim().split('\n').slice(-2).join(' ') : undefined;
    rmSync(out, { recursive: true, force: true });
    return { wall, cpu: user + system, rssMb: rssKb / 1024, load: loadavg()[0], failed };
}

const rows = [];
let baseline;
for (const cell of cells) {
    const file = await writeGrid(cell);
    const sizeMb = statSync(file).size / 1024 / 1024;
    const row = { cell, sizeMb };
    for (const command of commands) row[command] = run(command, file, cell);
    baseline ??= row;
    rows.push(row);
    if (!json) printRow(row);
}
if (json) console.log(JSON.stringify(rows, null, 2));
if (!keep) rmSync(dir, { recursive: true, force: true });

function printRow(row) {
    const size = row.sizeMb >= 1 ? `${row.sizeMb.toFixed(2)} MB` : `${(row.sizeMb * 1024).toFixed(0)} KB`;
    const parts = [
        `${row.cell.padEnd(9)} ${size.padStart(9)} (x${(row.sizeMb / baseline.sizeMb).toFixed(0).padEnd(4)})`,
    ];
    for (const command of commands) {
        const m = row[command];
        const base = baseline[command];
        const text = m.failed
            ? `FAILED (${m.failed.slice(0, 160)})`
            : `${m.wall.toFixed(1)} s wall (load ${m.load.toFixed(1)}) ${m.cpu.toFixed(1)} s cpu ${(m.rssMb / 1024).toFixed(2)} GB` +
              (row === baseline ? '' : ` (cpu x${(m.cpu / base.cpu).toFixed(1)})`);
        parts.push(`${command} ${text}`);
    }
    console.log(parts.join(' | '));
}
