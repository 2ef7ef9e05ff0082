#!/usr/bin/env node
// `node scripts/cpu-profile-summary.mjs PROFILE.cpuprofile [--top 30]`
//
// Where a V8 CPU profile's time went, as text: the functions with the most self time (garbage collection
// shows as "(garbage collector)"), then the most inclusive time (a function and everything it called).
// Make a profile of any command with node's own flag, e.g.
//   node --cpu-prof --cpu-prof-dir=prof bin/kvmod.js validate grid.pidm
//   node scripts/cpu-profile-summary.mjs prof/*.cpuprofile
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args[topAt + 1]) : 30;
// The word after `--top` is its count, not a file; without `--top` every other word is a candidate.
const file = args.find((arg, index) => !arg.startsWith('--') && (topAt < 0 || index !== topAt + 1));
if (!file) {
    process.stderr.write('usage: node scripts/cpu-profile-summary.mjs PROFILE.cpuprofile [--top 30]\n');
    process.exit(1);
}
const profile = JSON.parse(readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parents = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);

/** Sampled microseconds per profile node. */
const sampled = new Map();
profile.samples.forEach((id, index) => sampled.set(id, (sampled.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));

const label = (node) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url ? `${url.split('/').slice(-2).join('/')}:${lineNumber + 1}` : '';
    return `${functionName || '(anonymous)'} ${where}`.trim();
};
const self = new Map();
const inclusive = new Map();
let total = 0;
for (const [id, micros] of sampled) {
    total += micros;
    const name = label(nodes.get(id));
    self.set(name, (self.get(name) ?? 0) + micros);
    // Each function once per sample, however deep its recursion.
    const seen = new Set();
    for (let at = id; at !== undefined; at = parents.get(at)) {
        const caller = label(nodes.get(at));
        if (seen.has(caller)) continue;
        seen.add(caller);
        inclusive.set(caller, (inclusive.get(caller) ?? 0) + micros);
    }
}
const print = (title, map) => {
    console.log(title);
    for (const [name, micros] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
        const ms = (micros / 1000).toFixed(0).padStart(8);
        const share = `${((micros / total) * 100).toFixed(1)}%`.padStart(6);
        console.log(`${ms} ms ${share}  ${name}`);
    }
};
console.log(`${(total / 1000).toFixed(0)} ms sampled in ${file}`);
print('self time:', self);
print('inclusive time:', inclusive);
