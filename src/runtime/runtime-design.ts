/**
 * What `load`, `verify` and `data` work from: the design as the one design loader (pipeline/design.ts)
 * gives it — a `.pidm` transformed, or a `.kvlm` with its source PIDM — plus the runtime's view of the
 * PIDM's entities.
 */
import { extname } from 'node:path';
import type { PidmModel } from '../language/generated/ast.js';
import { loadDesign, loadPidmModels, type LoadedDesign } from '../pipeline/design.js';
import type { KeyStrategyKind, MergePolicy } from '../../transformations/pidm-to-kvlm/index.js';
import { buildRuntimeModel, type RuntimeModel } from './runtime-model.js';

/** The models a run works from. */
export interface RuntimeDesign extends LoadedDesign {
    pidm: PidmModel[];
    /** The entities as the data, the materializer and the oracle see them. */
    model: RuntimeModel;
}

/** Options of `loadRuntimeDesign` (the transformation's, when the design is made from a `.pidm`). */
export interface DesignOptions {
    merge?: MergePolicy;
    keyStrategy?: KeyStrategyKind;
    threshold?: number;
    /** The PIDM of a `.kvlm` design, when its `source` does not name it. */
    pidm?: string;
}

/** Loads a `.pidm` (and transforms it) or a `.kvlm` (and its source PIDM); model errors are a KvmodError. */
export async function loadRuntimeDesign(path: string, options: DesignOptions = {}): Promise<RuntimeDesign> {
    const design = await loadDesign(path, {
        transform: { merge: options.merge, keyStrategy: options.keyStrategy, threshold: options.threshold },
        sourceModel: 'required',
        pidm: options.pidm,
    });
    const pidm = design.pidm;
    if (!pidm) throw new Error(`the design loader gave no source PIDM for ${path}`);
    return { ...design, pidm, model: buildRuntimeModel(pidm) };
}

/** The entities of a `.pidm` model (or of a `.kvlm` design's source PIDM), for data commands. */
export async function loadRuntimeModel(path: string, pidm?: string): Promise<RuntimeModel> {
    if (extname(path).toLowerCase() === '.kvlm') return (await loadRuntimeDesign(path, { pidm })).model;
    return buildRuntimeModel(await loadPidmModels([path]));
}
