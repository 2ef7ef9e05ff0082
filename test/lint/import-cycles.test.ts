/**
 * No circle of value imports in src/ (ARCHITECTURE.md: one arrow of dependencies, inside a layer too): such a
 * circle is a module that needs, at run time, one that needs it back, and which of them is loaded first decides
 * what the other sees of it. A type-only import is erased by tsc and closes no circle (Langium's modules and the
 * validators typed by their services name each other so); a lazy `import()` runs after loading and is no edge.
 */
import { describe, expect, test } from '@jest/globals';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from '../cli/run-kvmod.js';

/** The relative modules `text` imports or re-exports (specifiers as written), and whether as values. */
function staticImports(file: string, text: string): { specifier: string; value: boolean }[] {
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
    const imports: { specifier: string; value: boolean }[] = [];
    for (const statement of source.statements) {
        if (ts.isImportDeclaration(statement)) {
            const clause = statement.importClause;
            const value =
                !clause || // a side-effect import
                (!clause.isTypeOnly &&
                    (clause.name !== undefined ||
                        !clause.namedBindings ||
                        ts.isNamespaceImport(clause.namedBindings) ||
                        clause.namedBindings.elements.some((element) => !element.isTypeOnly)));
            imports.push({ specifier: (statement.moduleSpecifier as ts.StringLiteral).text, value });
        } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier) {
            const clause = statement.exportClause;
            const value =
                !statement.isTypeOnly &&
                (!clause || ts.isNamespaceExport(clause) || clause.elements.some((element) => !element.isTypeOnly));
            imports.push({ specifier: (statement.moduleSpecifier as ts.StringLiteral).text, value });
        }
    }
    return imports.filter(({ specifier }) => specifier.startsWith('.'));
}

/**
 * The circles of value imports of `files`: each strongly connected component of more than one module (or a module
 * importing itself), as its sorted list of modules.
 */
function importCircles(files: ReadonlyMap<string, string>): string[][] {
    const edges = new Map<string, string[]>();
    for (const [file, text] of files) {
        edges.set(
            file,
            staticImports(file, text)
                .filter(({ value }) => value)
                .map(({ specifier }) => join(dirname(file), specifier.replace(/\.js$/, '.ts')))
                .filter((target) => files.has(target)),
        );
    }
    // Tarjan's algorithm.
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const circles: string[][] = [];
    const visit = (file: string): void => {
        index.set(file, index.size);
        low.set(file, index.get(file)!);
        stack.push(file);
        onStack.add(file);
        for (const target of edges.get(file)!) {
            if (!index.has(target)) {
                visit(target);
                low.set(file, Math.min(low.get(file)!, low.get(target)!));
            } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
        }
        if (low.get(file) !== index.get(file)) return;
        const component: string[] = [];
        let member: string;
        do {
            member = stack.pop()!;
            onStack.delete(member);
            component.push(member);
        } while (member !== file);
        if (component.length > 1 || edges.get(file)!.includes(file)) circles.push(component.sort());
    };
    for (const file of edges.keys()) if (!index.has(file)) visit(file);
    return circles;
}

function sourceFiles(folder: string): Map<string, string> {
    const root = resolve(REPO_ROOT, folder);
    const files = new Map<string, string>();
    for (const name of readdirSync(root, { recursive: true, encoding: 'utf8' })) {
        const path = join(root, name);
        if (name.endsWith('.ts') && !name.endsWith('.d.ts') && existsSync(path))
            files.set(relative(REPO_ROOT, path), readFileSync(path, 'utf8'));
    }
    return files;
}

describe('import circles', () => {
    test('src/ has no circle of value imports', () => {
        const files = sourceFiles('src');
        expect(files.has('src/runtime/instance-data.ts')).toBe(true);
        expect(importCircles(files)).toEqual([]);
    });

    test('a circle of value imports is found; a type-only import or a lazy import() closes none', () => {
        const circle = new Map([
            ['a.ts', "import { b } from './b.js';\nexport const a = b;\n"],
            ['b.ts', "import { c } from './c.js';\nexport const b = c;\n"],
            ['c.ts', "export { a as c } from './a.js';\n"],
            ['d.ts', "import { a } from './a.js';\nexport const d = a;\n"],
        ]);
        expect(importCircles(circle)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
        for (const closing of [
            "import type { A } from './a.js';\nexport type C = A;\n",
            "import { type A } from './a.js';\nexport type C = A;\n",
            "export type { A } from './a.js';\n",
            "export const c = () => import('./a.js');\n",
        ])
            expect(importCircles(new Map([...circle, ['c.ts', closing]]))).toEqual([]);
        expect(importCircles(new Map([['a.ts', "import './a.js';\n"]]))).toEqual([['a.ts']]);
    });
});
