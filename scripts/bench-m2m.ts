/**
 * The paper's Table 4, measured on our transformation: for m queries of n fields (m, n ∈ {10, 100,
 * 1000}) the time of `transformPidmToKvlm` — Algorithm 1, Algorithm 3 and building the KVLM AST — on a
 * random PIDM model built as an AST in memory (generation is not timed, and there is no parsing: the
 * paper measures the conceptual-to-logical step). Run it with `npm run bench:m2m` (see bench-m2m.mjs).
 *
 *   --json               one JSON object per cell: {"m","n","ms","referenceMs","paperMs"}
 *   --only MxN[,MxN…]    only these cells
 *   --no-reference       skip the literal reference implementation
 *   --reference-limit S  give the reference at most S seconds per cell (default 60), else n/a
 *   --seed N             the generator's seed (default 2024)
 */
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { generateRandomPidm } from '../src/testing/random-pidm.js';
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
    runs: number;
    referenceMs: number | null;
    referenceNote?: string;
    paperMs: number;
    collections: number;
    merges: number;
    refusals: number;
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

function measureFast(cell: Cell, seed: number): Omit<Measured, 'referenceMs' | 'paperMs'> {
    const model = modelFor(cell, seed);
    let result = transformPidmToKvlm([model]);
    // Small cells: time batches of runs (one run is too short for the clock), no collection in between.
    const perBatch = cell.m * cell.n <= 20_000 ? Math.max(1, Math.ceil(20_000 / (cell.m * cell.n))) : 1;
    const samples = perBatch > 1 ? 11 : cell.m * cell.n <= 100_000 ? 7 : 5;
    const times: number[] = [];
    for (let sample = 0; sample < samples; sample++) {
        if (perBatch === 1) {
            result = undefined as unknown as typeof result;
            gc();
        }
        const start = performance.now();
        for (let run = 0; run < perBatch; run++) result = transformPidmToKvlm([model]);
        times.push((performance.now() - start) / perBatch);
    }
    // The heap the result holds: measured once, with a collection before and after.
    result = undefined as unknown as typeof result;
    gc();
    const before = process.memoryUsage().heapUsed;
    result = transformPidmToKvlm([model]);
    gc();
    const retained = Math.max(0, process.memoryUsage().heapUsed - before);
    return {
        ...cell,
        ms: median(times),
        runs: samples * perBatch,
        collections: result.model.collections.length,
        merges: result.decisions.filter((decision) => decision.result !== undefined).length,
        refusals: result.decisions.filter((decision) => decision.result === undefined).length,
        retainedMb: retained / 2 ** 20,
    };
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
    };
}

async function main(): Promise<void> {
    const args = parseArgs(process.argv.slice(2));
    // Warm the JIT up on a small model so the first cell is not charged for compilation.
    const warm = modelFor({ m: 50, n: 50 }, args.seed + 1);
    for (let run = 0; run < 20; run++) transformPidmToKvlm([warm]);

    const rows: Measured[] = [];
    const referenceByCell = new Map<string, number | null>();
    if (!args.json) {
        console.log(
            'M2M (Algorithm 1 + Algorithm 3 + KVLM AST) on seeded random PIDM models built in memory (not timed, not parsed).',
        );
        console.log(
            `Node ${process.version}, one thread. "paper" is Table 4 of the paper (Core i7, Xtend); rows of Table 4 are n, columns m.`,
        );
        console.log('');
        console.log(
            ['m', 'n', 'ours', 'paper', 'paper/ours', 'reference', 'ref/ours', 'colls', 'merges', 'refused', 'heap MB']
                .map((h, i) => (i < 2 ? h.padStart(5) : h.padStart(11)))
                .join(''),
        );
    }
    for (const cell of args.cells) {
        const fast = measureFast(cell, args.seed);
        let referenceMs: number | null = null;
        if (args.reference) {
            // The reference is O(m²·n²): skip it when a cell ten times smaller already took more than 1% of the limit.
            const smaller = [
                referenceByCell.get(`${cell.m / 10}x${cell.n}`),
                referenceByCell.get(`${cell.m}x${cell.n / 10}`),
            ];
            const hopeless = smaller.some(
                (ms) => ms === null || (ms !== undefined && ms * 100 > args.referenceLimitMs),
            );
            referenceMs = hopeless ? null : await measureReference(cell, args.seed, args.referenceLimitMs);
            referenceByCell.set(`${cell.m}x${cell.n}`, referenceMs);
        }
        const row: Measured = { ...fast, referenceMs, paperMs: PAPER_MS[`${cell.m}x${cell.n}`] ?? NaN };
        rows.push(row);
        if (args.json) {
            console.log(
                JSON.stringify({
                    m: row.m,
                    n: row.n,
                    ms: round(row.ms),
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
                    formatMs(row.paperMs).padStart(11),
                    ratio(row.paperMs, row.ms).padStart(11),
                    formatMs(row.referenceMs).padStart(11),
                    ratio(row.referenceMs, row.ms).padStart(11),
                    String(row.collections).padStart(11),
                    String(row.merges).padStart(11),
                    String(row.refusals).padStart(11),
                    row.retainedMb.toFixed(1).padStart(11),
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
