/**
 * The actions of `kvmod templates list` and `kvmod templates eject`. Loaded by the command's handlers only
 * when they run.
 */
import { generationTargets, getGenerationTarget } from '../generation/generation-targets.js';
import { ejectTemplates, resolveTemplates } from '../generation/generation-templates.js';
import { GenerationError } from '../generation/generation-errors.js';
import { KvmodError } from '../pipeline/errors.js';
import { processIo, type CliIo } from './cli-io.js';
import { describeTargetOptions } from './target-options.js';

/**
 * Lists every target: its description, engine, options (as `generate` takes them) and templates (with
 * `templatesDir`, which user files override which).
 */
export async function runTemplatesList(args: { templates?: string }, io: CliIo = processIo): Promise<number> {
    for (const target of generationTargets.values()) {
        io.out(`${target.name}: ${target.description}\n`);
        io.out(`  engine: ${target.engine ?? 'none (load and verify do not apply)'}\n`);
        const options = describeTargetOptions(target.name);
        io.out(`  options:${options.length === 0 ? ' none' : ''}\n`);
        for (const line of options) io.out(`    ${line}\n`);
        if (target.outputFolderOption)
            io.out(`  output: <out>/<database>/${target.name}/<${target.outputFolderOption.flag}>/\n`);
        else io.out(`  output: <out>/<database>/${target.name}/\n`);
        if (!target.hasTemplates) continue;
        io.out('  templates:\n');
        const { templates, notices } = await userFacing(() => resolveTemplates(target.name, args.templates));
        for (const source of templates.values()) {
            const role = source.name.startsWith('partials/') ? 'partial' : 'entry';
            io.out(`    ${source.name}  (${role}, ${source.origin === 'user' ? 'user: ' : ''}${source.displayPath})\n`);
        }
        for (const notice of notices) io.err(`kvmod: ${notice}\n`);
    }
    return 0;
}

/** Copies a target's built-in templates (all, or the named ones) into a folder (keeps existing files unless `force`). */
export async function runTemplatesEject(
    args: { target: string; dir: string; templates?: string[]; force?: boolean },
    io: CliIo = processIo,
): Promise<number> {
    const target = await userFacing(async () => getGenerationTarget(args.target));
    const { copied, skipped } = await userFacing(() =>
        ejectTemplates(target.name, args.dir, args.force ?? false, args.templates ?? []),
    );
    for (const name of copied) io.out(`${args.dir}/${name}\n`);
    for (const name of skipped) io.err(`kvmod: kept existing ${args.dir}/${name} (use --force to overwrite)\n`);
    io.err(
        `${copied.length} template${copied.length === 1 ? '' : 's'} copied to ${args.dir}; use them with: kvmod generate … --templates ${args.dir}\n`,
    );
    return 0;
}

async function userFacing<T>(action: () => Promise<T>): Promise<T> {
    try {
        return await action();
    } catch (error) {
        if (error instanceof GenerationError) throw new KvmodError(error.message, { code: error.code });
        throw error;
    }
}
