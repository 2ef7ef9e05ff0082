/**
 * How names are made for a KVLM model: from any PIDM spelling, unique within their scope. The
 * transformation names collections, nodes, fields and parameters with these; the oracle names query
 * parameters with them too (`QueryParameterNamer` in pidm-parameters.ts), so both always agree.
 */

/** A name not yet in `taken`: the base itself, else `base_2`, `base_3`, …; the result is added to `taken`. */
export function uniqueName(base: string, taken: Set<string>): string {
    let name = base;
    for (let suffix = 2; taken.has(name); suffix++) name = `${base}_${suffix}`;
    taken.add(name);
    return name;
}

/** Whether a spelling is already a KVLM name, `^[_a-zA-Z]\w*$` (a loop: it runs once per field). */
function isKvlmName(spelling: string): boolean {
    if (spelling.length === 0) return false;
    for (let index = 0; index < spelling.length; index++) {
        const code = spelling.charCodeAt(index);
        const letter = (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code === 95;
        if (!letter && (index === 0 || code < 48 || code > 57)) return false;
    }
    return true;
}

/** Makes a KVLM name from any spelling: non-word characters become `_`, a leading digit gets a `_`. */
export function toKvlmName(spelling: string): string {
    if (isKvlmName(spelling)) return spelling;
    const dotted = spelling.replaceAll('.', '_');
    if (isKvlmName(dotted)) return dotted;
    const cleaned = spelling.replace(/\W/g, '_');
    if (cleaned === '') return '_';
    return /^\d/.test(cleaned) ? `_${cleaned}` : cleaned;
}
