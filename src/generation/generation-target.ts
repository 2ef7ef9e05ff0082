/**
 * The contract every generation target implements (a plugin, as in GraphQL Code Generator): build a plain
 * view model from a KVLM model, describe it with a JSON Schema, and name the templates that render it.
 */
import type { HelperDelegate } from 'handlebars';
import type { KvlmModel } from '../language/generated/ast.js';

/** One output file (of a template or a code emitter): its path relative to the output folder, and its text. */
export interface GeneratedFile {
    path: string;
    content: string;
}

/** A file a target produces from one entry template. */
export interface TemplateEntry {
    /** The template's file name, relative to the target's template folder, e.g. `indexes.redis.hbs`. */
    template: string;
    /** Whether the file applies to this view model (e.g. `writes.lua` only with counter keys). Default: always. */
    when?: (viewModel: unknown) => boolean;
}

/** Options every target understands; targets add their own. */
export interface CommonTargetOptions {
    /** The dialect to generate; each target lists its own and has a default. */
    dialect?: string;
}

/** A generation target. */
export interface GenerationTarget {
    /** The name used on the command line and as the output folder, e.g. `redis`. */
    name: string;
    /** One line for `kvmod templates list`. */
    description: string;
    /** The dialects, the default first. */
    dialects: readonly string[];
    /** The default dialect. */
    defaultDialect: string;
    /** Builds the view model the templates receive. Pure: no I/O. Throws `GenerationError` when the model cannot be expressed. */
    buildViewModel(kvlm: KvlmModel, options: CommonTargetOptions & Record<string, unknown>): unknown;
    /** The view model's JSON Schema file, relative to the package root. */
    viewModelSchema: string;
    /** The entry templates, in output order (partials live in `partials/`). */
    entries: readonly TemplateEntry[];
    /** The target's Handlebars helpers (escaping for the target language), registered in its environment. */
    helpers: Readonly<Record<string, HelperDelegate>>;
}
