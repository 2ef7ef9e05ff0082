#!/usr/bin/env node
// Regenerates the golden outputs of every example (`examples/<name>/`) from its `.pidm` files, so that
// `scripts/check-generated.sh` can catch drift with `git diff --exit-code -- examples`.
//
//   node scripts/regenerate-examples.mjs              every example
//   node scripts/regenerate-examples.mjs airflights   only the named examples
//
// Runs the compiled pipeline in `out/` (`npm run build:ts` first). Outputs must be deterministic: no dates,
// no absolute paths, stable order. Every target in the registry (src/generation/generation-targets.ts) gets a
// step of its own: a new target's goldens appear without an edit here. Another output is a step in `steps`
// below; a step writes its files into `example.dir` through `writeOutput` and throws a `StepError` when the
// example cannot be processed. A step that owns a whole folder empties it first, so that an output that is no
// longer produced disappears (and check-generated.sh sees the deletion).
import './polyfills.mjs';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
process.chdir(root);
const { formatDiagnostic, loadWorkspace } = await import('../out/src/pipeline/load.js');
const { generationTargets } = await import('../out/src/generation/generation-targets.js');

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
 * Writes a target's output for the example below examples/<name>/<target>/ (emptied first, so that a file no longer
 * produced disappears): one folder per output variant (`redis/redisearch2`, `redis/redisearch1`), as `kvmod
 * generate` lays them out. A target that reads the source model designs from the example's .pidm files; the others
 * from the KVLM the transform step wrote.
 * @param {Example} example
 * @param {import('../out/src/generation/generation-targets.js').RegisteredTarget} target
 */
async function writeTarget(example, target) {
    const { generateFromKvlm } = await import('../out/src/pipeline/generate.js');
    const { loadDesign } = await import('../out/src/pipeline/design.js');
    const { writeOutputs } = await import('../out/src/generation/generation-writer.js');
    const { targetVariants } = await import('../out/src/generation/generation-targets.js');
    const kvlmPath = join(example.dir, `${example.name}.kvlm`);
    if (!target.usesSourceModel && !existsSync(kvlmPath))
        throw new StepError(`${kvlmPath} is missing (the transform step writes it)`);
    let design;
    try {
        design = target.usesSourceModel
            ? await loadDesign(example.models, { sourceModel: 'if-named' })
            : await loadDesign(kvlmPath);
    } catch (error) {
        throw new StepError(error instanceof Error ? error.message : String(error));
    }
    await rm(join(example.dir, target.name), { recursive: true, force: true });
    for (const { options, folder } of targetVariants(target)) {
        let files;
        try {
            ({ files } = await generateFromKvlm(design, { target: target.name, targetOptions: options }));
        } catch (error) {
            throw new StepError(`${folder.join('/')}: ${error instanceof Error ? error.message : String(error)}`);
        }
        const dir = join(example.dir, ...folder);
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
    // Then every registered target's output, in the registry's order.
    ...[...generationTargets.values()].map((target) => ({
        name: target.name,
        run: (example) => writeTarget(example, target),
    })),
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
