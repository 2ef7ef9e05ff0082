/**
 * The dynamodb target's Handlebars helpers: JSON for the CreateTable inputs and CloudFormation, Markdown table
 * cells for the README.
 */
import type { HelperDelegate } from 'handlebars';

/** A text as one Markdown table cell: `|` escaped, control characters and line breaks made visible. */
export function markdownCell(text: string): string {
    return text
        .replace(/\|/g, '\\|')
        .replace(/[\x00-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** The CloudFormation resource name of a table: letters and digits only. */
export function logicalId(table: string): string {
    return `Table${table.replace(/[^A-Za-z0-9]/g, '')}`;
}

/** The helpers registered for the dynamodb templates. */
export const dynamoHelpers: Readonly<Record<string, HelperDelegate>> = {
    /** `{{jsonIndent value 4}}`: JSON, pretty, every line after the first indented by that many spaces. */
    jsonIndent(value: unknown, indent: unknown) {
        const pad = ' '.repeat(Number(indent));
        return JSON.stringify(value, null, 2).replace(/\n/g, `\n${pad}`);
    },
    /** `{{cell text}}`: a Markdown table cell. */
    cell(text: unknown) {
        return markdownCell(String(text));
    },
    /** `{{concat a b …}}`: the texts joined. */
    concat(...args: unknown[]) {
        return args.slice(0, -1).map(String).join('');
    },
    /** `{{logicalId table}}`: the table's CloudFormation resource name. */
    logicalId(table: unknown) {
        return logicalId(String(table));
    },
};
