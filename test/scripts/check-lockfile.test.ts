/**
 * CI's lockfile check (scripts/check-lockfile.mjs) passes whichever way the registry answered for other platforms'
 * optional packages, and fails when what this machine installs is not what the lockfile pins.
 */
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../cli/run-kvmod.js';

const SCRIPT = join(REPO_ROOT, 'scripts/check-lockfile.mjs');

const manifest = { name: 'app', dependencies: { lib: '1.2.3' }, devDependencies: { tool: '^2.0.0' } };

/** A package that installs here, and its optional native binding for this platform and for another. */
const shared = {
    'node_modules/lib': { version: '1.2.3', integrity: 'sha512-lib' },
    'node_modules/tool': { version: '2.1.0', integrity: 'sha512-tool', dev: true },
    'node_modules/tool-binding-linux-x64': { version: '2.1.0', integrity: 'sha512-linux', dev: true, optional: true },
};
const otherPlatform = {
    'node_modules/tool-binding-darwin-arm64': {
        version: '2.1.0',
        integrity: 'sha512-darwin',
        dev: true,
        optional: true,
    },
};

function lockfile(packages: Record<string, object>, root: object = manifest): object {
    const { name: _name, ...ranges } = root as Record<string, unknown>;
    return { name: 'app', lockfileVersion: 3, requires: true, packages: { '': ranges, ...packages } };
}

/** Runs the check on the three files as given; answers its exit status and what it printed. */
function check(
    committed: object,
    installed: object,
    pkg: object = manifest,
): { status: number | null; output: string } {
    const dir = mkdtempSync(join(tmpdir(), 'kvmod-lock-'));
    try {
        writeFileSync(join(dir, 'committed.json'), JSON.stringify(committed));
        writeFileSync(join(dir, 'installed.json'), JSON.stringify(installed));
        writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg));
        const run = spawnSync(process.execPath, [SCRIPT, 'committed.json', 'installed.json', 'package.json'], {
            cwd: dir,
            encoding: 'utf8',
        });
        return { status: run.status, output: run.stdout + run.stderr };
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
}

const installedHere = lockfile(shared);

describe('the lockfile check', () => {
    it('passes a lockfile that lists other platforms’ optional packages (the registry served them)', () => {
        expect(check(lockfile({ ...shared, ...otherPlatform }), installedHere)).toEqual({
            status: 0,
            output: 'package-lock.json pins the 3 packages installed here (versions and integrity)\n',
        });
    });

    it('passes a lockfile that leaves them out (the registry did not serve them)', () => {
        expect(check(lockfile(shared), installedHere).status).toBe(0);
    });

    it('fails when a package installed here has another version than the pinned one', () => {
        const installed = lockfile({ ...shared, 'node_modules/lib': { version: '1.2.4', integrity: 'sha512-lib2' } });
        const run = check(lockfile(shared), installed);
        expect(run.status).toBe(1);
        expect(run.output).toContain('node_modules/lib is installed at 1.2.4, the lockfile pins 1.2.3');
    });

    it('fails when the same version was installed from another tarball', () => {
        const installed = lockfile({ ...shared, 'node_modules/lib': { version: '1.2.3', integrity: 'sha512-other' } });
        const run = check(lockfile(shared), installed);
        expect(run.status).toBe(1);
        expect(run.output).toContain('node_modules/lib@1.2.3 was installed with another integrity');
    });

    it('fails when a package installed here is missing from the lockfile', () => {
        const committed = lockfile({
            'node_modules/lib': shared['node_modules/lib'],
            'node_modules/tool': shared['node_modules/tool'],
        });
        const run = check(committed, installedHere);
        expect(run.status).toBe(1);
        expect(run.output).toContain('node_modules/tool-binding-linux-x64@2.1.0 is installed but not in the lockfile');
    });

    it('fails when the lockfile pins a package that is not optional and was not installed', () => {
        const run = check(
            lockfile({ ...shared, 'node_modules/stale': { version: '0.1.0', integrity: 'x' } }),
            installedHere,
        );
        expect(run.status).toBe(1);
        expect(run.output).toContain(
            'node_modules/stale@0.1.0 is in the lockfile but was not installed (and is not optional)',
        );
    });

    it('fails when package.json asks for other ranges than the lockfile’s root', () => {
        const changed = { ...manifest, dependencies: { lib: '1.3.0' } };
        const run = check(lockfile(shared), installedHere, changed);
        expect(run.status).toBe(1);
        expect(run.output).toContain('dependencies.lib: package.json asks for 1.3.0, the lockfile for 1.2.3');
    });

    it('passes the repository’s own lockfile against what npm installed here', () => {
        const run = spawnSync(process.execPath, [SCRIPT, 'package-lock.json'], { cwd: REPO_ROOT, encoding: 'utf8' });
        expect(run.stderr).toBe('');
        expect(run.status).toBe(0);
    });
});
