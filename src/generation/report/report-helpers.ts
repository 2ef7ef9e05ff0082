/**
 * The report target's Handlebars helpers: every piece of escaping a Mermaid diagram or a Markdown table
 * needs, named and tested, so a template never escapes by hand.
 */
import type { HelperDelegate } from 'handlebars';
import type { ErCardinality } from './report-design.js';

/** Mermaid's erDiagram markers for the right-hand end of a relationship (`A }o--|| B`). */
const RIGHT_MARKERS: Record<ErCardinality, string> = {
    'exactly-one': '||',
    'zero-or-one': 'o|',
    'zero-or-more': 'o{',
    'one-or-more': '|{',
};

/** Text inside a quoted Mermaid label: `"` and the characters Mermaid reads as markup become entity codes. */
export function escapeMermaidLabel(text: string): string {
    return text.replace(/["#<>]/g, (c) => `#${c.charCodeAt(0)};`).replace(/[\r\n]+/g, ' ');
}

/** A name usable bare in Mermaid (entity, attribute, node id): letters, digits and `_`; others become `_`. */
export function mermaidName(text: string): string {
    const safe = text.replace(/[^A-Za-z0-9_]/g, '_');
    return /^[A-Za-z_]/.test(safe) ? safe : `_${safe}`;
}

/** A Markdown table cell: `|` escaped, line breaks flattened. */
export function markdownCell(text: string): string {
    return text.replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' ');
}

/** Inline code that survives backticks in the text (a longer fence when needed). */
export function markdownCode(text: string): string {
    const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
    const fence = '`'.repeat(longest + 1);
    const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
    return `${fence}${pad}${text}${pad}${fence}`;
}

/** The helpers registered for the report templates. */
export const reportHelpers: Readonly<Record<string, HelperDelegate>> = {
    /** `{{mermaidLabel text}}`: text for a quoted Mermaid label. */
    mermaidLabel(text: unknown) {
        return escapeMermaidLabel(String(text));
    },
    /** `{{mermaidName name}}`: a bare Mermaid identifier; `{{mermaidName name "q"}}` prefixes it (`q_name`). */
    mermaidName(text: unknown, ...rest: unknown[]) {
        const prefix = rest.length > 1 && typeof rest[0] === 'string' ? `${rest[0]}_` : '';
        return mermaidName(`${prefix}${String(text)}`);
    },
    /** `{{erRight cardinality}}`: the erDiagram marker for the right-hand end. */
    erRight(cardinality: unknown) {
        const marker = RIGHT_MARKERS[cardinality as ErCardinality];
        if (!marker) throw new Error(`erRight expects a cardinality (${Object.keys(RIGHT_MARKERS).join(', ')})`);
        return marker;
    },
    /** `{{cell text}}`: a Markdown table cell. */
    cell(text: unknown) {
        return markdownCell(String(text));
    },
    /** `{{code text}}`: inline code. */
    code(text: unknown) {
        return markdownCode(String(text));
    },
};
