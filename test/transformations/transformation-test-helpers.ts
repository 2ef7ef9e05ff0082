/**
 * Shared helpers of the transformation tests: PIDM texts loaded through the pipeline's front door, the
 * airflights example, and the printed form of a transformation's result.
 */
import { readFileSync } from 'node:fs';
import type { PidmModel } from '../../src/language/generated/ast.js';
import { formatDiagnostic, loadTexts } from '../../src/pipeline/load.js';

/** The airflights example as committed. */
export const airflightsText = readFileSync(
    new URL('../../examples/airflights/airflights.pidm', import.meta.url),
    'utf8',
);

/** Loads PIDM texts as one workspace and fails on any error (the transformation expects valid models). */
export async function loadPidm(...texts: string[]): Promise<PidmModel[]> {
    const loaded = await loadTexts(texts.map((text, index) => ({ path: `model-${index + 1}.pidm`, text })));
    const errors = loaded.diagnostics.filter((d) => d.severity === 'error');
    if (errors.length > 0) throw new Error(`the test model has errors:\n${errors.map(formatDiagnostic).join('\n')}`);
    return loaded.pidm.map((entry) => entry.model);
}

/** The airflights example, loaded. */
export async function loadAirflights(): Promise<PidmModel[]> {
    const loaded = await loadTexts([{ path: 'examples/airflights/airflights.pidm', text: airflightsText }]);
    const errors = loaded.diagnostics.filter((d) => d.severity === 'error');
    if (errors.length > 0) throw new Error(errors.map(formatDiagnostic).join('\n'));
    return loaded.pidm.map((entry) => entry.model);
}
