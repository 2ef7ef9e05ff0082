/**
 * "Did you mean …?" suggestions for unknown names, shared by both languages: the closest known names by
 * edit distance, compared ignoring case (a case slip is the most common typo in hand-written models).
 */

/** The optimal-string-alignment distance (Levenshtein plus adjacent transpositions) between two strings. */
export function editDistance(a: string, b: string): number {
    if (a === b) return 0;
    if (a.length === 0) return b.length;
    if (b.length === 0) return a.length;
    // Three rolling rows suffice for the transposition step.
    let before = new Array<number>(b.length + 1).fill(0);
    let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
    let current = new Array<number>(b.length + 1).fill(0);
    for (let i = 1; i <= a.length; i++) {
        current[0] = i;
        for (let j = 1; j <= b.length; j++) {
            const cost = a[i - 1] === b[j - 1] ? 0 : 1;
            let value = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
            if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
                value = Math.min(value, before[j - 2] + 1);
            }
            current[j] = value;
        }
        [before, previous, current] = [previous, current, before];
    }
    return previous[b.length];
}

/** How far a candidate may be from what was written: about one edit per three characters, at least one. */
export function suggestionThreshold(written: string): number {
    return Math.max(1, Math.floor(written.length / 3));
}

/**
 * The known names closest to `written` (ignoring case): those at the smallest distance found, if it is within
 * `suggestionThreshold` and keeps at least one character; at most `limit`, in the candidates' order.
 */
export function didYouMean(written: string, candidates: Iterable<string | undefined>, limit = 3): string[] {
    const threshold = suggestionThreshold(written);
    const lowered = written.toLowerCase();
    const scored: { name: string; distance: number; order: number }[] = [];
    const seen = new Set<string>();
    let order = 0;
    for (const name of candidates) {
        // A declaration the parser's recovery left without its name offers nothing to suggest.
        if (typeof name !== 'string' || seen.has(name)) continue;
        seen.add(name);
        const distance = editDistance(lowered, name.toLowerCase());
        // Replacing every character of a short name is no suggestion.
        if (distance <= threshold && distance < written.length) scored.push({ name, distance, order: order++ });
    }
    // Only the closest names: a farther one next to a near-perfect match is noise.
    const best = Math.min(...scored.map((entry) => entry.distance));
    return scored
        .filter((entry) => entry.distance === best)
        .slice(0, limit)
        .map((entry) => entry.name);
}

/** Formats suggestions as a sentence: ` Did you mean 'a'?` / ` Did you mean 'a' or 'b'?`; empty without any. */
export function didYouMeanSentence(suggestions: readonly string[]): string {
    if (suggestions.length === 0) return '';
    const quoted = suggestions.map((name) => `'${name}'`);
    const list = quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
    return ` Did you mean ${list}?`;
}
