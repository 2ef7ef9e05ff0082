// Bundles the command line (out/src/cli/main.js, as tsc compiled it) into out/cli/: main.js and the chunks it
// imports. Start-up was mostly Node resolving, reading and compiling ~520 small ES modules (Langium, Chevrotain,
// lodash-es, yargs…); the bundle is a few files. The code is tsc's output, not the TypeScript sources, so the
// bundle runs exactly what out/src runs. bin/kvmod.js runs the bundle when it is at least as new as
// out/src/cli/main.js, else out/src (see the comment there). Run after tsc (`npm run build:ts` does both).
//
//   node scripts/build-cli-bundle.mjs
//
// ESM with code splitting: each lazy `await import()` of the sources (a command's action module, the engines,
// the config loader) stays a lazy chunk, so `kvmod --help` still loads none of the heavy dependencies. Not
// minified: stack traces (KVMOD_DEBUG=1) keep function names and readable code, and linked source maps lead
// back to src/*.ts (bin/kvmod.js enables them under KVMOD_DEBUG); the npm package ships no maps.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { buildInPlace, nodeBundleOptions, root } from './esbuild-common.mjs';

const entry = 'out/src/cli/main.js';
const outdir = join(root, 'out/cli');

/**
 * Packages left to Node (installed dependencies, resolved from out/cli/ as from out/src/): they load lazily and
 * would break or bloat the bundle.
 * - jiti (a `kvmod.config.ts`): its ESM entry loads its build with createRequire(import.meta.url), which a
 *   bundle cannot follow; it transpiles the user's config at run time anyway.
 * - ts-morph and typescript (the TypeScript target only): 14 MB that no other command needs.
 */
const external = ['jiti', 'ts-morph', 'typescript'];

/**
 * yargs finds its locales (`--help` in the user's language) and the package.json of the program from the URL
 * of its platform shim: bundled, that URL is out/cli's. The shim asks Node where the installed yargs is instead
 * (yargs stays a dependency), so messages, locales and lookups are those of the unbundled run.
 */
const yargsShimLocation = {
    name: 'yargs-shim-location',
    setup(plugin) {
        plugin.onLoad({ filter: /[\\/]yargs[\\/]lib[\\/]platform-shims[\\/]esm\.mjs$/ }, async (args) => {
            const source = await readFile(args.path, 'utf8');
            if (!source.includes('import.meta.url'))
                throw new Error(`${args.path} no longer reads import.meta.url: review the yargs-shim-location plugin`);
            const located =
                "const __yargsShimUrl = new URL('lib/platform-shims/esm.mjs', import.meta.resolve('yargs/package.json')).href;\n";
            return applied('yargs-shim-location', {
                contents: located + source.replaceAll('import.meta.url', '__yargsShimUrl'),
                loader: 'js',
            });
        });
    },
};

/**
 * yargs renders a command's whole help text before it runs the command's handler (usage.js `cacheHelpMessage`,
 * called from command.js), in case a failure reported later needs it once the command's options are gone from
 * yargs' state; a command that runs and succeeds never shows it. Laying the text out (cliui wrapping every
 * option's description, measuring every string) took ~20 ms of every command's start-up. The help's rows are
 * still collected at that moment, from the same state; only turning them into text waits until the help is
 * shown (the first `help()` call renders the cached rows once). The rows are plain strings in a cliui object
 * that nothing else holds, so the text is the same whenever it is rendered.
 */
const yargsLazyHelpText = {
    name: 'yargs-lazy-help-text',
    setup(plugin) {
        plugin.onLoad({ filter: /[\\/]yargs[\\/]build[\\/]lib[\\/]usage\.js$/ }, async (args) => {
            const source = await readFile(args.path, 'utf8');
            const edits = [
                [
                    'self.help = function help() {\n        if (cachedHelpMessage)\n',
                    "self.help = function help(lazy) {\n        if (typeof cachedHelpMessage === 'function')\n            cachedHelpMessage = cachedHelpMessage();\n        if (cachedHelpMessage)\n",
                ],
                [
                    "return ui.toString().replace(/\\s*$/, '');",
                    "const render = () => ui.toString().replace(/\\s*$/, '');\n        return lazy === __kvmodLazyHelp ? render : render();",
                ],
                ['cachedHelpMessage = this.help();', 'cachedHelpMessage = this.help(__kvmodLazyHelp);'],
            ];
            let contents = "const __kvmodLazyHelp = Symbol('lazy help');\n" + source;
            for (const [from, to] of edits) {
                if (contents.split(from).length !== 2)
                    throw new Error(
                        `${args.path} changed (${JSON.stringify(from)}): review the yargs-lazy-help-text plugin`,
                    );
                contents = contents.replace(from, () => to);
            }
            // Read in exactly the places the edits know (help, cacheHelpMessage, clearCachedHelpMessage,
            // hasCachedHelpMessage): a new reader would get a function where it expects the text.
            if (source.match(/\bcachedHelpMessage\b/g)?.length !== 6)
                throw new Error(
                    `${args.path} reads cachedHelpMessage elsewhere: review the yargs-lazy-help-text plugin`,
                );
            return applied('yargs-lazy-help-text', { contents, loader: 'js' });
        });
    },
};

/**
 * string-width's ES module versions (yargs', cliui's and wrap-ansi's copies, all for laying out help text) builds an
 * Intl.Segmenter and Unicode-property regular expressions (`\\p{RGI_Emoji}` with the `v` flag) when its module
 * is evaluated: ~10–15 ms of every command's start-up (ICU data, a large character set) for text that only
 * `--help` and a usage error lay out; yet yargs measures the option names of a command's help before running
 * it. In the bundle, the module's body runs the first time `stringWidth` measures a string that is not
 * printable ASCII: the same code, the same values, later. Printable ASCII (U+0020–U+007E) is one column a
 * character in all three versions (string-width 8 answers it so itself, before any segmenting): its length.
 */
const lazyStringWidth = {
    name: 'lazy-string-width',
    setup(plugin) {
        plugin.onLoad({ filter: /[\\/]string-width[\\/]index\.js$/ }, async (args) => {
            const source = await readFile(args.path, 'utf8');
            // The CommonJS string-width of cli-progress (version 4) builds nothing up front; a bundled CommonJS
            // module runs when first required anyway.
            if (!source.includes('export default')) return undefined;
            const lines = source.split('\n');
            const imports = lines.filter((line) => line.startsWith('import '));
            const body = lines.filter((line) => !line.startsWith('import '));
            const declaration = 'export default function stringWidth(';
            const shapeChanged =
                lines.findIndex((line) => !line.startsWith('import ')) !== imports.length ||
                imports.some((line) => !line.endsWith(';')) ||
                source.split(declaration).length !== 2 ||
                source.split('export ').length !== 2;
            if (shapeChanged) throw new Error(`${args.path} changed shape: review the lazy-string-width plugin`);
            const contents = [
                ...imports,
                'let __stringWidth;',
                'export default function stringWidth(string, options) {',
                "    if (typeof string === 'string' && /^[\\u0020-\\u007E]*$/.test(string)) return string.length;",
                '    __stringWidth ??= __loadStringWidth();',
                '    return __stringWidth(string, options);',
                '}',
                'function __loadStringWidth() {',
                ...body.map((line) => line.replace(declaration, 'function stringWidth(')),
                'return stringWidth;',
                '}',
            ].join('\n');
            return applied('lazy-string-width', { contents, loader: 'js' });
        });
    },
};

/**
 * fdir (tinyglobby's directory crawler) requires picomatch when its module is evaluated, in case a caller asks
 * fdir itself to match globs (`.glob()` without a glob function of its own); tinyglobby never does (it matches
 * with the picomatch bundled here). In the bundle that require goes to Node's loader, which resolves, reads and
 * compiles picomatch's files on every command that expands file arguments (~8 ms). In the bundle fdir requires it
 * the first time `.glob()` needs it: the same outcome for such a caller, nothing for the others.
 */
const fdirLazyPicomatch = {
    name: 'fdir-lazy-picomatch',
    setup(plugin) {
        plugin.onLoad({ filter: /[\\/]fdir[\\/]dist[\\/]index\.mjs$/ }, async (args) => {
            const source = await readFile(args.path, 'utf8');
            const edits = [
                [
                    'let pm = null;\n/* c8 ignore next 6 */\ntry {\n\t__require.resolve("picomatch");\n\tpm = __require("picomatch");\n} catch {}',
                    'let pm;\nfunction __kvmodPicomatch() {\n\tif (pm !== undefined) return pm;\n\tpm = null;\n\ttry {\n\t\t__require.resolve("picomatch");\n\t\tpm = __require("picomatch");\n\t} catch {}\n\treturn pm;\n}',
                ],
                ['const globFn = this.globFunction || pm;', 'const globFn = this.globFunction || __kvmodPicomatch();'],
            ];
            let contents = source;
            for (const [from, to] of edits) {
                if (contents.split(from).length !== 2)
                    throw new Error(
                        `${args.path} changed (${JSON.stringify(from)}): review the fdir-lazy-picomatch plugin`,
                    );
                contents = contents.replace(from, () => to);
            }
            if (/\bpm\b/.test(contents.replace(/let pm;|pm !== undefined|return pm;|pm = null;|pm = __require/g, '')))
                throw new Error(`${args.path} reads picomatch elsewhere: review the fdir-lazy-picomatch plugin`);
            return applied('fdir-lazy-picomatch', { contents, loader: 'js' });
        });
    },
};

/**
 * Langium's core imports five names from the language server protocol package (vscode-languageserver-protocol), whose
 * entry module loads the whole protocol and JSON-RPC connection (~40 CommonJS modules, ~220 KB of the bundle that
 * every command compiled and ran at start-up, ~6 ms on Node 20): `CancellationToken`, `CancellationTokenSource` and
 * `Emitter` (langium/lib/utils/cancellation.js, event.js), `ResponseError` and `LSPErrorCodes`
 * (workspace/document-builder.js). The protocol package only re-exports the first four from vscode-jsonrpc's
 * modules: in the bundle those three Langium files import them from those modules (the very objects, as the
 * protocol's copy of vscode-jsonrpc is the one bundled), and `LSPErrorCodes` is the protocol's own constant, copied
 * from the installed package when the bundle is built. esbuild refuses the build if Langium imports a name the
 * stand-in lacks; the build also stops unless each re-exported name is, in vscode-jsonrpc's module, the very object
 * the protocol exports (esbuild cannot check names a CommonJS module exports: a renamed one would be `undefined`).
 * The protocol is the one Langium resolves (a nested copy would win over the top-level one). The editor's language
 * server (build-extension.mjs) keeps the whole protocol.
 */
const LEAN_PROTOCOL_MODULES = {
    'cancellation.js': ['CancellationToken', 'CancellationTokenSource'],
    'events.js': ['Emitter'],
    'messages.js': ['ResponseError'],
};
const leanProtocol = {
    name: 'lean-protocol',
    setup(plugin) {
        plugin.onResolve({ filter: /^vscode-languageserver-protocol$/ }, (args) => {
            if (!/[\\/]node_modules[\\/]langium[\\/]lib[\\/](utils|workspace)[\\/]/.test(args.importer))
                return undefined;
            const path = createRequire(args.importer).resolve('vscode-languageserver-protocol');
            return applied('lean-protocol', { path, namespace: 'kvmod-lean-protocol' });
        });
        plugin.onLoad({ filter: /.*/, namespace: 'kvmod-lean-protocol' }, (args) => {
            const require = createRequire(args.path);
            const protocol = require(args.path);
            // vscode-jsonrpc's main module (lib/node/main.js) sits beside lib/common, where the three modules are.
            const common = join(dirname(require.resolve('vscode-jsonrpc')), '..', 'common');
            const contents = [];
            for (const [file, names] of Object.entries(LEAN_PROTOCOL_MODULES)) {
                const module = require(join(common, file));
                for (const name of names)
                    if (module[name] === undefined || module[name] !== protocol[name])
                        throw new Error(
                            `vscode-jsonrpc's ${file} no longer exports the protocol's ${name}: review the lean-protocol plugin`,
                        );
                contents.push(`export { ${names.join(', ')} } from './${file}';`);
            }
            if (typeof protocol.LSPErrorCodes !== 'object' || protocol.LSPErrorCodes === null)
                throw new Error(
                    'vscode-languageserver-protocol exports no LSPErrorCodes: review the lean-protocol plugin',
                );
            contents.push(`export const LSPErrorCodes = ${JSON.stringify(protocol.LSPErrorCodes)};`);
            return { resolveDir: common, loader: 'js', contents: contents.join('\n') };
        });
    },
};

/**
 * Each plugin below must patch at least one file of the build: one whose file moved (a new version of the package)
 * would otherwise match nothing and leave the bundle without its edit, silently. Counted by plugin name.
 */
const patched = new Map();
const applied = (name, result) => {
    patched.set(name, (patched.get(name) ?? 0) + 1);
    return result;
};
const patchingPlugins = [yargsShimLocation, yargsLazyHelpText, lazyStringWidth, fdirLazyPicomatch, leanProtocol];

if (!existsSync(join(root, entry))) {
    process.stderr.write(`build-cli-bundle: ${entry} is missing: compile first (npm run build:ts)\n`);
    process.exit(1);
}

await buildInPlace(
    outdir,
    [
        {
            ...nodeBundleOptions,
            entryPoints: { main: entry },
            outdir,
            format: 'esm',
            splitting: true,
            external,
            plugins: patchingPlugins,
            // Bundled CommonJS packages (vscode-languageserver, ajv, node-redis…) call require() for Node's modules.
            banner: {
                js: "import { createRequire as __kvmodCreateRequire } from 'node:module'; const require = __kvmodCreateRequire(import.meta.url);",
            },
            sourcemap: 'linked',
            sourcesContent: false,
        },
    ],
    { last: ['main.js.map', 'main.js'], prune: true },
);
const unapplied = patchingPlugins.map((plugin) => plugin.name).filter((name) => !patched.has(name));
if (unapplied.length > 0) {
    process.stderr.write(
        `build-cli-bundle: the ${unapplied.join(', ')} plugin patched no file (did the package move it?): review it\n`,
    );
    process.exit(1);
}
