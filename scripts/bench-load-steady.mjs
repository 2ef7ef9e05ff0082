// bench:load's steady state (scripts/bench-load.mjs `--steady N`, on by default): kvmod load's throughput against
// redis-cli --pipe's apart from what a load costs once. One load of one size, timed as a whole process, mixes the rate
// at which rows go in with what a load costs whatever its size (Node's start-up, loading the model, creating the
// indexes): about a quarter of a second, a quarter of a load of 113,131 rows, nothing of one of millions. bench:load
// therefore also runs its whole processes and their pipes at a second, larger scale (the same machine, fresh servers)
// and reports, for FT.ADD (RediSearch 1.2, SAFEMODE) and FCALL (redis-core), from the difference of the two runs (the
// costs paid once per load cancel):
// - each side's steady rate: (rows2 - rows1) / (seconds2 - seconds1);
// - kvmod's share of the pipe's steady rate: (pipe2 - pipe1) / (kvmod2 - kvmod1);
// - the time kvmod takes beyond the pipe, split into what a load costs once and what it costs per row (a straight
//   line through the two runs' differences; the server's own time per row grows with its indexes, on both sides).

const count = (n) => Math.round(n).toLocaleString('en-US');

/**
 * The steady-state lines of two runs of bench-load (`{ model, rows, results }`, its JSON), the second larger: for each
 * comparison with a pipe and a whole process in both. Also returns the figures (for `--json`).
 */
export function steadyState(small, large) {
    const rows = large.rows - small.rows;
    const lines = [
        `Steady state, from ${count(small.rows)} to ${count(large.rows)} rows (each the fastest of its repeats): the difference of the two runs`,
    ];
    const figures = [];
    for (const comparison of small.results) {
        const other = large.results.find((r) => r.comparison === comparison.comparison);
        const line = (results, prefix) => results?.lines.find((l) => l.name.startsWith(prefix));
        const pipe = [line(comparison, 'redis-cli'), line(other, 'redis-cli')];
        const kvmod = [line(comparison, 'kvmod load'), line(other, 'kvmod load')];
        if (pipe.includes(undefined) || kvmod.includes(undefined)) continue;
        const seconds = (l) => l.exactSeconds ?? l.seconds;
        lines.push(comparison.comparison);
        if (![pipe, kvmod].every(([a, b]) => seconds(b) > seconds(a))) {
            lines.push(
                '  no steady state: a run of the larger data was not slower than the smaller one (a busy machine?)',
            );
            continue;
        }
        const rate = ([a, b]) => rows / (seconds(b) - seconds(a));
        for (const [name, pair] of [
            ['redis-cli --pipe', pipe],
            ['kvmod load (whole process)', kvmod],
        ]) {
            const times = pair.map((l) => `${l.seconds.toFixed(2)} s`).join(' → ');
            lines.push(`  ${name.padEnd(28)} ${times.padEnd(17)} steady ${count(rate(pair)).padStart(9)} rows/s`);
        }
        const share = (seconds(pipe[1]) - seconds(pipe[0])) / (seconds(kvmod[1]) - seconds(kvmod[0]));
        const beyond = [seconds(kvmod[0]) - seconds(pipe[0]), seconds(kvmod[1]) - seconds(pipe[1])];
        const perRow = (beyond[1] - beyond[0]) / rows;
        const once = beyond[0] - perRow * small.rows;
        lines.push(
            `  kvmod's steady throughput: ${Math.round(share * 100)}% of redis-cli --pipe's (whole process: ${Math.round(kvmod[0].share * 100)}% at ${count(small.rows)} rows, ${Math.round(kvmod[1].share * 100)}% at ${count(large.rows)})`,
            `  kvmod beyond the pipe: ${beyond.map((s) => `${s.toFixed(2)} s`).join(' → ')}: ${once.toFixed(2)} s once per load + ${(perRow * 1e6).toFixed(2)} µs per row`,
        );
        figures.push({
            comparison: comparison.comparison,
            pipeRowsPerSecond: Math.round(rate(pipe)),
            kvmodRowsPerSecond: Math.round(rate(kvmod)),
            share: Number(share.toFixed(2)),
            onceSeconds: Number(once.toFixed(2)),
            perRowMicroseconds: Number((perRow * 1e6).toFixed(2)),
        });
    }
    return { lines, figures };
}
