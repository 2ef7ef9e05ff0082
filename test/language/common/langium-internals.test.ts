import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { CstNodeBuilder, DefaultLinker, LangiumParser, type AstNode } from 'langium';
import { KvmodBatchLinker } from '../../../src/language/common/ast-traversal.js';
import {
    LANGIUM_INTERNALS_VERSION,
    REFERENCE_FIELDS,
    REFERENCE_GETTERS,
    openCstNodes,
    parserInternals,
    referenceResolverOf,
} from '../../../src/language/common/langium-internals.js';
import { createKvmodCoreServices } from '../../../src/language/kvmod-core-module.js';

/**
 * Every Langium internal kvmod uses (src/language/common/langium-internals.ts), checked on the installed Langium:
 * an upgrade that renames or reshapes one fails here, loudly, instead of quietly disabling what relies on it.
 */
const services = createKvmodCoreServices().Pidm;

describe("Langium's internals behind the adapter", () => {
    it('are those of the Langium version they were read from', () => {
        const installed = JSON.parse(readFileSync('node_modules/langium/package.json', 'utf8')) as { version: string };
        expect(installed.version).toBe(LANGIUM_INTERNALS_VERSION);
    });

    it("the parser's members: CST builder, node stack, Chevrotain wrapper, and the steps kvmod replaces", () => {
        const internals = parserInternals(new LangiumParser(services));
        for (const method of [
            'isRecording',
            'isValidToken',
            'extractHiddenTokens',
            'getAssignment',
            'consume',
            'performSubruleAssignment',
            'construct',
            'rule',
            'startImplementation',
        ] as const) {
            expect([method, typeof internals[method]]).toEqual([method, 'function']);
        }
        expect(internals.consume.length).toBe(3);
        expect(internals.performSubruleAssignment.length).toBe(3);
        expect(internals.startImplementation.length).toBe(3);
        expect(internals.nodeBuilder).toBeInstanceOf(CstNodeBuilder);
        expect(typeof internals.nodeBuilder.addHiddenNodes).toBe('function');
        expect(Array.isArray(internals.stack)).toBe(true);
        expect(internals.unorderedGroups).toBeInstanceOf(Map);
        expect(typeof internals.wrapper.wrapConsume).toBe('function');
        expect(typeof internals.wrapper.recoveryEnabled).toBe('boolean');
        // The parser the services build (after a parse): the state the guards reset.
        const parser = parserInternals(services.parser.LangiumParser);
        services.parser.LangiumParser.parse('entity A { id k }');
        expect('lexerResult' in parser).toBe(true);
        expect(Array.isArray(parser.wrapper.input)).toBe(true);
        expect('rootNode' in parser.nodeBuilder).toBe(true);
        expect(Array.isArray(parser.nodeBuilder.nodeStack)).toBe(true);
    });

    it("the CST builder's stack of open nodes", () => {
        const builder = new CstNodeBuilder();
        const root = builder.buildRootNode('entity A {}');
        expect(openCstNodes(builder)).toEqual([root]);
    });

    it("the linker's reference resolver and the fields of Langium's reference, which the batch references copy", () => {
        const linker = new DefaultLinker(services);
        const resolver = referenceResolverOf(linker);
        expect(typeof resolver.resolveReference).toBe('function');
        const node = { $type: 'Segment' } as AstNode;
        const calls: unknown[][] = [];
        (linker as unknown as { referenceResolver: unknown }).referenceResolver = {
            resolveReference: (...args: unknown[]) => {
                calls.push(args);
                return undefined;
            },
        };
        const reference = linker.buildReference(node, 'element', undefined, 'x');
        expect(Object.keys(reference).sort()).toEqual([...REFERENCE_FIELDS].sort());
        const prototype = Object.getPrototypeOf(reference) as object;
        for (const getter of REFERENCE_GETTERS)
            expect([getter, typeof Object.getOwnPropertyDescriptor(prototype, getter)?.get]).toEqual([
                getter,
                'function',
            ]);
        // syntax-release.ts clears it once a batch document is validated.
        expect(Object.getOwnPropertyDescriptor(reference, '$refNode')?.writable).toBe(true);
        void reference.ref;
        expect(calls).toEqual([[reference, node, 'element']]);
        // The batch runs' reference: the same fields (and the description's, declared up front), the same getters.
        const batch = new KvmodBatchLinker(services).buildReference(node, 'element', undefined, 'x');
        expect(Object.keys(batch)).toEqual(expect.arrayContaining([...REFERENCE_FIELDS]));
        for (const getter of REFERENCE_GETTERS) expect(getter in batch).toBe(true);
    });
});
