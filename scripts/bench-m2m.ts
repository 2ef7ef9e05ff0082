/**
 * The paper's Table 4, measured on our transformation: for m queries of n fields (m, n ∈ {10, 100,
 * 1000}) the time of `transformPidmToKvlm` — Algorithm 1, Algorithm 3 and building the KVLM AST — on a
 * random PIDM model built as an AST in memory (generation is not timed, and there is no parsing: the
 * paper measures the conceptual-to-logical step). Run it with `npm run bench:m2m` (see bench-m2m.mjs).
 *
 *   --json               one JSON object per cell: {"m","n","ms","cpuMs","load","referenceMs","paperMs"}
 *   --only MxN[,MxN…]    only these cells
 *   --no-reference       skip the literal reference implementation
 *   --reference-limit S  give the reference at most S seconds per cell (default 60), else n/a
 *   --seed N             the generator's seed (default 2024)
 *   --in-process         measure every cell in this process (by default each cell gets a fresh one)
 *
 * Each cell is measured in a fresh node process, as `kvmod transform` runs: in one long process the
 * cells measured before a large one leave JIT and GC feedback behind (V8 allocation sites decided on
 * small models stop pretenuring the large model's AST), which made 1000 × 1000 about 0.3 s slower.
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { generateRandomPidm } from '../src/testing/random-pidm.js';
import type { PidmModel } from '../src/language/generated/ast.js';
import { transformPidmToKvlm } from '../transformations/pidm-to-kvlm/index.js';

const SIZES = [10, 100, 1000] as const;

/**
 * Table 4 of the paper (ms). Its corner cell reads "m over n": the upper label names the columns, the
 * lower one the rows, so a row is a value of n and a column a value of m.
 */
const PAPER_MS: Record<string, number> = {
    '10x10': 0.18,
    '100x10': 22,
    '1000x10': 3_700,
    '10x100': 35,
    '100x100': 5_100,
    '1000x100': 38_000,
    '10x1000': 19_000,
    '100x1000': 95_000,
    '1000x1000': 26 * 60_000,
};

interface Cell {
    m: number;
    n: number;
}

interface Measured extends Cell {
    ms: number;
    /** Median CPU time of the process over a run (user + system: includes V8's GC helper threads). */
    cpuMs: number;
    /** The one-minute load average when the cell was done (above the number of cores, wall time measures others too). */
    load: number;
    runs: number;
    referenceMs: number | null;
    referenceNote?: string;
    paperMs: number;
    collections: number;
    merges: number;
    refusals: number;
    /** Heap held by the input model (the generated PIDM AST). */
    inputMb: number;
    /** Heap held by the result (KVLM AST, trace and warnings) once the transformation is done. */
    retainedMb: number;
}

interface WorkerInput extends Cell {
    seed: number;
}

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

function modelFor(cell: Cell, seed: number) {
    return generateRandomPidm({ queries: cell.m, fieldsPerQuery: cell.n, seed: seed + cell.m * 7919 + cell.n });
}

function median(values: number[]): number {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)];
}

function measureFast(cell: Cell, seed: number): Omit<Measured, 'referenceMs' | 'paperMs' | 'load'> {
    gc();
    const empty = process.memoryUsage().heapUsed;
    const model = modelFor(cell, seed);
    gc();
    const withModel = process.memoryUsage().heapUsed;
    const inputMb = Math.max(0, withModel - empty) / 2 ** 20;
    const { times, cpuTimes, runs } = timeSamples(cell, model);
    // The heap the result holds, against the heap before any run: V8 now and then keeps an earlier
    // run's result alive for a while (so a before/after difference around one run can read 0); this
    // way such a leftover can only make the figure larger.
    const result = transformPidmToKvlm([model]);
    gc();
    const retained = Math.max(0, process.memoryUsage().heapUsed - withModel);
    return {
        ...cell,
        ms: median(times),
        cpuMs: median(cpuTimes),
        runs,
        collections: result.model.collections.length,
        merges: result.decisions.filter((decision) => decision.result !== undefined).length,
        refusals: result.decisions.filter((decision) => decision.result === undefined).length,
        inputMb,
        retainedMb: retained / 2 ** 20,
    };
}

/** The timed samples: one untimed run first (JIT warm-up), then a collection before each sample. */
function timeSamples(cell: Cell, model: PidmModel): { times: number[]; cpuTimes: number[]; runs: number } {
    transformPidmToKvlm([model]);
    // Small cells: time batches of runs (one run is too short for the clock), no collection in between.
    const perBatch = cell.m * cell.n <= 20_000 ? Math.max(1, Math.ceil(20_000 / (cell.m * cell.n))) : 1;
    const samples = perBatch > 1 ? 11 : cell.m * cell.n <= 100_000 ? 7 : 5;
    const times: number[] = [];
    const cpuTimes: number[] = [];
    for (let sample = 0; sample < samples; sample++) {
        if (perBatch === 1) gc();
        const cpu = process.cpuUsage();
        const start = performance.now();
        for (let run = 0; run < perBatch; run++) transformPidmToKvlm([model]);
        times.push((performance.now() - start) / perBatch);
        const used = process.cpuUsage(cpu);
        cpuTimes.push((used.user + used.system) / 1000 / perBatch);
    }
    return { times, cpuTimes, runs: samples * perBatch };
}

/** Times the reference implementation in a worker that is stopped after `limitMs`. */
function measureReference(cell: Cell, seed: number, limitMs: number): Promise<number | null> {
    return new Promise((resolve, reject) => {
        const worker = new Worker(new URL(import.meta.url), { workerData: { ...cell, seed } satisfies WorkerInput });
        const timer = setTimeout(() => {
            void worker.terminate();
            resolve(null);
        }, limitMs);
        worker.once('message', (ms: number) => {
            clearTimeout(timer);
            void worker.terminate();
            resolve(ms);
        });
        worker.once('error', (error) => {
            clearTimeout(timer);
            reject(error);
        });
    });
}

function runReferenceInWorker(): void {
    const input = workerData as WorkerInput;
    const model = modelFor(input, input.seed);
    const start = performance.now();
    transformPidmToKvlm([model], { optimizer: 'reference' });
    parentPort?.postMessage(performance.now() - start);
}

function formatMs(ms: number | null): string {
    if (ms === null) return 'n/a';
    if (ms < 1) return `${(ms * 1000).toFixed(0)} µs`;
    if (ms < 1000) return `${ms.toFixed(ms < 10 ? 2 : 1)} ms`;
    if (ms < 120_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
    return `${(ms / 60_000).toFixed(1)} min`;
}

function ratio(numerator: number | null, denominator: number): string {
    if (numerator === null) return 'n/a';
    const value = numerator / denominator;
    return value >= 100 ? `${Math.round(value).toLocaleString('en-US')}×` : `${value.toFixed(1)}×`;
}

function parseArgs(argv: string[]) {
    const value = (flag: string) => {
        const index = argv.indexOf(flag);
        return index >= 0 ? argv[index + 1] : undefined;
    };
    const only = value('--only')
        ?.split(',')
        .map((cell) => cell.split('x').map(Number))
        .map(([m, n]) => ({ m, n }));
    return {
        json: argv.includes('--json'),
        reference: !argv.includes('--no-reference'),
        referenceLimitMs: Number(value('--reference-limit') ?? 60) * 1000,
        seed: Number(value('--seed') ?? 2024),
        cells: only ?? SIZES.flatMap((m) => SIZES.map((n) => ({ m, n }))),
        inProcess: argv.includes('--in-process'),
        /** Internal: measure the one cell given and print its `Measured` row as JSON (see `measureIsolated`). */
        cellJson: argv.includes('--cell-json'),
    };
}

type Args = ReturnType<typeof parseArgs>;

/** Measures one cell (fast and, if asked, reference) in this process. */
async function measureCell(cell: Cell, args: Args, reference: boolean): Promise<Measured> {
    const fast = measureFast(cell, args.seed);
    const referenceMs = reference ? await measureReference(cell, args.seed, args.referenceLimitMs) : null;
    return { ...fast, referenceMs, paperMs: PAPER_MS[`${cell.m}x${cell.n}`] ?? NaN, load: loadavg()[0] };
}

/** Measures one cell in a fresh node process (same flags), which prints its row as JSON. */
function measureIsolated(cell: Cell, args: Args, reference: boolean): Measured {
    const childArgs = [
        ...process.execArgv,
        process.argv[1],
        '--cell-json',
        '--only',
        `${cell.m}x${cell.n}`,
        '--seed',
        String(args.seed),
        '--reference-limit',
        String(args.referenceLimitMs / 1000),
        ...(reference ? [] : ['--no-reference']),
    ];
    const child = spawnSync(process.execPath, childArgs, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    if (child.status !== 0) throw new Error(`bench-m2m: the process measuring ${cell.m}x${cell.n} failed`);
    return JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '') as Measured;
}

/** JIT warm-up on a small model, so that an in-process first cell is not charged for compilation. */
function warmUp(seed: number): void {
    const warm = modelFor({ m: 50, n: 50 }, seed + 1);
    for (let run = 0; run < 20; run++) transformPidmToKvlm([warm]);
}

async function main(): Promise<void> {
    const args = parseArgs(process.argv.slice(2));
    if (args.cellJson) {
        // A fresh process for one cell: its own first, untimed run (in measureFast) warms the JIT up.
        const cell = args.cells[0];
        console.log(JSON.stringify(await measureCell(cell, args, args.reference)));
        return;
    }
    if (args.inProcess) warmUp(args.seed);

    const rows: Measured[] = [];
    const referenceByCell = new Map<string, number | null>();
    if (!args.json) {
        console.log(
            'M2M (Algorithm 1 + Algorithm 3 + KVLM AST) on seeded random PIDM models built in memory (not timed, not parsed).',
        );
        console.log(
            `Node ${process.version}, one thread, ${args.inProcess ? 'every cell in this process' : 'each cell in a fresh process'}. "paper" is Table 4 of the paper (Core i7, Xtend); rows of Table 4 are n, columns m.`,
        );
        console.log('');
        console.log(
            [
                'm',
                'n',
                'ours',
                'ours cpu',
                'paper',
                'paper/ours',
                'reference',
                'ref/ours',
                'colls',
                'merges',
                'refused',
                'input MB',
                'result MB',
                'load',
            ]
                .map((h, i, all) => (i < 2 ? h.padStart(5) : i === all.length - 1 ? h.padStart(7) : h.padStart(11)))
                .join(''),
        );
    }
    for (const cell of args.cells) {
        let reference = args.reference;
        if (reference) {
            // The reference is O(m²·n²): skip it when a cell ten times smaller already took more than 1% of the limit.
            const smaller = [
                referenceByCell.get(`${cell.m / 10}x${cell.n}`),
                referenceByCell.get(`${cell.m}x${cell.n / 10}`),
            ];
            reference = !smaller.some((ms) => ms === null || (ms !== undefined && ms * 100 > args.referenceLimitMs));
        }
        const row = args.inProcess ? await measureCell(cell, args, reference) : measureIsolated(cell, args, reference);
        if (args.reference) referenceByCell.set(`${cell.m}x${cell.n}`, row.referenceMs);
        rows.push(row);
        if (args.json) {
            console.log(
                JSON.stringify({
                    m: row.m,
                    n: row.n,
                    ms: round(row.ms),
                    cpuMs: round(row.cpuMs),
                    load: row.load,
                    referenceMs: row.referenceMs === null ? null : round(row.referenceMs),
                    paperMs: row.paperMs,
                }),
            );
        } else {
            console.log(
                [
                    String(row.m).padStart(5),
                    String(row.n).padStart(5),
                    formatMs(row.ms).padStart(11),
                    formatMs(row.cpuMs).padStart(11),
                    formatMs(row.paperMs).padStart(11),
                    ratio(row.paperMs, row.ms).padStart(11),
                    formatMs(row.referenceMs).padStart(11),
                    ratio(row.referenceMs, row.ms).padStart(11),
                    String(row.collections).padStart(11),
                    String(row.merges).padStart(11),
                    String(row.refusals).padStart(11),
                    row.inputMb.toFixed(1).padStart(11),
                    row.retainedMb.toFixed(1).padStart(11),
                    row.load.toFixed(1).padStart(7),
                ].join(''),
            );
        }
    }
}

function round(ms: number): number {
    return Math.round(ms * 1000) / 1000;
}

if (isMainThread) {
    await main();
} else {
    runReferenceInWorker();
}
