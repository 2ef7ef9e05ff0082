// `npm run bench:m2m [-- --json] [--only 1000x1000] [--no-reference] [--reference-limit 60] [--in-process]`
// (KVMOD_BENCH_NODE_FLAGS='--cpu-prof' passes flags to the measuring node process.)
//
// Bundles scripts/bench-m2m.ts (and the transformation it measures) with esbuild into
// node_modules/.cache (so that its package imports resolve from the project) and runs it with
// --expose-gc: the benchmark needs no prior `tsc` build of the whole project.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
if (process.argv.includes('--help')) {
    // The options are documented where they are read: the header comment of bench-m2m.ts.
    const source = readFileSync(join(root, 'scripts/bench-m2m.ts'), 'utf8');
    const header = /^\/\*\*\n([\s\S]*?)\*\//.exec(source)?.[1] ?? '';
    process.stdout.write(
        'npm run bench:m2m [-- --json] [--only 1000x1000] [--no-reference] [--reference-limit 60] [--seed N] [--in-process]\n' +
            header.replace(/^ \* ?/gm, '').trimEnd() +
            '\n' +
            "KVMOD_BENCH_NODE_FLAGS='--cpu-prof' passes flags to the measuring node process.\n",
    );
    process.exit(0);
}
const cache = join(root, 'node_modules', '.cache');
mkdirSync(cache, { recursive: true });
const dir = mkdtempSync(join(cache, 'kvmod-bench-m2m-'));
try {
    const outfile = join(dir, 'bench-m2m.mjs');
    await build({
        absWorkingDir: root,
        entryPoints: ['scripts/bench-m2m.ts'],
        outfile,
        bundle: true,
        platform: 'node',
        target: 'node20',
        format: 'esm',
        packages: 'external',
        logLevel: 'warning',
    });
    const nodeFlags = (process.env.KVMOD_BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
    const polyfill = join(root, 'scripts/polyfills.mjs');
    const args = [
        ...nodeFlags,
        '--expose-gc',
        '--max-old-space-size=4096',
        '--import',
        polyfill,
        outfile,
        ...process.argv.slice(2),
    ];
    const result = spawnSync(process.execPath, args, { stdio: 'inherit', cwd: root });
    process.exitCode = result.status ?? 1;
} finally {
    rmSync(dir, { recursive: true, force: true });
}
