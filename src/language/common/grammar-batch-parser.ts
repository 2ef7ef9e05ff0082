/**
 * A fast parser for batch runs, built at start-up from a language's Langium grammar (the only source of its
 * syntax). Langium's parser interprets the same grammar but builds a CST node, closures and value conversions
 * for every rule call, assignment and token: ~10 objects for a path step `E3.a17`. This one is a Chevrotain
 * `EmbeddedActionsParser` (the library Langium's parser is built on) whose rules are compiled from the grammar's
 * rules, builds no CST, and builds exactly the AST Langium's parser builds: the same types, fields in the same
 * order (`shapeOf`, kvmod-parser.ts), containers, converted values (the language's value converter, asked as
 * Langium asks it, per call site) and references (made by the linker), with a position stand-in as each node's
 * CST node (batch-cst.ts) holding the offsets of the tokens a diagnostic may point at.
 *
 * It only takes text that parses without an error: `parseTokens` answers undefined on the first one, and the
 * caller leaves the text to Langium's parser. A grammar construct it does not interpret (fragments, unordered
 * groups, guards, infix rules) makes the constructor throw, so a grammar change that needs more fails every
 * test that parses instead of silently changing what is accepted.
 */
import { EmbeddedActionsParser, type IOrAlt, type IToken, type TokenType } from 'chevrotain';
import {
    AstUtils,
    GrammarAST,
    GrammarUtils,
    type AstNode,
    type AstReflection,
    type CstNode,
    type Grammar,
    type Linker,
    type ValueConverter,
} from 'langium';
import { KvmodBatchLinker } from './ast-traversal.js';
import { BatchCstNode, KEYWORD_MARK, referenceNode, type BatchSource } from './batch-cst.js';
import { shapeOf } from './kvmod-parser.js';

/** A node under construction: its fields are the AST's. */
export type BatchNode = { -readonly [K in keyof AstNode]: AstNode[K] } & Record<string, unknown>;

/** Operators of one chain of actions (`a and b and …`) past which the text goes to Langium's parser. */
const MAX_CHAIN = 256;

/** Thrown during a parse for what Langium's parser must decide (a chain too long, an assignment it would merge). */
class LeaveToLangium extends Error {}

/** A grammar construct the batch parser does not interpret. */
export class UnsupportedGrammarError extends Error {}

/** What the compiled grammar needs of the language's services. */
export interface GrammarBatchServices {
    reflection: AstReflection;
    converter: ValueConverter;
    linker: Linker;
}

/** One running call of a rule that builds a node. */
class Frame {
    node: BatchNode | undefined = undefined;
    /** Whether `node` was made by this call (and so gets its stand-in here), not returned by an unassigned rule call. */
    own = false;
    finished = false;
    marks: number[] | undefined = undefined;
    /** Whether the node has a child yet (a keyword consumed first is its leading keyword). */
    consumed = false;
    /** The last unassigned keyword, while nothing followed it (the node's trailing keyword). */
    trailing: IToken | undefined = undefined;
    chain = 0;
    start = 0;
    rule!: CompiledRule;

    /** Makes the frame that of a new call (frames are reused by depth: a large model makes millions of calls). */
    reset(start: number, rule: CompiledRule): Frame {
        this.node = undefined;
        this.own = false;
        this.finished = false;
        this.marks = undefined;
        this.consumed = false;
        this.trailing = undefined;
        this.chain = 0;
        this.start = start;
        this.rule = rule;
        return this;
    }
}

/** A grammar rule as compiled: its node's type and how to make one. */
interface CompiledRule {
    type: string;
    create: () => BatchNode;
    shaped: boolean;
}

/** An assignment as the compiled elements apply it. */
interface AssignmentSite {
    feature: string;
    operator: '=' | '+=' | '?=';
    crossRef: boolean;
    code: number;
}

type Compiled = () => void;

export class GrammarBatchParser extends EmbeddedActionsParser {
    private source!: BatchSource;
    private frame: Frame | undefined;
    private readonly frames: Frame[] = [];
    private depth = 0;
    /** The value of the running data type rule, or undefined outside one. */
    private data: string | undefined;
    /** The range of the last data type rule's value (read by its caller right after the call). */
    private lastStart = 0;
    private lastEnd = 0;
    private target: BatchNode | undefined;
    private readonly converter: ValueConverter;
    private readonly linker: Linker;
    private readonly reflection: AstReflection;
    private readonly chevrotainRules = new Map<string, (...args: unknown[]) => unknown>();
    private readonly compiledRules = new Map<GrammarAST.ParserRule, CompiledRule>();
    private readonly entry: () => BatchNode;
    private readonly declarations: () => void;
    private readonly entryRule: GrammarAST.ParserRule;

    constructor(
        grammar: Grammar,
        private readonly tokens: Record<string, TokenType>,
        services: GrammarBatchServices,
        /** The code of a property's marks (batch-cst.ts `BatchGrammar.featureCode`). */
        private readonly featureCode: (feature: string) => number,
    ) {
        super(Object.values(tokens), { recoveryEnabled: false, maxLookahead: 2, skipValidations: true });
        this.converter = services.converter;
        this.linker = services.linker;
        this.reflection = services.reflection;
        const entry = GrammarUtils.getEntryRule(grammar);
        if (!entry) throw new UnsupportedGrammarError(`The grammar ${grammar.name} has no entry rule`);
        this.entryRule = entry;
        const rules = [...GrammarUtils.getAllReachableRules(grammar, false)].filter(GrammarAST.isParserRule);
        for (const rule of rules) {
            if (rule.fragment || rule.parameters.length > 0 || GrammarAST.isInfixRule(rule))
                throw new UnsupportedGrammarError(`The batch parser does not interpret rule ${rule.name}`);
            if (!GrammarUtils.isDataTypeRule(rule)) this.compiledRules.set(rule, this.compileRuleType(rule));
        }
        // Chevrotain needs every rule before any is recorded: each rule calls the others through this map.
        for (const rule of rules) this.chevrotainRules.set(rule.name, this.RULE(rule.name, this.ruleBody(rule, false)));
        this.entry = this.chevrotainRules.get(entry.name) as () => BatchNode;
        this.declarations = this.RULE(`${entry.name}$chunk`, this.ruleBody(entry, true)) as () => void;
        this.performSelfAnalysis();
    }

    /** Parses a lexed text; undefined on the first error (the caller falls back to Langium's parser). */
    parseTokens(tokens: IToken[], source: BatchSource): BatchNode | undefined {
        this.start(tokens, source);
        try {
            const model = this.entry();
            return this.errors.length === 0 && model ? model : undefined;
        } catch (error) {
            if (error instanceof LeaveToLangium) return undefined;
            throw error;
        } finally {
            this.end();
        }
    }

    /** An empty model (the entry rule's node) to which `parseChunk` adds the declarations of each chunk. */
    newModel(): BatchNode {
        return this.compiledRules.get(this.entryRule)!.create();
    }

    /**
     * Parses the lexed tokens of one chunk of a text (whole top-level declarations) into `model`; false on the
     * first error. The tokens' offsets are the whole text's.
     */
    parseChunk(tokens: IToken[], source: BatchSource, model: BatchNode): boolean {
        this.start(tokens, source);
        this.target = model;
        try {
            this.declarations();
            return this.errors.length === 0;
        } catch (error) {
            if (error instanceof LeaveToLangium) return false;
            throw error;
        } finally {
            this.end();
        }
    }

    /** Gives a model parsed in chunks its CST stand-in, from `start` to `end`. */
    finishModel(model: BatchNode, source: BatchSource, start: number, end: number): BatchNode {
        model.$cstNode = new BatchCstNode(source, model, start, end - start, undefined) as never;
        return model;
    }

    private start(tokens: IToken[], source: BatchSource): void {
        this.source = source;
        this.frame = undefined;
        this.depth = 0;
        this.data = undefined;
        this.input = tokens;
    }

    private end(): void {
        // Chevrotain keeps the token vector until the next parse (see parse-guards.ts).
        this.input = [];
        this.source = undefined!;
        this.target = undefined;
        this.frame = undefined;
        this.data = undefined;
    }

    private compileRuleType(rule: GrammarAST.ParserRule): CompiledRule {
        const type = GrammarUtils.getTypeName(rule);
        const shape = shapeOf(type, rule, this.reflection) as (() => BatchNode) | undefined;
        return { type, create: shape ?? (() => ({ $type: type }) as BatchNode), shaped: shape !== undefined };
    }

    /** A rule's Chevrotain implementation; `chunk`: the entry rule adding to `target` (see `parseChunk`). */
    private ruleBody(rule: GrammarAST.ParserRule, chunk: boolean): () => unknown {
        const counters = new Map<string, number>();
        const next = (key: string): number => {
            const index = counters.get(key) ?? 0;
            counters.set(key, index + 1);
            return index;
        };
        const body = this.compile(rule.definition, undefined, next);
        if (GrammarUtils.isDataTypeRule(rule)) {
            return () => {
                if (this.RECORDING_PHASE) {
                    body();
                    return undefined;
                }
                const start = this.LA(1).startOffset;
                const outer = this.data;
                this.data = '';
                body();
                const value = this.data;
                this.data = outer;
                this.lastStart = start;
                this.lastEnd = this.lastTokenEnd();
                return value;
            };
        }
        const compiled = this.compiledRules.get(rule)!;
        const step = this.stepAssignment(rule);
        if (step && !chunk) return this.stepRule(compiled, step, next);
        return () => {
            if (this.RECORDING_PHASE) {
                body();
                return undefined;
            }
            const outer = this.frame;
            const outerData = this.data;
            const frame = (this.frames[this.depth] ??= new Frame()).reset(this.LA(1).startOffset, compiled);
            this.depth++;
            if (chunk) {
                frame.node = this.target;
                frame.own = true;
                frame.finished = true;
            }
            this.frame = frame;
            this.data = undefined;
            body();
            this.depth--;
            this.frame = outer;
            this.data = outerData;
            if (chunk) return undefined;
            let node = frame.node;
            if (!node) {
                node = frame.node = compiled.create();
                frame.own = true;
            }
            if (frame.own && !frame.finished) this.finish(frame);
            return node;
        };
    }

    /**
     * A rule that is one cross-reference (`Segment: element=[PathElement:Name]`) with the batch linker: the node's
     * CST stand-in is its reference (`BatchStepNode`), one object for both.
     */
    private stepAssignment(rule: GrammarAST.ParserRule): GrammarAST.Assignment | undefined {
        const definition = rule.definition;
        if (!(this.linker instanceof KvmodBatchLinker)) return undefined;
        if (!GrammarAST.isAssignment(definition) || definition.cardinality || definition.operator !== '=')
            return undefined;
        if (!GrammarAST.isCrossReference(definition.terminal) || definition.terminal.isMulti) return undefined;
        return definition;
    }

    private stepRule(
        compiled: CompiledRule,
        assignment: GrammarAST.Assignment,
        next: (key: string) => number,
    ): () => unknown {
        const crossRef = assignment.terminal as GrammarAST.CrossReference;
        const terminal = GrammarUtils.getCrossReferenceTerminal(crossRef);
        const linker = this.linker as KvmodBatchLinker;
        const feature = assignment.feature;
        const read = this.tokenReader(terminal, next);
        return () => {
            if (this.RECORDING_PHASE) {
                read();
                return undefined;
            }
            const outerData = this.data;
            this.data = undefined;
            const value = read();
            this.data = outerData;
            const node = compiled.create();
            const step = linker.buildStepReference(
                this.source,
                node,
                feature,
                this.lastStart,
                this.lastEnd - this.lastStart,
                value!,
            );
            node.$cstNode = step as never;
            node[feature] = step;
            return node;
        };
    }

    /** Reads one token or data type rule call (a cross-reference's terminal): its converted value, its range in `lastStart`/`lastEnd`. */
    private tokenReader(
        element: GrammarAST.AbstractElement | undefined,
        next: (key: string) => number,
    ): () => string | undefined {
        if (GrammarAST.isKeyword(element)) {
            const type = this.tokenType(element.value);
            const index = next(`consume ${element.value}`);
            return () => this.readToken(this.consume(index, type), element.value);
        }
        if (GrammarAST.isRuleCall(element) && GrammarAST.isTerminalRule(element.rule.ref)) {
            const name = element.rule.ref.name;
            const type = this.tokenType(name);
            const index = next(`consume ${name}`);
            const convert = conversionAt(this.converter, element);
            return () => this.readToken(this.consume(index, type), undefined, convert);
        }
        if (
            GrammarAST.isRuleCall(element) &&
            GrammarAST.isParserRule(element.rule.ref) &&
            GrammarUtils.isDataTypeRule(element.rule.ref)
        ) {
            const called = this.chevrotainRules.get(element.rule.ref.name)!;
            const index = next(`subrule ${element.rule.ref.name}`);
            const convert = conversionAt(this.converter, element);
            return () => {
                const raw = this.subrule(index, called as never) as string;
                return this.RECORDING_PHASE ? undefined : String(convert(raw));
            };
        }
        throw new UnsupportedGrammarError(
            'The batch parser reads a cross-reference only through a keyword, a terminal or a data type rule',
        );
    }

    private readToken(token: IToken, keyword: string | undefined, convert?: Conversion): string | undefined {
        if (this.RECORDING_PHASE) return undefined;
        this.lastStart = token.startOffset;
        this.lastEnd = token.startOffset + token.image.length;
        return keyword !== undefined ? token.image : String(convert!(token.image));
    }

    private tokenType(name: string): TokenType {
        const type = this.tokens[name];
        if (!type) throw new UnsupportedGrammarError(`No token type ${name}`);
        return type;
    }

    /** Compiles a grammar element into a function that parses it within the running rule call. */
    private compile(
        element: GrammarAST.AbstractElement | undefined,
        assignment: AssignmentSite | undefined,
        next: (key: string) => number,
    ): Compiled {
        if (!element) throw new UnsupportedGrammarError('A rule without a body');
        const once = this.compileOnce(element, assignment, next);
        switch (element.cardinality) {
            case '?': {
                const index = next('option');
                return () => void this.option(index, once);
            }
            case '*': {
                const index = next('many');
                return () => this.many(index, once);
            }
            case '+': {
                const index = next('atLeastOne');
                return () => this.atLeastOne(index, once);
            }
            default:
                return once;
        }
    }

    private compileOnce(
        element: GrammarAST.AbstractElement,
        assignment: AssignmentSite | undefined,
        next: (key: string) => number,
    ): Compiled {
        if (GrammarAST.isGroup(element)) {
            if (element.guardCondition)
                throw new UnsupportedGrammarError('The batch parser does not interpret guard conditions');
            const parts = element.elements.map((child) => this.compile(child, assignment, next));
            return () => {
                for (const part of parts) part();
            };
        }
        if (GrammarAST.isAlternatives(element)) {
            const index = next('or');
            const alternatives: IOrAlt<unknown>[] = element.elements.map((child) => ({
                ALT: this.compile(child, assignment, next),
            }));
            return () => void this.or(index, alternatives);
        }
        if (GrammarAST.isAssignment(element)) {
            const crossRef = GrammarAST.isCrossReference(element.terminal);
            if (crossRef && (element.terminal as GrammarAST.CrossReference).isMulti)
                throw new UnsupportedGrammarError('The batch parser does not interpret multi-references');
            const site: AssignmentSite = {
                feature: element.feature,
                operator: element.operator,
                crossRef,
                code: this.featureCode(element.feature),
            };
            const terminal = crossRef
                ? GrammarUtils.getCrossReferenceTerminal(element.terminal as GrammarAST.CrossReference)
                : element.terminal;
            return this.compile(terminal, site, next);
        }
        if (GrammarAST.isKeyword(element)) {
            const type = this.tokenType(element.value);
            const index = next(`consume ${element.value}`);
            return () => {
                const token = this.consume(index, type);
                if (!this.RECORDING_PHASE) this.onToken(token, assignment, true, undefined);
            };
        }
        if (GrammarAST.isRuleCall(element)) {
            const rule = element.rule.ref;
            if (element.arguments.length > 0)
                throw new UnsupportedGrammarError('The batch parser does not interpret rule arguments');
            if (GrammarAST.isTerminalRule(rule)) {
                const type = this.tokenType(rule.name);
                const index = next(`consume ${rule.name}`);
                const convert = conversionAt(this.converter, element);
                return () => {
                    const token = this.consume(index, type);
                    if (!this.RECORDING_PHASE) this.onToken(token, assignment, false, convert);
                };
            }
            if (GrammarAST.isParserRule(rule)) {
                const called = this.chevrotainRules;
                const name = rule.name;
                const index = next(`subrule ${name}`);
                const isData = GrammarUtils.isDataTypeRule(rule);
                const convert = conversionAt(this.converter, element);
                return () => {
                    const result = this.subrule(index, called.get(name) as never);
                    if (!this.RECORDING_PHASE) this.onSubrule(result, assignment, isData, convert);
                };
            }
            throw new UnsupportedGrammarError(`A call of an unknown rule`);
        }
        if (GrammarAST.isAction(element)) {
            const type = GrammarUtils.getTypeName(element);
            const feature = element.feature;
            const operator = element.operator;
            return () => {
                if (!this.RECORDING_PHASE) this.onAction(type, feature, operator);
            };
        }
        throw new UnsupportedGrammarError(`The batch parser does not interpret ${element.$type}`);
    }

    /** A token consumed: part of a data type rule's value, an assignment's value, or an unassigned keyword of the node. */
    private onToken(
        token: IToken,
        assignment: AssignmentSite | undefined,
        keyword: boolean,
        convert: Conversion | undefined,
    ): void {
        // An invisible terminator (pidm-lexer.ts): consumed, but no part of the tree (Langium's `isValidToken`).
        if (token.isInsertedInRecovery) return;
        if (this.data !== undefined) {
            this.data += keyword ? token.image : String(convert!(token.image));
            return;
        }
        const frame = this.frame!;
        frame.trailing = undefined;
        if (assignment) {
            const value = keyword ? token.image : convert!(token.image);
            this.assign(frame, assignment, value, token.startOffset, token.image.length);
        } else if (keyword) {
            // What the lean CST keeps of a node's unassigned keywords (lean-cst.ts): its first child, and its last.
            if (!frame.consumed) mark(frame, KEYWORD_MARK, token.startOffset, token.image.length);
            else frame.trailing = token;
        }
        frame.consumed = true;
    }

    private onSubrule(
        result: unknown,
        assignment: AssignmentSite | undefined,
        isData: boolean,
        convert: Conversion,
    ): void {
        if (this.data !== undefined) {
            if (isData) this.data += String(convert(result as string));
            return;
        }
        const frame = this.frame!;
        frame.trailing = undefined;
        frame.consumed = true;
        if (assignment) {
            if (isData)
                this.assign(
                    frame,
                    assignment,
                    convert(result as string),
                    this.lastStart,
                    this.lastEnd - this.lastStart,
                );
            else this.assign(frame, assignment, result, -1, 0);
            return;
        }
        if (isData || !result || typeof result !== 'object') return;
        // An unassigned rule call: its node becomes this call's (Langium's `assignWithoutOverride`).
        const node = result as BatchNode;
        const own = frame.node ?? (frame.rule.shaped ? frame.rule.create() : undefined);
        if (own) {
            if (frame.marks) throw new LeaveToLangium();
            for (const [key, value] of Object.entries(own)) {
                if (key === '$type' || key === '$cstNode') continue;
                const present = node[key];
                if (present === undefined) node[key] = value;
                else if (Array.isArray(present) && Array.isArray(value)) {
                    value.push(...(present as unknown[]));
                    node[key] = value;
                }
            }
        }
        frame.node = node;
        frame.own = false;
    }

    private onAction(type: string, feature: string | undefined, operator: string | undefined): void {
        const frame = this.frame!;
        if (feature && operator) {
            // The node so far becomes the new node's `left` (Langium's `construct`), whoever made it.
            const previous = frame.node ?? frame.rule.create();
            if (frame.node && frame.own && !frame.finished) this.finish(frame);
            // A chain this long nests its left operands this deep: Langium's parser decides what becomes of it
            // (past a few thousand it runs out of stack, and the parse guards report syntax.too-complex).
            if (++frame.chain > MAX_CHAIN) throw new LeaveToLangium();
            const node = { $type: type } as BatchNode;
            frame.node = node;
            frame.own = true;
            frame.finished = false;
            frame.marks = undefined;
            frame.trailing = undefined;
            frame.consumed = true;
            this.assign(
                frame,
                { feature, operator: operator as AssignmentSite['operator'], crossRef: false, code: -1 },
                previous,
                -1,
                0,
            );
        } else {
            this.nodeOf(frame).$type = type;
        }
    }

    /** The running call's node, made if it has none yet. */
    private nodeOf(frame: Frame): BatchNode {
        if (frame.node) {
            // Langium would add to the node an unassigned rule call returned; its stand-in is made: Langium decides.
            if (!frame.own) throw new LeaveToLangium();
            return frame.node;
        }
        frame.own = true;
        return (frame.node = frame.rule.create());
    }

    /** Assigns a value to the running call's node; a token's range (`length` > 0) is kept for its stand-in. */
    private assign(frame: Frame, site: AssignmentSite, value: unknown, offset: number, length: number): void {
        const node = this.nodeOf(frame);
        const feature = site.feature;
        let item = value;
        if (site.crossRef) {
            item = this.linker.buildReference(
                node as AstNode,
                feature,
                referenceNode(this.source, node as AstNode, offset, length),
                String(value),
            );
        } else if (length > 0 || offset >= 0) {
            mark(frame, site.code, offset, length);
        }
        if (item && typeof item === 'object' && typeof (item as AstNode).$type === 'string') {
            const child = item as BatchNode;
            child.$container = node as AstNode;
            child.$containerProperty = feature;
            if (site.operator === '+=')
                child.$containerIndex = Array.isArray(node[feature]) ? (node[feature] as unknown[]).length : 0;
        }
        switch (site.operator) {
            case '=':
                node[feature] = item;
                break;
            case '?=':
                node[feature] = true;
                break;
            case '+=': {
                const list = node[feature];
                if (Array.isArray(list)) list.push(item);
                else node[feature] = [item];
            }
        }
    }

    /** Gives the running call's node its stand-in: from the call's start to the end of the last token consumed. */
    private finish(frame: Frame): void {
        const node = frame.node!;
        if (frame.trailing) mark(frame, KEYWORD_MARK, frame.trailing.startOffset, frame.trailing.image.length);
        frame.trailing = undefined;
        const end = this.lastTokenEnd();
        node.$cstNode = new BatchCstNode(
            this.source,
            node as AstNode,
            frame.start,
            end - frame.start,
            frame.marks,
        ) as never;
        if (!frame.rule.shaped || node.$type !== frame.rule.type)
            AstUtils.assignMandatoryProperties(this.reflection, node as AstNode);
        frame.finished = true;
    }

    /** The end of the last token consumed (not an inserted `;`). */
    private lastTokenEnd(): number {
        let last = this.LA(0);
        if (last.isInsertedInRecovery) last = this.LA(-1);
        return last.startOffset + last.image.length;
    }
}

function mark(frame: Frame, code: number, offset: number, length: number): void {
    (frame.marks ??= []).push(code, offset, length);
}

/** What the value converter reads of a call site: the grammar element (Langium passes the token's CST node). */
function siteOf(element: GrammarAST.AbstractElement): CstNode {
    return { grammarSource: element } as unknown as CstNode;
}

/** Values a call site keeps converted (its distinct inputs: names repeat across a model). */
const CONVERSIONS_KEPT = 100_000;

/** A call site's conversion: the converter asked as Langium asks it, a primitive answer kept per input. */
type Conversion = (input: string) => unknown;

function conversionAt(converter: ValueConverter, element: GrammarAST.AbstractElement): Conversion {
    const site = siteOf(element);
    const kept = new Map<string, unknown>();
    return (input) => {
        let value = kept.get(input);
        if (value === undefined) {
            value = converter.convert(input, site);
            if (kept.size < CONVERSIONS_KEPT && (value === null || typeof value !== 'object')) kept.set(input, value);
        }
        return value;
    };
}

/**
 * The keywords the entry rule's declarations start with (`entity`, `query`), or undefined if one may start
 * otherwise: where a large text may be cut into chunks.
 */
export function declarationKeywords(grammar: Grammar): string[] | undefined {
    const entry = GrammarUtils.getEntryRule(grammar);
    const words = new Set<string>();
    const first = (element: GrammarAST.AbstractElement | undefined, seen: Set<GrammarAST.AbstractRule>): boolean => {
        if (!element) return false;
        if (GrammarAST.isKeyword(element)) {
            words.add(element.value.toLowerCase());
            return !element.cardinality || element.cardinality === '+';
        }
        if (GrammarAST.isAlternatives(element)) return element.elements.every((child) => first(child, seen));
        if (GrammarAST.isGroup(element)) {
            // A group whose elements may all be absent starts nothing: only the top level repeats.
            for (const child of element.elements) {
                if (GrammarAST.isAction(child)) continue;
                const certain = first(child, seen);
                return certain && (!child.cardinality || child.cardinality === '+');
            }
            return false;
        }
        if (GrammarAST.isAssignment(element)) return first(element.terminal, seen);
        if (
            GrammarAST.isRuleCall(element) &&
            GrammarAST.isParserRule(element.rule.ref) &&
            !seen.has(element.rule.ref)
        ) {
            seen.add(element.rule.ref);
            return first(element.rule.ref.definition, seen);
        }
        return false;
    };
    const definition = entry?.definition;
    if (!definition) return undefined;
    // The entry rule is its declarations repeated: `(entities+=Entity | queries+=Query)*`.
    const repeated =
        GrammarAST.isGroup(definition) && definition.elements.length === 1 ? definition.elements[0] : definition;
    if (repeated.cardinality !== '*') return undefined;
    const alternatives = GrammarAST.isAlternatives(repeated) ? repeated.elements : [repeated];
    return alternatives.every((alternative) => first(alternative, new Set())) ? [...words] : undefined;
}
