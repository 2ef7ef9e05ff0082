/** The kvmod version a generated client records (`KVMOD_VERSION`), read from the package's package.json. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../generation-paths.js';

/** The version in kvmod's package.json. */
export function kvmodVersion(): string {
    const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
}
