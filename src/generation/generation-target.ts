/**
 * The contract every generation target implements (a plugin, as in GraphQL Code Generator). A target
 * declares once its name, description, the engine family it designs for and its options; it builds a
 * typed design from the model (pure), and emits files from that design through Handlebars entry templates
 * (overridable, ejectable, `--dump-view-model`) and/or code emitters (functions that return files, e.g.
 * TypeScript built with ts-morph). `GenerationTarget<Options, Design>` is typed end to end: the options a
 * target receives are typed from its declarations, and its templates and emitters see its own design.
 */
import type { HelperDelegate } from 'handlebars';
import type { KvlmModel, PidmModel } from '../language/generated/ast.js';
import type { MergeDecisionInfo, TransformOptions } from '../../transformations/pidm-to-kvlm/index.js';
import type { OptionDeclarations, OptionValues } from './generation-options.js';
import type { RunOptions } from './generation-engine.js';

/** One output file (of a template or a code emitter): its path relative to the output folder, and its text. */
export interface GeneratedFile {
    path: string;
    content: string;
}

/**
 * A file rendered in pieces: the UTF-8 bytes of its text are the chunks in order, which the writer writes one
 * after the other; `content` decodes them (for a reader that wants the text, e.g. a test).
 */
export interface ChunkedFile extends GeneratedFile {
    readonly chunks: readonly Uint8Array[];
}

/** Whether a file came in chunks (`StreamOptions.chunks`). */
export function isChunkedFile(file: GeneratedFile): file is ChunkedFile {
    return Array.isArray((file as Partial<ChunkedFile>).chunks);
}

/** A warning about a design a target built: something the model asks that the target serves poorly. */
export interface DesignWarning {
    /** Stable code, e.g. `redis-core.full-scan`. */
    code: string;
    /** The warning, in the modeler's words (what, why, what the design does instead). */
    message: string;
    /** The query it concerns: `generate` reports the warning at that query in the model. */
    query?: string;
}

/** What a target designs from: the KVLM design and, when known, where it came from. */
export interface DesignInput {
    /** The KVLM design. */
    kvlm: KvlmModel;
    /** The source PIDM model(s): present for a `.pidm` input, and for a `.kvlm` whose source PIDM was found. */
    pidm?: readonly PidmModel[];
    /** The transformation's run (merge decisions, options in effect): present when the KVLM was made from a PIDM. */
    transform?: { decisions: readonly MergeDecisionInfo[]; options: TransformOptions };
}

/** A file a target produces from one entry template. */
export interface TemplateEntry<Design> {
    /** The template's file name, relative to the target's template folder, e.g. `indexes.redis.hbs`. */
    template: string;
    /** Whether the file applies to this design (e.g. `writes.lua` only with counter keys). Default: always. */
    when?: (design: Design) => boolean;
}

/**
 * A hand-compiled equivalent of one exact partial text, for a partial that runs a million times on a large model
 * (e.g. the Redis README's field table). The engine uses it only for a partial whose text has this SHA-256 (the
 * built-in, or a copy ejected unchanged); any other text is rendered by Handlebars.
 */
export interface PartialRenderer {
    /** The SHA-256 (hex) of the template text it renders exactly as Handlebars would. */
    sha256: string;
    /** The partial's text for a context, or undefined for a context it does not expect (Handlebars renders it then). */
    render(context: unknown): string | undefined;
}

/**
 * Files from Handlebars templates in `templates/<target>/`: the design is the view model the templates see
 * (described by a JSON Schema and validated before rendering).
 */
export interface TemplateEmitter<Design> {
    /** The design's JSON Schema file, relative to the package root. */
    viewModelSchema: string;
    /** The entry templates, in output order (partials live in `partials/`). */
    entries: readonly TemplateEntry<Design>[];
    /** The target's Handlebars helpers (escaping for the target language), registered in its environment. */
    helpers: Readonly<Record<string, HelperDelegate>>;
    /** Hand-compiled equivalents of partials, by partial name (`field-table`): see `PartialRenderer`. */
    partialRenderers?: Readonly<Record<string, PartialRenderer>>;
}

/** Files from code (e.g. a TypeScript client built with ts-morph). Pure: returns files, writes nothing. */
export interface CodeEmitter<Options, Design> {
    /** A name for messages (`client`). */
    name: string;
    /**
     * The files, with paths relative to the target's output folder. `run` carries the user's templates folder: an
     * emitter that embeds another target's rendered file (the redis-core client's `library.ts`) renders it with the
     * same overrides, so the embedded copy is the file that target writes.
     */
    emit(design: Design, options: Options, run: RunOptions): GeneratedFile[] | Promise<GeneratedFile[]>;
}

/** A generation target. */
export interface GenerationTarget<Options extends OptionDeclarations, Design> {
    /** The name used on the command line and as the output folder, e.g. `redis`. */
    readonly name: string;
    /** One line for `kvmod templates list` and the extension's quick pick. */
    readonly description: string;
    /**
     * The engine family the design runs on (`redisearch`), which `load`, `verify`, `data check`, `doctor` and
     * `conformance` work through: the name of an engine runtime in src/runtime/engine-registry.ts (the runtime
     * finds it by this name; the generation layer never imports the runtime). Absent for a target whose output
     * runs nowhere (a report).
     */
    readonly engine?: string;
    /**
     * For a target that describes another target's design (a report): the option whose value names that target
     * (`design`). `generate --redis` then asks the server through the described target's engine, for the options
     * the two targets share, so a report of the redis-core design never probes for the search module.
     */
    readonly describesTargetOption?: string;
    /**
     * Whether the design reads the source PIDM (and the transformation's decisions) besides the KVLM: then the
     * source PIDM of a `.kvlm` input is loaded too, when its `source` names one. `'entities'`: it reads only the
     * PIDM's entities, which it gets as detached plain copies (`queries` and `workloads` empty), so that the parsed
     * document can be freed before the design is built.
     */
    readonly usesSourceModel?: boolean | 'entities';
    /** The target's options, declared once; every front end derives its flags and settings from them. */
    readonly options: Options;
    /**
     * Builds the design. Pure: no I/O. Throws `GenerationError` when the model cannot be expressed. May return
     * a promise, so that a target module stays light (front ends load the registry at start-up) and imports
     * its design code when it runs.
     */
    buildDesign(input: DesignInput, options: OptionValues<Options>): Design | Promise<Design>;
    /** Files from templates (`templates/<name>/`). */
    readonly templates?: TemplateEmitter<Design>;
    /** Files from code, after the templates' files. */
    readonly codeEmitters?: readonly CodeEmitter<OptionValues<Options>, Design>[];
    /** Warnings about a built design, which `generate` reports (as warnings, at the query they concern). */
    warnings?(design: Design): DesignWarning[];
    /**
     * Where a KVLM collection lives in the design, one Markdown line for the editor's query hover
     * (`Redis: index \`Q1\`, keys \`Q1_<signature>:…\` (redisearch2)`); undefined when the design has no such collection.
     * Absent when the target has nothing to say: the hover then says nothing of it.
     */
    describeCollection?(design: Design, collection: string): string | undefined;
}
