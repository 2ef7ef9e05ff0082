// Bundles the VS Code client and the language server as CommonJS (`dist/*.cjs`): VS Code loads extensions
// with require(), and the package is "type": "module", so the bundles must say .cjs. The server bundle
// starts with the Object.groupBy polyfill because Langium's parser needs it and VS Code may run Node 20.
//
//   node scripts/build-extension.mjs               development bundles with source maps
//   node scripts/build-extension.mjs --production  minified bundles
//   node scripts/build-extension.mjs --package     production bundles, then `vsce package` → kvmod-<version>.vsix
//   --outdir <dir>                                 bundles (and the .vsix) go to <dir> instead of dist/ (and the root)
//
// Packaging runs vsce in a staging folder (<outdir>/vsix): package.json's "files" list is for the npm package
// (the CLI), and vsce refuses a manifest that has both "files" and a .vscodeignore.
import { spawnSync } from 'node:child_process';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildInPlace, nodeBundleOptions, root } from './esbuild-common.mjs';

const packaging = process.argv.includes('--package');
const production = packaging || process.argv.includes('--production');
const outdirFlag = process.argv.indexOf('--outdir');
const outdir = outdirFlag > 0 ? resolve(process.argv[outdirFlag + 1]) : join(root, 'dist');
const polyfill = await readFile(join(root, 'scripts/polyfills.mjs'), 'utf8');

// Bundled ESM code that asks `import.meta.url` (e.g. to find the built-in templates) gets the bundle's
// own file URL; code locating files next to its sources must walk up to package.json instead.
const importMetaBanner = "var __kvmod_import_meta_url = require('url').pathToFileURL(__filename).href;";
const common = {
    ...nodeBundleOptions,
    format: 'cjs',
    sourcemap: !production,
    minify: production,
    define: { 'import.meta.url': '__kvmod_import_meta_url' },
    // jiti's ESM entry loads its Babel build with createRequire(import.meta.url), which a bundle cannot follow;
    // its CommonJS entry require()s it by a literal path that esbuild bundles (loaded only for a .ts config).
    alias: { ...nodeBundleOptions.alias, jiti: './node_modules/jiti/lib/jiti.cjs' },
};

// Bundles are built in a private folder and renamed into place (buildInPlace).
await buildInPlace(outdir, [
    {
        ...common,
        entryPoints: ['src/extension/main.ts'],
        outfile: join(outdir, 'extension.cjs'),
        external: ['vscode'],
        banner: { js: importMetaBanner },
    },
    {
        ...common,
        entryPoints: ['src/extension/server-main.ts'],
        outfile: join(outdir, 'server.cjs'),
        banner: { js: `${polyfill}\n${importMetaBanner}` },
    },
]);

if (packaging) {
    const stage = join(outdir, 'vsix');
    await rm(stage, { recursive: true, force: true });
    await mkdir(join(stage, 'dist'), { recursive: true });
    const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
    // The npm package's entry points are the library (lib/); the extension's is the client bundle.
    manifest.main = './dist/extension.cjs';
    // The lowest VS Code the extension runs on: the API it is compiled against (vsce refuses an @types/vscode
    // newer than it). An engine of the extension only: in the npm package's manifest npm would check it, and
    // warn EBADENGINE on every install of the command line.
    manifest.engines = { ...manifest.engines, vscode: `^${manifest.devDependencies['@types/vscode']}` };
    delete manifest.types;
    delete manifest.exports;
    delete manifest.files;
    delete manifest.scripts;
    delete manifest.devDependencies;
    delete manifest.dependencies;
    delete manifest.bin;
    await writeFile(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    for (const bundle of ['extension.cjs', 'server.cjs']) await cp(join(outdir, bundle), join(stage, 'dist', bundle));
    for (const file of ['LICENSE', '.vscodeignore']) await cp(join(root, file), join(stage, file));
    for (const folder of ['syntaxes', 'language-configuration', 'templates', 'schemas']) {
        if (existsSync(join(root, folder))) await cp(join(root, folder), join(stage, folder), { recursive: true });
    }
    // The extension's page shows the editor guide, not the project README.
    const readme = existsSync(join(root, 'docs/editor.md')) ? 'docs/editor.md' : 'README.md';
    if (existsSync(join(root, readme))) await cp(join(root, readme), join(stage, 'README.md'));
    const out = join(outdirFlag > 0 ? outdir : root, `${manifest.name}-${manifest.version}.vsix`);
    const vsce = join(root, 'node_modules/@vscode/vsce/vsce');
    const result = spawnSync(
        process.execPath,
        [
            vsce,
            'package',
            '--no-dependencies',
            '--allow-missing-repository',
            '--no-rewrite-relative-links',
            '--out',
            out,
        ],
        { cwd: stage, stdio: 'inherit' },
    );
    if (result.status !== 0) process.exit(result.status ?? 1);
}
