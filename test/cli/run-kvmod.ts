/**
 * Runs the real `kvmod` command (`node bin/kvmod.js`, which loads the compiled `out/`) the way a user's
 * shell does. `npm test` builds `out/` first (the `pretest` script).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: the working directory of every spawned command. */
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** What a finished command left behind. */
export interface KvmodRun {
    status: number | null;
    stdout: string;
    stderr: string;
}

/** Runs `kvmod <args>` in the repository root (or `cwd`) and waits for it. */
export function runKvmod(args: string[], options: { cwd?: string; input?: string; timeoutMs?: number } = {}): KvmodRun {
    const result = spawnSync(process.execPath, [`${REPO_ROOT}bin/kvmod.js`, ...args], {
        cwd: options.cwd ?? REPO_ROOT,
        input: options.input ?? '',
        encoding: 'utf8',
        timeout: options.timeoutMs ?? 50_000,
        env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * The same without blocking: for tests whose own servers (a `net.Server` in the test process) must keep
 * answering while the command runs. `env` adds variables (e.g. `NODE_EXTRA_CA_CERTS`).
 */
export function runKvmodAsync(
    args: string[],
    options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<KvmodRun> {
    return new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [`${REPO_ROOT}bin/kvmod.js`, ...args], {
            cwd: options.cwd ?? REPO_ROOT,
            env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...options.env },
            stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
        const timer = setTimeout(() => child.kill('SIGKILL'), 50_000);
        child.on('error', reject);
        child.on('close', (status) => {
            clearTimeout(timer);
            resolve({ status, stdout, stderr });
        });
    });
}

/** Stack frames (`    at f (file.js:1:2)`) or a raw exception name: never allowed in kvmod's output. */
export const STACK_TRACE = /^\s+at .+|\b(TypeError|ReferenceError|RangeError|SyntaxError)\b|node:internal/m;

/** One diagnostic line: `path:line:col: severity: message [code]`. */
export const DIAGNOSTIC_LINE = /^(.+):(\d+):(\d+): (error|warning|info): (.+) \[([a-z]+(?:\.[a-z0-9-]+)+)\]$/;

/**
 * The URL of every module `kvmod <args>` resolves, in order (test/cli/fixtures/trace-imports.mjs records them), with
 * its exit status. `env` replaces the environment; `bin` is another copy of bin/kvmod.js (an installed one).
 */
export function modulesResolvedBy(
    args: string[],
    env: Record<string, string | undefined> = process.env,
    bin = `${REPO_ROOT}bin/kvmod.js`,
): { status: number | null; urls: string[] } {
    const dir = mkdtempSync(join(tmpdir(), 'kvmod-trace-'));
    try {
        const trace = join(dir, 'trace.txt');
        const run = spawnSync(
            process.execPath,
            ['--import', `${REPO_ROOT}test/cli/fixtures/trace-imports.mjs`, bin, ...args],
            { cwd: REPO_ROOT, encoding: 'utf8', env: { ...env, KVMOD_TRACE_FILE: trace }, timeout: 50_000 },
        );
        return { status: run.status, urls: readFileSync(trace, 'utf8').trim().split('\n') };
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
}
