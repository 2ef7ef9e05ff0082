/**
 * The one design loader of every command (`generate`, `data`, `load`, `verify`) and the extension: a
 * `.pidm` through the transformation, or a `.kvlm` with its source PIDM. Each model is parsed once; errors
 * come back the same way whoever asks (code `model.invalid` with the diagnostics, `model.no-source`,
 * `io.unsupported-file-type`).
 */
import { dirname, extname, resolve } from 'node:path';
import { existsSync } from 'node:fs';
import type { KvlmModel, PidmModel } from '../language/generated/ast.js';
import type { DesignInput } from '../generation/generation-target.js';
import { detachedEntities } from '../language/pidm/pidm-detached.js';
import { KvmodError } from './errors.js';
import { formatDiagnostic, loadWorkspace, type KvmodDiagnostic } from './load.js';
import {
    querySitesOf,
    transformFiles,
    type DatabaseNameOrigin,
    type QuerySite,
    type TransformFilesOptions,
} from './transform.js';

export type { DatabaseNameOrigin, QuerySite } from './transform.js';

/** A design as the commands work from it. */
export interface LoadedDesign extends DesignInput {
    /** The input path as given. */
    path: string;
    kvlm: KvlmModel;
    /** The source PIDM model(s), when loaded (see `DesignLoadOptions.sourceModel`). */
    pidm?: PidmModel[];
    /** The PIDM file(s) the entities and queries came from. */
    pidmPaths: string[];
    /** Where each PIDM query is declared (the first declaration of a name), for diagnostics about it. */
    querySites: ReadonlyMap<string, QuerySite>;
    /** The transformation's warnings (a merge the paper policy made although answers may change). */
    warnings: string[];
    /** The diagnostics of loading, warnings included (errors make `loadDesign` throw). */
    diagnostics: KvmodDiagnostic[];
    /** Where the database name (`kvlm.name`) came from. */
    databaseOrigin: DatabaseNameOrigin;
}

/** How to load a design. */
export interface DesignLoadOptions {
    /** How a `.pidm` is transformed (threshold, merge policy, key strategy); unused for a `.kvlm`. */
    transform?: Pick<TransformFilesOptions, 'threshold' | 'merge' | 'keyStrategy'>;
    /**
     * Whether the source PIDM of a `.kvlm` is loaded: `required` (load and verify: the data and the oracle
     * need its entities and queries), `if-named` (loaded when the `.kvlm`'s `source` names a file that
     * exists, or `pidm` is given), `no`. A `.pidm` input is its own source: it is kept for `required` and
     * `if-named`; with `no` only its `querySites` are, so that its syntax tree can be freed before a large
     * model's generation (a 1000 × 1000 model is gigabytes of it). `entities`: as `if-named`, but `pidm` holds
     * detached plain copies of the entities only (`detachedEntities`), so that the parsed models are freed as
     * with `no`. Default `no`.
     */
    sourceModel?: 'required' | 'if-named' | 'entities' | 'no';
    /** The source PIDM of a `.kvlm` whose `source` does not name it. */
    pidm?: string;
}

/** A model that does not load: the message lists the first errors; `diagnostics` has them all. */
export class ModelLoadError extends KvmodError {
    constructor(
        message: string,
        /** Every diagnostic of the failed load. */
        readonly diagnostics: readonly KvmodDiagnostic[],
        path: string,
    ) {
        super(message, { code: 'model.invalid', path });
    }
}

/**
 * Loads a design from one model: a `.kvlm`, or the `.pidm` file(s) of one model (a model may be split
 * across files). A model with errors is a `ModelLoadError`, anything else the user can fix a `KvmodError`.
 */
export async function loadDesign(
    paths: string | readonly string[],
    options: DesignLoadOptions = {},
): Promise<LoadedDesign> {
    const files = typeof paths === 'string' ? [paths] : [...paths];
    const path = files[0];
    const extension = extname(path).toLowerCase();
    if (extension === '.pidm') return loadPidmDesign(files, options);
    if (extension !== '.kvlm')
        throw new KvmodError(`${path}: not a model file (expected .kvlm or .pidm)`, {
            code: 'io.unsupported-file-type',
            path,
        });
    const workspace = await loadWorkspace([path]);
    const kvlm = workspace.kvlm[0]?.model;
    if (workspace.hasErrors || !kvlm) throw failed(path, workspace.diagnostics, 'KVLM');
    const design: LoadedDesign = {
        path,
        kvlm,
        pidmPaths: [],
        querySites: new Map(),
        warnings: [],
        diagnostics: workspace.diagnostics,
        databaseOrigin: { name: kvlm.name, source: 'kvlm', at: path },
    };
    const asked = options.sourceModel ?? 'no';
    if (asked === 'no') return design;
    const wanted = asked === 'entities' ? 'if-named' : asked;
    const pidmPath = options.pidm ?? (kvlm.source ? resolve(dirname(path), kvlm.source) : undefined);
    if (pidmPath === undefined || (wanted === 'if-named' && options.pidm === undefined && !existsSync(pidmPath))) {
        if (wanted === 'if-named') return design;
        throw new KvmodError(`${path} names no source PIDM model; pass it with --pidm <model.pidm>`, {
            code: 'model.no-source',
            path,
        });
    }
    const pidmSpace = await loadWorkspace([pidmPath]);
    const models = pidmSpace.pidm.map((entry) => entry.model);
    if (pidmSpace.hasErrors || models.length === 0) throw failed(pidmPath, pidmSpace.diagnostics, 'PIDM');
    const pidm = asked === 'entities' ? detachedEntities(models) : models;
    return {
        ...design,
        pidm,
        pidmPaths: [pidmPath],
        querySites: querySitesOf(pidmSpace.pidm),
        diagnostics: [...design.diagnostics, ...pidmSpace.diagnostics],
    };
}

/** The `.pidm` files of one model loaded, validated and transformed, parsing each once. */
async function loadPidmDesign(files: string[], options: DesignLoadOptions): Promise<LoadedDesign> {
    const path = files[0];
    const wanted = options.sourceModel ?? 'no';
    const keepSource = wanted === 'entities' ? 'entities' : wanted !== 'no';
    const transformed = await transformFiles(files, { ...options.transform, print: false, keepSource });
    if (!transformed.kvlm || transformed.diagnostics.some((d) => d.severity === 'error'))
        throw failed(path, transformed.diagnostics, 'PIDM');
    return {
        path,
        kvlm: transformed.kvlm,
        ...(transformed.pidm ? { pidm: transformed.pidm } : {}),
        pidmPaths: files,
        querySites: transformed.querySites,
        transform: { decisions: transformed.decisions, options: transformed.options },
        warnings: transformed.warnings,
        diagnostics: transformed.diagnostics,
        databaseOrigin: transformed.databaseOrigin,
    };
}

function failed(path: string, diagnostics: readonly KvmodDiagnostic[], language: string): ModelLoadError {
    const errors = diagnostics.filter((d) => d.severity === 'error');
    if (errors.length === 0) return new ModelLoadError(`${path} holds no ${language} model`, diagnostics, path);
    const shown = errors.slice(0, 5).map(formatDiagnostic);
    const more = errors.length > shown.length ? `\n… and ${errors.length - shown.length} more` : '';
    return new ModelLoadError(
        `${errors.length} error${errors.length === 1 ? '' : 's'} in the model:\n${shown.join('\n')}${more}`,
        diagnostics,
        path,
    );
}

/** The PIDM models of `.pidm` files, validated (for commands that need the entities only, like `data`). */
export async function loadPidmModels(paths: string[]): Promise<PidmModel[]> {
    const workspace = await loadWorkspace(paths);
    const pidm = workspace.pidm.map((entry) => entry.model);
    if (workspace.hasErrors || pidm.length === 0) throw failed(paths.join(', '), workspace.diagnostics, 'PIDM');
    return pidm;
}
