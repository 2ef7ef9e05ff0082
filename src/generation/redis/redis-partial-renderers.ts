/**
 * Hand-compiled equivalents of built-in Redis partials, for the files where a Handlebars partial runs a million
 * times: the field table of a 1000 × 1000 model's README has a million rows, and rendering them through
 * Handlebars costs a lookup and an options object per helper call, most of rendering that README.
 *
 * A renderer stands for one exact template text (its SHA-256): the engine uses it for a partial whose text is
 * that one, built-in or ejected unchanged, and renders any other text — a user's override, an edited built-in —
 * with Handlebars. A renderer answers undefined for a context it does not expect (another shape than the
 * validated view model's), and Handlebars then renders the partial, strict-mode errors included. Tests render
 * every example and edge model both ways and compare the text.
 */
import type { PartialRenderer } from '../generation-target.js';
import { redisHelpers } from './redis-helpers.js';

const hasOwn = Object.hasOwn;
const mdCode = redisHelpers.mdCode as (value: unknown) => string;
const redisCommand = redisHelpers.redisCommand as (command: unknown) => string;

interface TableField {
    name: string;
    label: string;
    type: string;
    source: string;
    index: { type: string; sortable: boolean; reason: string } | null;
    roles: { projected: unknown[]; filtered: unknown[] };
    sortKey: string | null;
    equalityKey: string | null;
}

/** The properties the field table reads. */
const TABLE_PROPERTIES = [
    'name',
    'label',
    'type',
    'source',
    'sortKey',
    'equalityKey',
    'index',
    'roles',
    'projected',
    'filtered',
    'sortable',
    'reason',
];

/**
 * Whether `o` is a plain object (made by `{…}` or JSON.parse): then, as long as `Object.prototype` has none of
 * the table's properties (checked once per table), every one of them it has is its own, as Handlebars requires
 * (it does not read inherited properties). Cheaper than `Object.hasOwn` for each of a million fields.
 */
function isPlain(o: unknown): o is Record<string, unknown> {
    return typeof o === 'object' && o !== null && Object.getPrototypeOf(o) === Object.prototype;
}

/** A field of the view model as `partials/field-table.hbs` reads it, own properties of the expected types. */
function isTableField(o: unknown): o is TableField {
    if (!isPlain(o)) return false;
    if (typeof o.name !== 'string' || typeof o.label !== 'string') return false;
    if (typeof o.type !== 'string' || typeof o.source !== 'string') return false;
    if (o.sortKey !== null && typeof o.sortKey !== 'string') return false;
    if (o.equalityKey !== null && typeof o.equalityKey !== 'string') return false;
    const roles = o.roles;
    if (o.equalityKey !== null && !(isPlain(roles) && Array.isArray(roles.filtered))) return false;
    const index = o.index;
    if (index === null) return o.equalityKey !== null || (isPlain(roles) && Array.isArray(roles.projected));
    return (
        isPlain(index) &&
        typeof index.type === 'string' &&
        typeof index.sortable === 'boolean' &&
        typeof index.reason === 'string'
    );
}

/** `partials/field-table.hbs`: the Markdown table of a collection's fields, each companion after its field. */
const fieldTable: PartialRenderer = {
    sha256: 'dd6299fd2bc0e784435dafaca884daef70fb0ee0f8eebe085218008e9eb928e8',
    render(context: unknown): string | undefined {
        if (!isPlain(context) || !hasOwn(context, 'fields')) return undefined;
        if (TABLE_PROPERTIES.some((name) => name in Object.prototype)) return undefined;
        const fields = (context as { fields: unknown }).fields;
        if (!Array.isArray(fields)) return undefined;
        for (let i = 0; i < fields.length; i++) if (!(i in fields) || !isTableField(fields[i])) return undefined;
        let text = '| field | label | type | source | index | why |\n| --- | --- | --- | --- | --- | --- |\n';
        for (const f of fields as TableField[]) {
            const index = f.index;
            const spec = index ? (index.sortable ? `${index.type} SORTABLE` : index.type) : 'stored only';
            const why = index
                ? index.reason
                : f.equalityKey
                  ? `compared through ${mdCode(f.equalityKey)}`
                  : `projected by ${f.roles.projected.map(String).join(', ')}`;
            let row = `| ${mdCode(f.name)} | ${mdCode(f.label)} | ${f.type} | ${mdCode(f.source)} | ${spec} | ${why} |\n`;
            if (f.sortKey) {
                row += `| ${mdCode(f.sortKey)} | — | text | \`sortKey($${f.name})\` | stored only | sort companion of ${mdCode(f.name)}: what \`FT.AGGREGATE\` sorts on |\n`;
            }
            if (f.equalityKey) {
                row += `| ${mdCode(f.equalityKey)} | — | text | \`equalityKey($${f.name})\` | TAG | equality companion of ${mdCode(f.name)}: what equality in ${f.roles.filtered.map(String).join(', ')} searches |\n`;
            }
            text += row;
        }
        return text;
    },
};

interface SectionQuery {
    name: string;
    params: { name: string; type: string }[];
    kind: string;
    filter: string;
    sortKeys: { field: string; property: string; direction: string }[];
    projections: { field: string; label: string }[];
    command: { argv: unknown[] };
}

/** The properties the query section reads. */
const SECTION_PROPERTIES = [
    'name',
    'params',
    'type',
    'kind',
    'filter',
    'sortKeys',
    'field',
    'property',
    'direction',
    'projections',
    'label',
    'command',
    'argv',
];

/** A list without holes whose items are plain objects with the named properties, all strings. */
function isListOf(o: unknown, properties: readonly string[]): boolean {
    if (!Array.isArray(o)) return false;
    for (let i = 0; i < o.length; i++) {
        if (!(i in o)) return false;
        const item: unknown = o[i];
        if (!isPlain(item)) return false;
        for (const name of properties) if (typeof item[name] !== 'string') return false;
    }
    return true;
}

/**
 * A query of the view model as `partials/query-section.hbs` reads it: own properties of the expected types (the sort
 * keys' `field` is read by a search, `property` and `direction` by an aggregate; both are checked).
 */
function isSectionQuery(o: unknown): o is SectionQuery {
    if (!isPlain(o)) return false;
    if (typeof o.name !== 'string' || typeof o.kind !== 'string' || typeof o.filter !== 'string') return false;
    const command = o.command;
    if (!isPlain(command) || !Array.isArray(command.argv)) return false;
    return (
        isListOf(o.params, ['name', 'type']) &&
        isListOf(o.sortKeys, ['field', 'property', 'direction']) &&
        isListOf(o.projections, ['field', 'label'])
    );
}

/** `partials/query-section.hbs`: a served query's section of the README (a million columns on a 1000 × 1000 model). */
const querySection: PartialRenderer = {
    sha256: '6e2b9df402e167aeadd667aa9fa7f0d32c2f8bd06cace22a75ce9c539244f15d',
    render(context: unknown): string | undefined {
        if (SECTION_PROPERTIES.some((name) => name in Object.prototype)) return undefined;
        if (!isSectionQuery(context)) return undefined;
        const { params, sortKeys, projections } = context;
        let text = `#### ${context.name}\n\n`;
        if (params.length > 0) {
            text += 'Parameters: ';
            for (let i = 0; i < params.length; i++) {
                text += `\`$${params[i].name}\` (${params[i].type})${i < params.length - 1 ? ', ' : ''}`;
            }
            text += '.\n';
        } else {
            text += 'No parameters.\n';
        }
        if (context.kind === 'search') {
            const sort = sortKeys.length > 0 ? `: \`SORTBY\` on the SORTABLE field ${mdCode(sortKeys[0].field)}` : '';
            text += `\`FT.SEARCH\` (at most one sort key${sort}); rows come back with their key.\n`;
        } else {
            text += `\`FT.AGGREGATE\` (${sortKeys.length} sort keys: `;
            for (let i = 0; i < sortKeys.length; i++) {
                text += `${mdCode(sortKeys[i].property)} ${sortKeys[i].direction}${i < sortKeys.length - 1 ? ', ' : ''}`;
            }
            text += '); rows carry the loaded id field instead of the key.\n';
        }
        text += `Query string: ${mdCode(context.filter)}. Columns: `;
        for (let i = 0; i < projections.length; i++) {
            const column = projections[i];
            text += `${mdCode(column.field)} as ${mdCode(column.label)}${i < projections.length - 1 ? ', ' : ''}`;
        }
        return `${text}.\n\n\`\`\`\n${redisCommand(context.command)}\n\`\`\`\n\n`;
    },
};

/** The Redis target's partial renderers, by partial name (`field-table` for `partials/field-table.hbs`). */
export const redisPartialRenderers: Readonly<Record<string, PartialRenderer>> = {
    'field-table': fieldTable,
    'query-section': querySection,
};
