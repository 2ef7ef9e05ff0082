/**
 * A JSON file a user writes by hand (the config file, a data spec): parsed leniently (comments and trailing
 * commas allowed, as in tsconfig.json), checked against its JSON Schema with ajv, and every problem reported
 * as `path:line:col: message` at the value it concerns — not as a JSON pointer the user must look up.
 */
import { readFile } from 'node:fs/promises';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import {
    findNodeAtLocation,
    parseTree,
    printParseErrorCode,
    type Node as JsonNode,
    type ParseError,
} from 'jsonc-parser';
import { KvmodError } from './errors.js';
import { escapeControls } from './json-text.js';

/** One problem in a hand-written JSON file, 1-based. */
export interface JsonProblem {
    line: number;
    column: number;
    message: string;
}

/** A parsed JSON file and where each of its values is, for semantic checks after the schema's. */
export interface JsonDocument {
    value: unknown;
    /**
     * The 1-based position of the value at a path of keys and indexes (of its key with `key`; the file's
     * start when absent).
     */
    positionOf(path: readonly (string | number)[], key?: boolean): { line: number; column: number };
}

const compiled = new WeakMap<object, ValidateFunction>();

/**
 * Parses `text` and validates it against `schema`. Throws a `KvmodError` with `code` listing every
 * problem as `file:line:col: message` (the syntax errors, else the schema's).
 */
export function parseJsonDocument(text: string, file: string, schema: object, code: string): JsonDocument {
    // A byte-order mark is no part of the JSON (json-text.ts); jsonc-parser would call it an invalid symbol.
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    const errors: ParseError[] = [];
    const tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
    const lineStarts = [0];
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) lineStarts.push(i + 1);
    const at = (offset: number) => {
        let low = 0;
        let high = lineStarts.length - 1;
        while (low < high) {
            const middle = (low + high + 1) >> 1;
            if (lineStarts[middle] <= offset) low = middle;
            else high = middle - 1;
        }
        return { line: low + 1, column: offset - lineStarts[low] + 1 };
    };
    const fail = (problems: JsonProblem[]): never => {
        const lines = problems.map((p) => `${file}:${p.line}:${p.column}: ${p.message}`);
        throw new KvmodError(lines.join('\n'), { code, path: file });
    };
    if (errors.length > 0 || !tree) {
        const problems = errors.map((e) => ({ ...at(e.offset), message: syntaxMessage(e) }));
        fail(
            problems.length > 0
                ? problems
                : [{ line: 1, column: 1, message: 'the file is empty: expected a JSON object' }],
        );
    }
    // JSON keeps the last of a repeated key: the first would be ignored without a word.
    const repeated = repeatedKeys(tree!).map(({ second, first }) => {
        const { line, column } = at(first.offset);
        const key = escapeControls(String(second.value));
        return {
            ...at(second.offset),
            message: `the key '${key}' is given twice in this object, and JSON keeps only the last (first at ${line}:${column})`,
        };
    });
    if (repeated.length > 0) fail(repeated);
    const node = (path: readonly (string | number)[]): JsonNode | undefined =>
        tree ? findNodeAtLocation(tree, [...path]) : undefined;
    const positionOf = (path: readonly (string | number)[], key = false) => {
        const found = node(path);
        return at((key && found?.parent?.type === 'property' ? found.parent.offset : found?.offset) ?? 0);
    };
    const value = JSON.parse(JSON.stringify(nodeValue(tree!)));
    const invalid = schemaErrors(value, schema);
    if (invalid.length > 0) {
        const problems = invalid.map((e) => {
            const { path, key, message } = schemaProblem(e);
            return { ...positionOf(path, key), message };
        });
        fail(problems.sort((a, b) => a.line - b.line || a.column - b.column));
    }
    return { value, positionOf };
}

/**
 * Checks a value that came from elsewhere than JSON text (a `kvmod.config.ts`'s default export) against
 * `schema`. Throws a `KvmodError` with `code` listing every problem as `file: message`, the message naming
 * the property path (`'models.0' must be string`) since there is no JSON text to point into.
 */
export function checkJsonValue(value: unknown, file: string, schema: object, code: string): void {
    const problems = schemaErrors(value, schema).map((e) => `${file}: ${schemaProblem(e).message}`);
    if (problems.length > 0) throw new KvmodError(problems.join('\n'), { code, path: file });
}

function schemaErrors(value: unknown, schema: object): ErrorObject[] {
    let validate = compiled.get(schema);
    if (!validate) {
        validate = new Ajv2020({ allErrors: true, strict: false }).compile(schema);
        compiled.set(schema, validate);
    }
    return validate(value) ? [] : (validate.errors ?? []);
}

/** Reads a file and parses it as `parseJsonDocument` does; an unreadable file is `io.unreadable`. */
export async function readJsonDocument(file: string, schema: object, code: string): Promise<JsonDocument> {
    let text: string;
    try {
        text = await readFile(file, 'utf8');
    } catch (error) {
        const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
        throw new KvmodError(`cannot read ${file}: ${reason}`, { code: 'io.unreadable', path: file });
    }
    return parseJsonDocument(text, file, schema, code);
}

function syntaxMessage(error: ParseError): string {
    const words = printParseErrorCode(error.error)
        .replace(/([a-z])([A-Z])/g, '$1 $2')
        .toLowerCase();
    return `not valid JSON: ${words}`;
}

/** The keys of the tree's objects given a second time, with the first. */
function repeatedKeys(node: JsonNode): { first: JsonNode; second: JsonNode }[] {
    const found: { first: JsonNode; second: JsonNode }[] = [];
    const walk = (current: JsonNode): void => {
        if (current.type === 'object') {
            const seen = new Map<string, JsonNode>();
            for (const property of current.children ?? []) {
                const key = property.children?.[0];
                if (key === undefined) continue;
                const first = seen.get(String(key.value));
                if (first) found.push({ first, second: key });
                else seen.set(String(key.value), key);
            }
        }
        for (const child of current.children ?? []) walk(child);
    };
    walk(node);
    return found;
}

/** The plain value of a parse tree node (jsonc-parser's getNodeValue, without its prototype-less objects). */
function nodeValue(node: JsonNode): unknown {
    switch (node.type) {
        case 'object': {
            const object: Record<string, unknown> = {};
            for (const property of node.children ?? []) {
                const [key, value] = property.children ?? [];
                if (key && value) object[String(key.value)] = nodeValue(value);
            }
            return object;
        }
        case 'array':
            return (node.children ?? []).map(nodeValue);
        default:
            return node.value;
    }
}

/** An ajv error as a sentence, and the path of the value (or the unknown key: `key`) it concerns. */
function schemaProblem(error: ErrorObject): { path: (string | number)[]; key: boolean; message: string } {
    const path = error.instancePath
        .split('/')
        .slice(1)
        .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
        .map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
    const where = path.length === 0 ? 'the file' : `'${escapeControls(path.join('.'))}'`;
    if (error.keyword === 'additionalProperties') {
        const key = String((error.params as { additionalProperty: string }).additionalProperty);
        return { path: [...path, key], key: true, message: `unknown property '${escapeControls(key)}' in ${where}` };
    }
    if (error.keyword === 'enum') {
        const allowed = (error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v));
        return { path, key: false, message: `${where} must be one of ${allowed.join(', ')}` };
    }
    return { path, key: false, message: `${where} ${error.message ?? 'is invalid'}` };
}
