/**
 * Where a large run's time and memory go, phase by phase, for whoever measures: with `KVMOD_TIMING=1` in the
 * environment each phase boundary writes one line to standard error — the phase's CPU time (user + system) and
 * wall time since the previous boundary, then the heap in use and the resident set at the boundary. Without
 * the variable a boundary costs one property read. The figures are the process's own (`process.cpuUsage`,
 * `process.memoryUsage`); a CPU profile says where inside a phase the time went.
 */
import { getHeapStatistics } from 'node:v8';

let previous: { cpu: NodeJS.CpuUsage; wall: bigint } | undefined;

/** Whether `KVMOD_TIMING` asks for phase lines (read on every call: tests may set it late). */
function enabled(): boolean {
    const value = process.env.KVMOD_TIMING;
    return value !== undefined && value !== '' && value !== '0';
}

/** Marks the end of `phase`: writes its line when timing is on (see the file comment). */
export function phaseDone(phase: string): void {
    if (!enabled()) return;
    const cpu = process.cpuUsage();
    const wall = process.hrtime.bigint();
    // The first phase counts from the process's start.
    const cpuBefore = previous ? previous.cpu.user + previous.cpu.system : 0;
    const cpuSeconds = (cpu.user + cpu.system - cpuBefore) / 1e6;
    const wallSeconds = previous ? Number(wall - previous.wall) / 1e9 : performance.now() / 1e3;
    previous = { cpu, wall };
    const mb = (bytes: number) => `${Math.round(bytes / 1024 ** 2)} MB`;
    const heap = getHeapStatistics().used_heap_size;
    process.stderr.write(
        `kvmod: timing: ${phase.padEnd(22)} ${cpuSeconds.toFixed(2).padStart(6)} s cpu ${wallSeconds.toFixed(2).padStart(6)} s wall  heap ${mb(heap)}, rss ${mb(process.memoryUsage.rss())}\n`,
    );
}
