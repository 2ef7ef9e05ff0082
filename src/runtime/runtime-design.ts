/**
 * What `load` and `verify` work from: the PIDM model (entities for the data, queries for the oracle) and the
 * KVLM design (transformed from the PIDM, or read from a `.kvlm` file whose `source` names its PIDM).
 */
import { dirname, extname, resolve } from 'node:path';
import type { KvlmModel, PidmModel } from '../language/generated/ast.js';
import { KvmodError } from '../pipeline/errors.js';
import { formatDiagnostic, loadWorkspace, type LoadedWorkspace } from '../pipeline/load.js';
import { transformFiles } from '../pipeline/transform.js';
import type { KeyStrategyKind, MergePolicy } from '../../transformations/pidm-to-kvlm/index.js';
import { buildRuntimeModel, type RuntimeModel } from './runtime-model.js';

/** The models a run works from. */
export interface RuntimeDesign {
    pidm: PidmModel[];
    kvlm: KvlmModel;
    model: RuntimeModel;
    /** The PIDM file(s) the entities and queries came from. */
    pidmPaths: string[];
    /** The transformation's warnings (a merge the paper policy made although answers may change). */
    warnings: string[];
}

/** Options of `loadDesign` (the transformation's, when the design is made from a `.pidm`). */
export interface DesignOptions {
    merge?: MergePolicy;
    keyStrategy?: KeyStrategyKind;
    threshold?: number;
    /** The PIDM of a `.kvlm` design, when its `source` does not name it. */
    pidm?: string;
}

function failOnErrors(workspace: LoadedWorkspace, what: string): void {
    if (!workspace.hasErrors) return;
    const lines = workspace.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic);
    throw new KvmodError(`${what} has errors:\n${lines.join('\n')}`, { code: 'model.invalid' });
}

/** Loads a `.pidm` (and transforms it) or a `.kvlm` (and its source PIDM); model errors are a KvmodError. */
export async function loadDesign(path: string, options: DesignOptions = {}): Promise<RuntimeDesign> {
    if (extname(path).toLowerCase() === '.kvlm') {
        const kvlmSpace = await loadWorkspace([path]);
        failOnErrors(kvlmSpace, path);
        const kvlm = kvlmSpace.kvlm[0]?.model;
        if (!kvlm) throw new KvmodError(`${path} holds no KVLM model`, { code: 'model.invalid' });
        const pidmPath = options.pidm ?? (kvlm.source ? resolve(dirname(path), kvlm.source) : undefined);
        if (!pidmPath)
            throw new KvmodError(`${path} names no source PIDM model; pass it with --pidm <model.pidm>`, {
                code: 'model.no-source',
            });
        const pidmSpace = await loadWorkspace([pidmPath]);
        failOnErrors(pidmSpace, pidmPath);
        const pidm = pidmSpace.pidm.map((entry) => entry.model);
        return { pidm, kvlm, model: buildRuntimeModel(pidm), pidmPaths: [pidmPath], warnings: [] };
    }
    const workspace = await loadWorkspace([path]);
    failOnErrors(workspace, path);
    const pidm = workspace.pidm.map((entry) => entry.model);
    if (pidm.length === 0) throw new KvmodError(`${path} holds no PIDM model`, { code: 'model.invalid' });
    // The printed and re-parsed KVLM: exactly what `kvmod transform` writes and `kvmod generate` reads.
    const transformed = await transformFiles([path], {
        merge: options.merge,
        keyStrategy: options.keyStrategy,
        threshold: options.threshold,
    });
    if (!transformed.kvlm) {
        const lines = transformed.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic);
        throw new KvmodError(`cannot transform ${path}:\n${lines.join('\n')}`, { code: 'transform.failed' });
    }
    return {
        pidm,
        kvlm: transformed.kvlm,
        model: buildRuntimeModel(pidm),
        pidmPaths: [path],
        warnings: transformed.warnings,
    };
}

/** The entities of a `.pidm` model (or of a `.kvlm` design's source PIDM), for data commands. */
export async function loadRuntimeModel(path: string, pidm?: string): Promise<RuntimeModel> {
    if (extname(path).toLowerCase() === '.kvlm') return (await loadDesign(path, { pidm })).model;
    const workspace = await loadWorkspace([path]);
    failOnErrors(workspace, path);
    if (workspace.pidm.length === 0) throw new KvmodError(`${path} holds no PIDM model`, { code: 'model.invalid' });
    return buildRuntimeModel(workspace.pidm.map((entry) => entry.model));
}
