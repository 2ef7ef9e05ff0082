#!/usr/bin/env node
// Regenerates the golden outputs of every example (`examples/<name>/`) from its `.pidm` files, so that
// `scripts/check-generated.sh` can catch drift with `git diff --exit-code -- examples`.
//
//   node scripts/regenerate-examples.mjs              every example
//   node scripts/regenerate-examples.mjs airflights   only the named examples
//
// Runs the compiled pipeline in `out/` (`npm run build:ts` first). Outputs must be deterministic: no dates,
// no absolute paths, stable order. To add an output, add a step to `steps` below; a step writes its files
// into `example.dir` through `writeOutput` and throws a `StepError` when the example cannot be processed.
// A step that owns a whole folder should empty it first, so that an output that is no longer produced
// disappears (and check-generated.sh sees the deletion).
import './polyfills.mjs';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
process.chdir(root);
const { formatDiagnostic, loadWorkspace } = await import('../out/src/pipeline/load.js');

/** A failure of one step on one example: printed without a stack trace. */
class StepError extends Error {}

/**
 * Writes one output file of an example (path relative to the example's folder) with a final newline.
 * @param {Example} example
 * @param {string} file
 * @param {string} text
 */
async function writeOutput(example, file, text) {
    const path = join(example.dir, file);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text.endsWith('\n') ? text : `${text}\n`);
    console.log(`  wrote ${relative(root, path)}`);
}

/**
 * @typedef {{ name: string, dir: string, models: string[] }} Example
 *   `models`: the example's .pidm files, relative to the repository root, sorted.
 * @typedef {{ name: string, run: (example: Example) => Promise<void> }} Step
 */

/**
 * Writes a target's output for both dialects from the example's KVLM: examples/<name>/<target>/<dialect>/.
 * @param {Example} example
 * @param {string} target
 */
async function writeDialects(example, target) {
    const { generateFromKvlm } = await import('../out/src/pipeline/generate.js');
    const { writeOutputs } = await import('../out/src/generation/generation-writer.js');
    const kvlmPath = join(example.dir, `${example.name}.kvlm`);
    if (!existsSync(kvlmPath)) throw new StepError(`${kvlmPath} is missing (the M2M step writes it)`);
    const workspace = await loadWorkspace([kvlmPath]);
    const model = workspace.kvlm[0]?.model;
    if (workspace.hasErrors || !model) {
        throw new StepError(
            workspace.diagnostics
                .filter((d) => d.severity === 'error')
                .map(formatDiagnostic)
                .join('\n'),
        );
    }
    for (const dialect of ['redisearch2', 'redisearch1']) {
        let files;
        try {
            ({ files } = await generateFromKvlm(model, { target, targetOptions: { dialect } }));
        } catch (error) {
            throw new StepError(`${dialect}: ${error instanceof Error ? error.message : String(error)}`);
        }
        const dir = join(example.dir, target, dialect);
        await writeOutputs(dir, files);
        for (const file of files) console.log(`  wrote ${relative(root, join(dir, file.path))}`);
    }
}

/** @type {Step[]} The steps, in order; each runs on every example. */
const steps = [
    {
        // Every example must load without errors before anything is generated from it.
        name: 'validate',
        run: async (example) => {
            const workspace = await loadWorkspace(example.models);
            if (workspace.hasErrors) {
                const errors = workspace.diagnostics.filter((d) => d.severity === 'error');
                throw new StepError(errors.map(formatDiagnostic).join('\n'));
            }
        },
    },
    {
        // The M2M: <name>.kvlm, and explain.txt as `kvmod transform <model> --explain` prints it.
        name: 'transform',
        run: async (example) => {
            const { EXPLAINED_NEAR_MISSES, explainDecisions, transformFiles } =
                await import('../out/src/pipeline/transform.js');
            const result = await transformFiles(example.models, {
                sourceName: relative(example.dir, example.models[0]),
                closestPairs: EXPLAINED_NEAR_MISSES,
            });
            if (result.kvlmText === undefined) {
                throw new StepError(
                    result.diagnostics
                        .filter((d) => d.severity === 'error')
                        .map(formatDiagnostic)
                        .join('\n'),
                );
            }
            await writeOutput(example, `${example.name}.kvlm`, result.kvlmText);
            await writeOutput(
                example,
                'explain.txt',
                explainDecisions(result.decisions, result.options, result.nearMisses),
            );
        },
    },
    {
        // The Redis scripts of both dialects from the example's KVLM: examples/<name>/redis/<dialect>/.
        name: 'redis',
        run: (example) => writeDialects(example, 'redis'),
    },
    {
        // The typed TypeScript client of both dialects from the example's KVLM: examples/<name>/typescript/<dialect>/
        // (client.ts and the run-time files under kvmod/). The folder is emptied first.
        name: 'typescript',
        run: async (example) => {
            await rm(join(example.dir, 'typescript'), { recursive: true, force: true });
            await writeDialects(example, 'typescript');
        },
    },
    {
        // The core-Redis design (function library, calls, README) from the example's KVLM: examples/<name>/redis-core/.
        name: 'redis-core',
        run: async (example) => {
            const { generateFromKvlm } = await import('../out/src/pipeline/generate.js');
            const { writeOutputs } = await import('../out/src/generation/generation-writer.js');
            const workspace = await loadWorkspace([join(example.dir, `${example.name}.kvlm`)]);
            const model = workspace.kvlm[0]?.model;
            if (workspace.hasErrors || !model) throw new StepError(`${example.name}.kvlm does not load`);
            let files;
            try {
                ({ files } = await generateFromKvlm(model, { target: 'redis-core' }));
            } catch (error) {
                throw new StepError(`redis-core: ${error instanceof Error ? error.message : String(error)}`);
            }
            const dir = join(example.dir, 'redis-core');
            await rm(dir, { recursive: true, force: true });
            await writeOutputs(dir, files);
            for (const file of files) console.log(`  wrote ${relative(root, join(dir, file.path))}`);
        },
    },
    {
        // The design report (Markdown + Mermaid) from the example's .pidm: examples/<name>/report/report.md for the
        // redis design (the default), report-redis-core.md for `--design redis-core`.
        name: 'report',
        run: async (example) => {
            const { generateFromKvlm } = await import('../out/src/pipeline/generate.js');
            const { loadDesign } = await import('../out/src/pipeline/design.js');
            const dir = join(example.dir, 'report');
            await rm(dir, { recursive: true, force: true });
            for (const [design, name] of [
                ['redis', 'report.md'],
                ['redis-core', 'report-redis-core.md'],
            ]) {
                let files;
                try {
                    const model = await loadDesign(example.models, { sourceModel: 'if-named' });
                    ({ files } = await generateFromKvlm(model, { target: 'report', targetOptions: { design } }));
                } catch (error) {
                    throw new StepError(
                        `report (${design}): ${error instanceof Error ? error.message : String(error)}`,
                    );
                }
                if (files.length !== 1 || files[0].path !== 'report.md')
                    throw new StepError(`report (${design}): expected report.md alone`);
                await writeOutput(example, join('report', name), files[0].content);
            }
        },
    },
];

/** @returns {Promise<Example[]>} */
async function findExamples(only) {
    const examples = [];
    for (const entry of (await readdir('examples', { withFileTypes: true })).sort((a, b) =>
        a.name < b.name ? -1 : 1,
    )) {
        if (!entry.isDirectory() || (only.length > 0 && !only.includes(entry.name))) continue;
        const dir = join('examples', entry.name);
        const models = (await readdir(dir))
            .filter((file) => file.endsWith('.pidm'))
            .sort()
            .map((file) => join(dir, file));
        if (models.length > 0) examples.push({ name: entry.name, dir, models });
    }
    const missing = only.filter((name) => !examples.some((example) => example.name === name));
    if (missing.length > 0) throw new StepError(`no such example: ${missing.join(', ')}`);
    return examples;
}

try {
    let failed = 0;
    for (const example of await findExamples(process.argv.slice(2))) {
        console.log(`${example.name}:`);
        for (const step of steps) {
            try {
                await step.run(example);
            } catch (error) {
                if (!(error instanceof StepError)) throw error;
                console.error(`  ${step.name} failed:\n${error.message.replace(/^/gm, '    ')}`);
                failed++;
                break;
            }
        }
    }
    process.exitCode = failed > 0 ? 1 : 0;
} catch (error) {
    // A StepError is the user's problem (message only); anything else is a bug in a step (show the stack).
    console.error(
        `regenerate-examples: ${error instanceof StepError ? error.message : (error?.stack ?? String(error))}`,
    );
    process.exitCode = 1;
}
