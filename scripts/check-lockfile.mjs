#!/usr/bin/env node
// Checks that the committed package-lock.json pins what `npm install` put in node_modules on this machine.
//
//   node scripts/check-lockfile.mjs <committed package-lock.json> [node_modules/.package-lock.json] [package.json]
//
// Why not `git diff package-lock.json` after `npm install`: npm writes or drops the entries of other
// platforms' optional packages (@unrs/resolver-binding-*, @esbuild/*) depending on whether the registry
// serves them that day, so the file changes while nothing installed here does. Why not `npm ci`: with a
// lockfile written on a day the registry did not serve them, `npm ci` refuses that same lockfile
// ("Missing: … from lock file", npm/cli#9846). What matters is the same either way and is what this checks:
//   1. the lockfile's root entry asks for exactly the ranges package.json asks for (npm ci's own "in sync");
//   2. every package installed here (npm's hidden lockfile, node_modules/.package-lock.json) is in the
//      committed lockfile at the same place, with the same version and the same integrity;
//   3. every package of the committed lockfile that was not installed here is optional (another platform's).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'];

/**
 * The differences that matter between a committed lockfile and what npm installed, as sentences (none: in sync).
 * @param {any} committed the committed package-lock.json
 * @param {any} installed node_modules/.package-lock.json, as npm wrote it after installing
 * @param {any} manifest package.json
 * @returns {string[]}
 */
export function lockfileProblems(committed, installed, manifest) {
    const problems = [];
    const locked = committed?.packages;
    const present = installed?.packages;
    if (!locked || typeof locked !== 'object')
        return ['package-lock.json has no "packages" map (lockfileVersion 2 or 3 is needed)'];
    if (!present || typeof present !== 'object')
        return ['node_modules/.package-lock.json has no "packages" map: run npm install first'];

    const root = locked[''] ?? {};
    for (const field of DEPENDENCY_FIELDS) {
        const wanted = manifest[field] ?? {};
        const pinned = root[field] ?? {};
        for (const name of new Set([...Object.keys(wanted), ...Object.keys(pinned)])) {
            if (wanted[name] !== pinned[name]) {
                problems.push(
                    `${field}.${name}: package.json asks for ${wanted[name] ?? 'nothing'}, the lockfile for ${pinned[name] ?? 'nothing'}`,
                );
            }
        }
    }

    for (const [path, entry] of Object.entries(present)) {
        if (path === '' || entry.link) continue;
        const pin = locked[path];
        if (!pin) {
            problems.push(`${path}@${entry.version} is installed but not in the lockfile`);
        } else if (pin.version !== entry.version) {
            problems.push(`${path} is installed at ${entry.version}, the lockfile pins ${pin.version}`);
        } else if (pin.integrity && entry.integrity && pin.integrity !== entry.integrity) {
            problems.push(`${path}@${entry.version} was installed with another integrity than the lockfile's`);
        }
    }

    for (const [path, pin] of Object.entries(locked)) {
        if (path === '' || path in present || pin.link) continue;
        if (!pin.optional && !pin.devOptional) {
            problems.push(`${path}@${pin.version} is in the lockfile but was not installed (and is not optional)`);
        }
    }
    return problems;
}

function readJson(path) {
    return JSON.parse(readFileSync(path, 'utf8'));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
    const [committedPath, installedPath = 'node_modules/.package-lock.json', manifestPath = 'package.json'] =
        process.argv.slice(2);
    if (!committedPath) {
        console.error(
            'usage: node scripts/check-lockfile.mjs <committed package-lock.json> [installed lockfile] [package.json]',
        );
        process.exit(2);
    }
    const problems = lockfileProblems(readJson(committedPath), readJson(installedPath), readJson(manifestPath));
    if (problems.length > 0) {
        console.error(`package-lock.json does not pin what npm installed (${problems.length} difference(s)):`);
        for (const problem of problems.slice(0, 40)) console.error(`  ${problem}`);
        if (problems.length > 40) console.error(`  … and ${problems.length - 40} more`);
        console.error("run 'npm install' and commit package-lock.json as npm writes it");
        process.exit(1);
    }
    const installedCount = Object.keys(readJson(installedPath).packages).length - 1;
    console.log(`package-lock.json pins the ${installedCount} packages installed here (versions and integrity)`);
}
