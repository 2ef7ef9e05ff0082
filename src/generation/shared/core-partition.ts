/**
 * The partition keys of the redis-core design (issue 29): where a partitioned collection's index entries live. One
 * source for the design (`corePartitionTag`, `coreRowRecordKey`), the loader, the cluster steps and the generated
 * client (shipped verbatim in a redis-core client as `kvmod/core-partition.ts`), so that a query reads the slot the
 * rows were written to. Mirrors the library's `tag_of`.
 */
import { escapeKeyPart } from './redis-encoding.js';

/** Text in equality form (the library's `equality_form`): ASCII white space trimmed, ASCII letters lower-cased. */
export function equalityForm(text: string): string {
    return text.replace(/^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g, '').replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/** The row key of a natural key's encoded parts: `%`, `:`, `{` and `}` escaped (no accidental hash tag). */
export function escapeCoreKeyPart(encoded: string): string {
    return escapeKeyPart(encoded).replace(/\{/g, '%7B').replace(/\}/g, '%7D');
}

/**
 * The hash tag of the partition of a collection that encoded partition values name (one per partition field, in
 * order; `texts[i]` true for a text field): the values in equality form (text) or as integers (the other types),
 * escaped like key parts.
 */
export function partitionTag(collection: string, texts: readonly boolean[], values: readonly string[]): string {
    const parts = texts.map((text, i) => {
        const value = values[i] ?? '';
        const number = Number(value);
        // An integer as its digits; anything else (never equal to an integer) as `~` and its text.
        const form = text ? equalityForm(value) : Number.isInteger(number) ? String(number) : `~${value}`;
        return escapeCoreKeyPart(form);
    });
    return `{${collection}:${parts.join(':')}}`;
}

/** The record key (`<tag>:rec`) of a partition: the key a query's read function and a row's index steps name. */
export function partitionRecordKey(collection: string, texts: readonly boolean[], values: readonly string[]): string {
    return `${partitionTag(collection, texts, values)}:rec`;
}
