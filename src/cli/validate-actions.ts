/**
 * The action of `kvmod validate`: parse, link and validate PIDM and KVLM files as one workspace and print
 * every diagnostic. Loaded by the command's handler only when it runs (it pulls in Langium).
 */
import { formatDiagnostic, loadWorkspace, type KvmodDiagnostic } from '../pipeline/load.js';
import { expandFileArguments } from './cli-files.js';
import { processIo, type CliIo } from './cli-io.js';

/** How diagnostics are printed. */
export type DiagnosticFormat = 'text' | 'json';

/** The arguments of `kvmod validate`. */
export interface ValidateArgs {
    /** Files or globs (`.pidm`, `.kvlm`), loaded together so references across files resolve. */
    files: string[];
    /** `text` (default): `path:line:col: severity: message [code]` lines; `json`: an array on stdout. */
    format?: DiagnosticFormat;
}

/** Validates the files and prints the diagnostics; resolves to the exit code (0 no error, 1 errors). */
export async function runValidate(args: ValidateArgs, io: CliIo = processIo): Promise<number> {
    const paths = await expandFileArguments(args.files);
    const workspace = await loadWorkspace(paths);
    printDiagnostics(workspace.diagnostics, args.format ?? 'text', io);
    if ((args.format ?? 'text') === 'text') io.err(summaryLine(paths.length, workspace.diagnostics) + '\n');
    return workspace.hasErrors ? 1 : 0;
}

/** Prints diagnostics as text lines or as one JSON array; shared by every command that loads models. */
export function printDiagnostics(diagnostics: readonly KvmodDiagnostic[], format: DiagnosticFormat, io: CliIo): void {
    if (format === 'json') {
        io.out(JSON.stringify(diagnostics, null, 2) + '\n');
        return;
    }
    for (const diagnostic of diagnostics) io.out(formatDiagnostic(diagnostic) + '\n');
}

/** `2 files checked: 1 error, 0 warnings` (and infos when there are some). */
export function summaryLine(fileCount: number, diagnostics: readonly KvmodDiagnostic[]): string {
    const count = (severity: KvmodDiagnostic['severity']) => diagnostics.filter((d) => d.severity === severity).length;
    const parts = [plural(count('error'), 'error'), plural(count('warning'), 'warning')];
    if (count('info') > 0) parts.push(plural(count('info'), 'info'));
    return `${plural(fileCount, 'file')} checked: ${parts.join(', ')}`;
}

function plural(n: number, word: string): string {
    return `${n} ${word}${n === 1 ? '' : 's'}`;
}
