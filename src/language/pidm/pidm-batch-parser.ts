/**
 * The batch runs' PIDM parser (the command line: `validate`, `transform`, `generate`, …; never the editor).
 * Langium's parser interprets the grammar rule by rule: every rule call, assignment and token costs it a
 * CST node, closures and value conversions, ~10 objects for a path step `E3.a17` and a third of
 * `kvmod validate`'s time on a large model. This parser is written with Chevrotain (the library Langium's
 * parser is built on, as an `EmbeddedActionsParser` building no CST) from the same tokens (the PIDM lexer
 * and Langium's token vocabulary), and builds exactly the AST Langium's parser builds: the same types,
 * fields in the same order (`shapeOf`, kvmod-parser.ts), containers, converted values and references (made
 * by the linker, as Langium's parser makes them), with a position stand-in as each node's CST node
 * (common/batch-cst.ts) that answers what batch runs and diagnostics read.
 *
 * It only takes text that lexes and parses without an error: on the first lexer or parser error it gives
 * up and the text goes to Langium's (lean) parser, so every syntax error, its code, recovery and position
 * stay Langium's. So does text the parse guards stop (parse-guards.ts). test/language/pidm/
 * pidm-batch-parser.test.ts compares both parsers' trees and diagnostics.
 */
import { EmbeddedActionsParser, Lexer, type IOrAlt, type IToken, type TokenType } from 'chevrotain';
import { GrammarAST, ValueConverter, type AstNode, type Grammar, type LangiumCoreServices, type LangiumParser, type Linker, type Module, type ParseResult } from 'langium';
import { BatchCstNode, BatchGrammar, BatchSource, MarkCode, referenceNode } from '../common/batch-cst.js';
import { KvmodBatchLinker } from '../common/ast-traversal.js';
import { KvmodBatchModule, createKvmodParser, shapeOf } from '../common/kvmod-parser.js';
import { MAX_NESTING_DEPTH, findExcessiveNesting } from '../common/parse-guards.js';
import { hasColonParameter, withIdTerminators } from './pidm-lexer.js';

/** A node under construction: its fields are the AST's. */
type Node = { -readonly [K in keyof AstNode]: AstNode[K] } & Record<string, unknown>;

const PLAIN_NAME = ['ID', 'entity', 'query', 'order', 'by', 'asc', 'desc'];
const DATA_TYPE = ['text', 'string', 'int', 'integer', 'long', 'float', 'double', 'decimal', 'real', 'number', 'boolean', 'bool', 'date', 'time', 'datetime', 'timestamp'];
const ATTRIBUTE_NAME = [...PLAIN_NAME, ...DATA_TYPE];
const NAME = [...ATTRIBUTE_NAME, 'id', 'ref', 'unique'];
const COMPARISON = ['=', '!=', '<>', '<', '<=', '>', '>='];

/** The types whose nodes Langium creates with all their fields (`declareNodeShapes`), by the rule that creates them. */
const SHAPED = ['PidmModel', 'Entity', 'Attribute', 'IdAttribute', 'Reference', 'Cardinality', 'Query', 'FromClause', 'Include', 'Path', 'Segment', 'Projection', 'OrderItem', 'Comparison', 'StringValue', 'NumberValue', 'BooleanValue'] as const;
type Shaped = (typeof SHAPED)[number];

/** Operators in one `and` or `or` chain past which the batch parser leaves the text to Langium's parser. */
const MAX_CHAIN = 256;

/** Thrown when a chain is longer than `MAX_CHAIN`: the text goes to Langium's parser. */
class ChainTooLong extends Error {}

/** The recognizer with embedded actions: rules return AST nodes (or tokens for the data-type rules). */
class PidmRecognizer extends EmbeddedActionsParser {
    private source!: BatchSource;
    private readonly shapes: Record<Shaped, () => Node>;

    readonly model: () => Node;
    /** Entities and queries of one chunk of the text, added to `target` (see `parseChunk`). */
    private readonly declarations: () => void;
    private target: Node | undefined;
    private readonly entity: () => Node;
    private readonly member: () => Node;
    private readonly attribute: () => Node;
    private readonly idAttribute: () => Node;
    private readonly reference: () => Node;
    private readonly cardinality: () => Node;
    private readonly query: () => Node;
    private readonly fromClause: () => Node;
    private readonly include: () => Node;
    private readonly projection: () => Node;
    private readonly orderItem: () => Node;
    private readonly path: () => Node;
    private readonly orExpression: () => Node;
    private readonly andExpression: () => Node;
    private readonly unaryExpression: () => Node;
    private readonly primaryExpression: () => Node;
    private readonly comparison: () => Node;
    private readonly value: () => Node;
    private readonly name: () => IToken;
    private readonly attributeName: () => IToken;
    private readonly plainName: () => IToken;
    private readonly dataType: () => IToken;
    private readonly sortDirection: () => IToken;
    private readonly comparisonOperator: () => IToken;

    constructor(
        tokens: Record<string, TokenType>,
        grammar: Grammar,
        services: LangiumCoreServices,
        private readonly linker: Linker,
    ) {
        super(Object.values(tokens), { recoveryEnabled: false, maxLookahead: 2, skipValidations: true });
        const reflection = services.shared.AstReflection;
        const rules = new Map(grammar.rules.filter(GrammarAST.isParserRule).map((rule) => [rule.name, rule]));
        this.shapes = Object.fromEntries(
            SHAPED.map((type) => {
                const create = shapeOf(type, rules.get(type)!, reflection);
                if (!create) throw new Error(`No node shape for ${type}`);
                return [type, create as () => Node];
            }),
        ) as Record<Shaped, () => Node>;
        const t = (name: string): TokenType => {
            const type = tokens[name];
            if (!type) throw new Error(`No PIDM token ${name}`);
            return type;
        };
        const alternatives = (names: string[]): IOrAlt<IToken>[] => names.map((name) => ({ ALT: () => this.CONSUME(t(name)) }));
        const nameAlternatives = alternatives(NAME);
        const attributeNameAlternatives = alternatives(ATTRIBUTE_NAME);
        const plainNameAlternatives = alternatives(PLAIN_NAME);
        const dataTypeAlternatives = alternatives(DATA_TYPE);
        const directionAlternatives = alternatives(['asc', 'desc']);
        const comparisonAlternatives = alternatives(COMPARISON);
        const [NUMBER, STRING] = [t('NUMBER'), t('STRING')];
        const kw = (name: string) => t(name);

        this.name = this.RULE('Name', () => this.OR(nameAlternatives));
        this.attributeName = this.RULE('AttributeName', () => this.OR(attributeNameAlternatives));
        this.plainName = this.RULE('PlainName', () => this.OR(plainNameAlternatives));
        this.dataType = this.RULE('DataType', () => this.OR(dataTypeAlternatives));
        this.sortDirection = this.RULE('SortDirection', () => this.OR(directionAlternatives));
        this.comparisonOperator = this.RULE('ComparisonOperator', () => this.OR(comparisonAlternatives));

        // A model's entities and queries, in any order, pushed into `node` (undefined while recording). Both rules
        // below read them: the whole model, and a chunk of a large text (its declarations go into the model node).
        const declarationsInto = (node: Node | undefined) => {
            const entities = node?.entities as Node[];
            const queries = node?.queries as Node[];
            this.MANY(() => {
                this.OR([
                    { ALT: () => this.push(node, 'entities', entities, this.SUBRULE(this.entity)) },
                    { ALT: () => this.push(node, 'queries', queries, this.SUBRULE(this.query)) },
                ]);
            });
        };

        this.model = this.RULE('PidmModel', () => {
            const node = this.RECORDING_PHASE ? undefined : this.shapes.PidmModel();
            const start = this.LA(1).startOffset;
            declarationsInto(node);
            if (node) this.finish(node, start, undefined);
            return node!;
        });

        this.declarations = this.RULE('Declarations', () => {
            declarationsInto(this.RECORDING_PHASE ? undefined : this.target);
        });

        this.entity = this.RULE('Entity', () => {
            const start = this.LA(1).startOffset;
            this.CONSUME(kw('entity'));
            const name = this.SUBRULE(this.name);
            const node = this.RECORDING_PHASE ? undefined : this.shapes.Entity();
            const members = node?.members as Node[];
            this.CONSUME(kw('{'));
            this.MANY(() => this.push(node, 'members', members, this.SUBRULE(this.member)));
            this.CONSUME(kw('}'));
            if (node) {
                node.name = name.image;
                this.finish(node, start, [MarkCode.name, name.startOffset, tokenLength(name)]);
            }
            return node!;
        });

        this.member = this.RULE('Member', () =>
            this.OR2([
                { ALT: () => this.SUBRULE(this.idAttribute) },
                { ALT: () => this.SUBRULE(this.reference) },
                { ALT: () => this.SUBRULE(this.attribute) },
            ]),
        );

        this.attribute = this.RULE('Attribute', () => {
            const start = this.LA(1).startOffset;
            let name: IToken | undefined;
            let type: IToken | undefined;
            this.OR([
                {
                    ALT: () => {
                        name = this.SUBRULE(this.attributeName);
                        this.OPTION(() => this.CONSUME(kw(':')));
                        type = this.SUBRULE(this.dataType);
                    },
                },
                {
                    ALT: () => {
                        type = this.SUBRULE2(this.dataType);
                        name = this.SUBRULE(this.plainName);
                    },
                },
            ]);
            this.OPTION2(() => this.CONSUME(kw(';')));
            if (this.RECORDING_PHASE) return undefined!;
            const node = this.shapes.Attribute();
            node.name = name!.image;
            node.type = type!.image.toLowerCase();
            const nameMark = [MarkCode.name, name!.startOffset, tokenLength(name!)];
            const typeMark = [MarkCode.type, type!.startOffset, tokenLength(type!)];
            return this.finish(node, start, name!.startOffset < type!.startOffset ? [...nameMark, ...typeMark] : [...typeMark, ...nameMark]);
        });

        this.idAttribute = this.RULE('IdAttribute', () => {
            const start = this.LA(1).startOffset;
            this.CONSUME(kw('id'));
            const name = this.SUBRULE(this.name);
            let type: IToken | undefined;
            let unique: IToken | undefined;
            this.OPTION(() => {
                this.OPTION2(() => this.CONSUME(kw(':')));
                type = this.SUBRULE(this.dataType);
            });
            this.OPTION3(() => (unique = this.CONSUME(kw('unique'))));
            this.OPTION4(() => this.CONSUME(kw(';')));
            if (this.RECORDING_PHASE) return undefined!;
            const node = this.shapes.IdAttribute();
            node.name = name.image;
            const marks = [MarkCode.name, name.startOffset, tokenLength(name)];
            if (type) {
                node.type = type.image.toLowerCase();
                marks.push(MarkCode.type, type.startOffset, tokenLength(type));
            }
            if (unique) {
                node.unique = true;
                marks.push(MarkCode.unique, unique.startOffset, tokenLength(unique));
            }
            return this.finish(node, start, marks);
        });

        this.reference = this.RULE('Reference', () => {
            const start = this.LA(1).startOffset;
            this.CONSUME(kw('ref'));
            const target = this.SUBRULE(this.name);
            const node = this.RECORDING_PHASE ? undefined : this.shapes.Reference();
            if (node) node.target = this.referenceTo(node, 'target', target);
            const cardinality = this.SUBRULE(this.cardinality);
            const name = this.SUBRULE2(this.name);
            this.OPTION(() => this.CONSUME(kw(';')));
            if (!node) return undefined!;
            this.set(node, 'cardinality', cardinality);
            node.name = name.image;
            return this.finish(node, start, [MarkCode.name, name.startOffset, tokenLength(name)]);
        });

        this.cardinality = this.RULE('Cardinality', () => {
            const start = this.LA(1).startOffset;
            const marks: number[] = [];
            const node = this.RECORDING_PHASE ? undefined : this.shapes.Cardinality();
            const mark = (feature: number, token: IToken) => marks.push(feature, token.startOffset, tokenLength(token));
            this.OR([{ ALT: () => this.CONSUME(kw('[')) }, { ALT: () => this.CONSUME(kw('(')) }]);
            this.OR2([
                {
                    ALT: () => {
                        const many = this.CONSUME(kw('*'));
                        if (node) {
                            node.many = true;
                            mark(MarkCode.many, many);
                        }
                    },
                },
                {
                    ALT: () => {
                        const lower = this.CONSUME(NUMBER);
                        if (node) {
                            node.lower = ValueConverter.convertNumber(lower.image);
                            mark(MarkCode.lower, lower);
                        }
                        this.OPTION(() => {
                            this.CONSUME(kw('..'));
                            this.OR3([
                                {
                                    ALT: () => {
                                        const upper = this.CONSUME2(NUMBER);
                                        if (node) {
                                            node.upper = ValueConverter.convertNumber(upper.image);
                                            mark(MarkCode.upper, upper);
                                        }
                                    },
                                },
                                {
                                    ALT: () => {
                                        const many = this.CONSUME2(kw('*'));
                                        if (node) {
                                            node.upperMany = true;
                                            mark(MarkCode.upperMany, many);
                                        }
                                    },
                                },
                            ]);
                        });
                    },
                },
            ]);
            this.OR4([{ ALT: () => this.CONSUME(kw(']')) }, { ALT: () => this.CONSUME(kw(')')) }]);
            return node ? this.finish(node, start, marks) : undefined!;
        });

        this.query = this.RULE('Query', () => {
            const start = this.LA(1).startOffset;
            this.CONSUME(kw('query'));
            const name = this.SUBRULE(this.name);
            const node = this.RECORDING_PHASE ? undefined : this.shapes.Query();
            this.OPTION(() => this.CONSUME(kw(':')));
            this.CONSUME(kw('select'));
            const projections = node?.projections as Node[];
            this.push(node, 'projections', projections, this.SUBRULE(this.projection));
            this.MANY(() => {
                this.CONSUME(kw(','));
                this.push(node, 'projections', projections, this.SUBRULE2(this.projection));
            });
            this.CONSUME(kw('from'));
            const from = this.SUBRULE(this.fromClause);
            if (node) this.set(node, 'from', from);
            const includes = node?.includes as Node[];
            this.OPTION2(() => {
                this.OR([{ ALT: () => this.CONSUME(kw('include')) }, { ALT: () => this.CONSUME(kw('including')) }]);
                this.push(node, 'includes', includes, this.SUBRULE(this.include));
                this.MANY2(() => {
                    this.CONSUME2(kw(','));
                    this.push(node, 'includes', includes, this.SUBRULE2(this.include));
                });
            });
            this.OPTION3(() => {
                this.CONSUME(kw('where'));
                const where = this.SUBRULE(this.orExpression);
                if (node) this.set(node, 'where', where);
            });
            const orderBy = node?.orderBy as Node[];
            this.OPTION4(() => {
                this.CONSUME(kw('order'));
                this.CONSUME(kw('by'));
                this.push(node, 'orderBy', orderBy, this.SUBRULE(this.orderItem));
                this.MANY3(() => {
                    this.CONSUME3(kw(','));
                    this.push(node, 'orderBy', orderBy, this.SUBRULE2(this.orderItem));
                });
            });
            if (!node) return undefined!;
            node.name = name.image;
            return this.finish(node, start, [MarkCode.name, name.startOffset, tokenLength(name)]);
        });

        this.fromClause = this.RULE('FromClause', () => {
            const start = this.LA(1).startOffset;
            const entity = this.SUBRULE(this.name);
            const node = this.RECORDING_PHASE ? undefined : this.shapes.FromClause();
            if (node) node.entity = this.referenceTo(node, 'entity', entity);
            let alias: IToken | undefined;
            this.OPTION(() => {
                this.CONSUME(kw('as'));
                alias = this.SUBRULE2(this.name);
            });
            if (!node) return undefined!;
            if (alias) node.alias = alias.image;
            return this.finish(node, start, alias ? [MarkCode.alias, alias.startOffset, tokenLength(alias)] : undefined);
        });

        const aliased = (type: 'Include' | 'Projection') => () => {
            const start = this.LA(1).startOffset;
            const path = this.SUBRULE(this.path);
            let alias: IToken | undefined;
            this.OPTION(() => {
                this.CONSUME(kw('as'));
                alias = this.SUBRULE(this.name);
            });
            if (this.RECORDING_PHASE) return undefined!;
            const node = this.shapes[type]();
            this.set(node, 'path', path);
            if (alias) node.alias = alias.image;
            return this.finish(node, start, alias ? [MarkCode.alias, alias.startOffset, tokenLength(alias)] : undefined);
        };
        this.include = this.RULE('Include', aliased('Include'));
        this.projection = this.RULE('Projection', aliased('Projection'));

        this.orderItem = this.RULE('OrderItem', () => {
            const start = this.LA(1).startOffset;
            const path = this.SUBRULE(this.path);
            let direction: IToken | undefined;
            this.OPTION(() => (direction = this.SUBRULE(this.sortDirection)));
            if (this.RECORDING_PHASE) return undefined!;
            const node = this.shapes.OrderItem();
            this.set(node, 'path', path);
            if (direction) node.direction = direction.image.toLowerCase();
            return this.finish(node, start, direction ? [MarkCode.direction, direction.startOffset, tokenLength(direction)] : undefined);
        });

        this.path = this.RULE('Path', () => {
            const start = this.LA(1).startOffset;
            const node = this.RECORDING_PHASE ? undefined : this.shapes.Path();
            const segments = node?.segments as Node[];
            this.push(node, 'segments', segments, this.segment(this.SUBRULE(this.name)));
            this.MANY(() => {
                this.CONSUME(kw('.'));
                this.push(node, 'segments', segments, this.segment(this.SUBRULE2(this.name)));
            });
            return node ? this.finish(node, start, undefined) : undefined!;
        });

        const binary = (operatorName: 'or' | 'and', operand: () => () => Node) => () => {
            const start = this.LA(1).startOffset;
            let left = this.SUBRULE(operand());
            let operators = 0;
            this.MANY(() => {
                const operator = this.CONSUME(kw(operatorName));
                const right = this.SUBRULE2(operand());
                if (this.RECORDING_PHASE) return;
                // A chain this long nests its left operands this deep: Langium's parser decides what becomes of it
                // (past a few thousand it runs out of stack, and the parse guards report syntax.too-complex).
                if (++operators > MAX_CHAIN) throw new ChainTooLong();
                const node = { $type: 'BinaryExpression', left, operator: operator.image.toLowerCase(), right, $cstNode: undefined } as unknown as Node;
                this.adopt(node, 'left', left);
                this.adopt(node, 'right', right);
                left = this.finish(node, start, [MarkCode.operator, operator.startOffset, tokenLength(operator)]);
            });
            return left;
        };
        this.orExpression = this.RULE('OrExpression', binary('or', () => this.andExpression));
        this.andExpression = this.RULE('AndExpression', binary('and', () => this.unaryExpression));

        this.unaryExpression = this.RULE('UnaryExpression', () =>
            this.OR([
                {
                    ALT: () => {
                        const start = this.LA(1).startOffset;
                        this.CONSUME(kw('not'));
                        const operand = this.SUBRULE(this.unaryExpression);
                        if (this.RECORDING_PHASE) return undefined!;
                        const node = { $type: 'NotExpression', operand, $cstNode: undefined } as unknown as Node;
                        this.adopt(node, 'operand', operand);
                        return this.finish(node, start, undefined);
                    },
                },
                { ALT: () => this.SUBRULE(this.primaryExpression) },
            ]),
        );

        this.primaryExpression = this.RULE('PrimaryExpression', () =>
            this.OR([
                {
                    ALT: () => {
                        const start = this.LA(1).startOffset;
                        this.CONSUME(kw('('));
                        const inner = this.SUBRULE(this.orExpression);
                        this.CONSUME(kw(')'));
                        if (this.RECORDING_PHASE) return undefined!;
                        const node = { $type: 'GroupExpression', inner, $cstNode: undefined } as unknown as Node;
                        this.adopt(node, 'inner', inner);
                        return this.finish(node, start, undefined);
                    },
                },
                { ALT: () => this.SUBRULE(this.comparison) },
            ]),
        );

        this.comparison = this.RULE('Comparison', () => {
            const start = this.LA(1).startOffset;
            const path = this.SUBRULE(this.path);
            const operator = this.SUBRULE(this.comparisonOperator);
            const value = this.SUBRULE(this.value);
            if (this.RECORDING_PHASE) return undefined!;
            const node = this.shapes.Comparison();
            this.set(node, 'path', path);
            node.operator = operator.image;
            this.set(node, 'value', value);
            return this.finish(node, start, [MarkCode.operator, operator.startOffset, tokenLength(operator)]);
        });

        this.value = this.RULE('Value', () => {
            const start = this.LA(1).startOffset;
            return this.OR([
                {
                    ALT: () => {
                        const token = this.CONSUME(STRING);
                        if (this.RECORDING_PHASE) return undefined!;
                        const node = this.shapes.StringValue();
                        node.value = ValueConverter.convertString(token.image);
                        return this.finish(node, start, [MarkCode.value, token.startOffset, tokenLength(token)]);
                    },
                },
                {
                    ALT: () => {
                        let negative: IToken | undefined;
                        this.OPTION(() => (negative = this.CONSUME(kw('-'))));
                        const token = this.CONSUME(NUMBER);
                        if (this.RECORDING_PHASE) return undefined!;
                        const node = this.shapes.NumberValue();
                        const marks: number[] = [];
                        if (negative) {
                            node.negative = true;
                            marks.push(MarkCode.negative, negative.startOffset, tokenLength(negative));
                        }
                        node.value = ValueConverter.convertNumber(token.image);
                        marks.push(MarkCode.value, token.startOffset, tokenLength(token));
                        return this.finish(node, start, marks);
                    },
                },
                {
                    ALT: () => {
                        const token = this.OR2([{ ALT: () => this.CONSUME(kw('true')) }, { ALT: () => this.CONSUME(kw('false')) }]);
                        if (this.RECORDING_PHASE) return undefined!;
                        const node = this.shapes.BooleanValue();
                        node.value = token.image.toLowerCase();
                        return this.finish(node, start, [MarkCode.value, token.startOffset, tokenLength(token)]);
                    },
                },
            ]);
        });

        this.performSelfAnalysis();
    }

    /** Parses a lexed text; undefined on the first error (the caller falls back to Langium's parser). */
    parseTokens(tokens: IToken[], source: BatchSource): Node | undefined {
        this.source = source;
        this.input = tokens;
        try {
            const model = this.model();
            return this.errors.length === 0 && model ? model : undefined;
        } finally {
            // Chevrotain keeps the token vector until the next parse (see parse-guards.ts).
            this.input = [];
            this.source = undefined!;
        }
    }

    /** An empty model to which `parseChunk` adds the entities and queries of each chunk. */
    newModel(): Node {
        return this.shapes.PidmModel();
    }

    /**
     * Parses the lexed tokens of one chunk of a text (whole entities and queries) into `model`; false on the
     * first error. The tokens' offsets are the whole text's.
     */
    parseChunk(tokens: IToken[], source: BatchSource, model: Node): boolean {
        this.source = source;
        this.target = model;
        this.input = tokens;
        try {
            this.declarations();
            return this.errors.length === 0;
        } finally {
            this.input = [];
            this.source = undefined!;
            this.target = undefined;
        }
    }

    /** Gives a model parsed in chunks its CST stand-in, from `start` to `end`. */
    finishModel(model: Node, source: BatchSource, start: number, end: number): Node {
        model.$cstNode = new BatchCstNode(source, model, start, end - start, undefined) as never;
        return model;
    }

    /** A path step: a `Segment` whose CST node is also its reference's node (as the lean CST's own leaf). */
    private segment(name: IToken): Node {
        if (this.RECORDING_PHASE) return undefined!;
        const node = this.shapes.Segment();
        const refText = ValueConverter.convertID(name.image);
        if (this.linker instanceof KvmodBatchLinker) {
            // One object for both (`BatchStepNode`).
            const step = this.linker.buildStepReference(this.source, node, name.startOffset, tokenLength(name), refText);
            node.$cstNode = step as never;
            node.element = step;
            return node;
        }
        const cst = new BatchCstNode(this.source, node, name.startOffset, tokenLength(name), undefined);
        node.$cstNode = cst as never;
        node.element = this.linker.buildReference(node, 'element', cst as never, refText);
        return node;
    }

    private referenceTo(node: Node, property: string, name: IToken): unknown {
        const at = referenceNode(this.source, node, name.startOffset, tokenLength(name));
        return this.linker.buildReference(node, property, at, ValueConverter.convertID(name.image));
    }

    /** Gives a node its CST stand-in: from `start` to the end of the last token consumed (not an inserted `;`). */
    private finish(node: Node, start: number, marks: number[] | undefined): Node {
        let last = this.LA(0);
        if (last.isInsertedInRecovery) last = this.LA(-1);
        const end = last.startOffset + last.image.length;
        node.$cstNode = new BatchCstNode(this.source, node, start, end - start, marks) as never;
        return node;
    }

    private adopt(parent: Node, property: string, child: Node, index?: number): void {
        child.$container = parent;
        child.$containerProperty = property;
        if (index !== undefined) child.$containerIndex = index;
    }

    private set(parent: Node, property: string, child: Node): void {
        parent[property] = child;
        this.adopt(parent, property, child);
    }

    private push(parent: Node | undefined, property: string, list: Node[] | undefined, child: Node): void {
        if (!parent || !list) return;
        this.adopt(parent, property, child, list.length);
        list.push(child);
    }
}

/** A token's length (the batch lexer tracks start offsets only; an image is the token's text). */
function tokenLength(token: IToken): number {
    return token.image.length;
}

/**
 * The batch runs' PIDM parser: the batch parser first, then `createFallback()` (Langium's guarded, lean PIDM
 * parser): text that lexes and parses without error gets the batch parser's tree, any other text (and a text
 * the nesting guard stops) Langium's.
 *
 * Langium's parser is created the first time something needs it — a text the batch parser gives up on, or any
 * other member of the parser — not with the services: recording and analysing the grammar for it took ~30 ms of
 * every command's start-up, and a model without a syntax error never uses it (nor the PIDM lexer: see
 * `batchTokenTypes`). The answer stands for it (a proxy whose `parse` is the batch parser's and whose other
 * members are the Langium parser's).
 */
export function installPidmBatchParser(services: LangiumCoreServices, createFallback: () => LangiumParser): LangiumParser {
    const grammar = services.Grammar;
    const batchGrammar = new BatchGrammar(grammar);
    const definition = batchTokenTypes(services);
    let batchLexer: Lexer | undefined;
    let recognizer: PidmRecognizer | undefined;
    let fallback: LangiumParser | undefined;
    const langium = (): LangiumParser => (fallback ??= createFallback());
    const parse: LangiumParser['parse'] = (text, options) => langium().parse(text, options);
    const batchParse = ((text: string, options?: Parameters<LangiumParser['parse']>[1]) => {
        if (options?.rule || findExcessiveNesting(text, MAX_NESTING_DEPTH)) return parse(text, options);
        // PIDM's lexer (pidm-lexer.ts) on the same token types, tracking offsets only: the stand-ins need no
        // more, and a token without lines and columns is 40 of ~120 bytes less (4 M tokens in a 10 MB model).
        batchLexer ??= new Lexer(Object.values(definition), { positionTracking: 'onlyOffset', skipValidations: true });
        recognizer ??= new PidmRecognizer(definition, grammar, services, services.references.Linker);
        const starts = chunkStarts(text);
        if (starts.length > 1) {
            const chunked = parseInChunks(text, starts, batchLexer, recognizer, new BatchSource(text, batchGrammar), definition[';']);
            if (chunked === LEXER_ERROR) return parse(text, options);
            if (chunked) {
                const report = services.parser.TokenBuilder.flushLexingReport?.(text) ?? { diagnostics: [] };
                if (report.diagnostics.length > 0) return parse(text, options);
                return { value: chunked, lexerErrors: [], lexerReport: report, parserErrors: [] } as unknown as ParseResult;
            }
        }
        const lexed = batchLexer.tokenize(text);
        const report = services.parser.TokenBuilder.flushLexingReport?.(text) ?? { diagnostics: [] };
        // A lexer error, or what PidmLexer turns into one (`= :name`): Langium's parser reports it.
        if (lexed.errors.length > 0 || report.diagnostics.length > 0 || hasColonParameter(lexed.tokens)) return parse(text, options);
        // No token: Langium's root spans the comments, if any; such a text costs nothing to parse.
        if (lexed.tokens.length === 0) return parse(text, options);
        const tokens = withIdTerminators(lexed.tokens, definition[';'], (name, next) => lineBreakBetween(text, name.startOffset + name.image.length, next.startOffset));
        let model: Node | undefined;
        try {
            model = recognizer.parseTokens(tokens, new BatchSource(text, batchGrammar));
        } catch {
            model = undefined;
        }
        if (!model) return parse(text, options);
        return { value: model, lexerErrors: [], lexerReport: report, parserErrors: [] } as unknown as ParseResult;
    }) as LangiumParser['parse'];
    return new Proxy({} as LangiumParser, {
        get(_, key) {
            if (key === 'parse') return batchParse;
            const parser = langium();
            const value: unknown = Reflect.get(parser, key);
            return typeof value === 'function' ? value.bind(parser) : value;
        },
        set: (_, key, value) => Reflect.set(langium(), key, value),
        has: (_, key) => key === 'parse' || Reflect.has(langium(), key),
    });
}

/**
 * The batch parser's token types: the PIDM lexer's (Langium's token builder makes both from the grammar, in the
 * same order), but objects of their own, so that the batch runs do not build the PIDM lexer (`services.parser.Lexer`,
 * a second Chevrotain lexer with its analysis) for a text without a syntax error: Langium's parser builds it when
 * it is first needed, with the token types it is built on. A token builder that answers more than a plain list of
 * token types gets the lexer's.
 */
function batchTokenTypes(services: LangiumCoreServices): Record<string, TokenType> {
    const built = services.parser.TokenBuilder.buildTokens(services.Grammar, { caseInsensitive: services.LanguageMetaData.caseInsensitive });
    if (!Array.isArray(built)) return services.parser.Lexer.definition as Record<string, TokenType>;
    const types: Record<string, TokenType> = {};
    for (const type of built as TokenType[]) types[type.name] = type;
    return types;
}

/**
 * Text a chunk holds at least: a large model is lexed and parsed a chunk at a time, so that its tokens (4 M
 * objects and their images in a 10 MB model) die young instead of being copied into the old generation and
 * collected there; the AST is the same. (An object so that tests can make chunks small.)
 */
export const CHUNKING = { chars: 64 * 1024 };

/** A line that starts with `entity` or `query`: where a chunk may start (see `chunkStarts`). */
const DECLARATION_LINE = /[\n\r](?:entity|query)(?!\w)/gi;

/**
 * Where the text's chunks start: 0, then at least `CHUNKING.chars` apart, the first character of a line that starts
 * with `entity` or `query`. A token never spans a line break (strings and `//` comments end at one), so lexing
 * the chunks apart gives the whole text's tokens unless a block comment spans a chunk start: a text with
 * `/*` is one chunk. A chunk start that is no declaration's (an attribute named `query` at the start of a line)
 * makes a chunk fail to parse, and the text is parsed whole.
 */
export function chunkStarts(text: string): number[] {
    const starts = [0];
    const chars = CHUNKING.chars;
    if (text.length < 2 * chars || text.includes('/*')) return starts;
    const search = DECLARATION_LINE;
    search.lastIndex = chars;
    for (let match = search.exec(text); match; match = search.exec(text)) {
        const start = match.index + 1;
        starts.push(start);
        search.lastIndex = start + chars;
    }
    return starts;
}

/** `parseInChunks`' answer when a chunk does not lex (the whole text would not either). */
const LEXER_ERROR = Symbol('lexer error');

/**
 * Lexes and parses the text a chunk at a time (`chunkStarts`) into one model: its tree, undefined when a chunk
 * does not parse (the caller parses the text whole), `LEXER_ERROR` when one does not lex or holds an SQL
 * parameter `:name`.
 */
function parseInChunks(
    text: string,
    starts: readonly number[],
    lexer: Lexer,
    recognizer: PidmRecognizer,
    source: BatchSource,
    terminator: TokenType,
): Node | undefined | typeof LEXER_ERROR {
    const model = recognizer.newModel();
    let first = -1;
    let end = -1;
    for (let c = 0; c < starts.length; c++) {
        const base = starts[c];
        const lexed = lexer.tokenize(c + 1 < starts.length ? text.substring(base, starts[c + 1]) : text.substring(base));
        if (lexed.errors.length > 0) return LEXER_ERROR;
        const raw = lexed.tokens;
        if (raw.length === 0) continue;
        for (const token of raw) {
            token.startOffset += base;
            if (token.endOffset !== undefined) token.endOffset += base;
        }
        if (hasColonParameter(raw)) return LEXER_ERROR;
        const tokens = withIdTerminators(raw, terminator, (name, next) => lineBreakBetween(text, name.startOffset + name.image.length, next.startOffset));
        try {
            if (!recognizer.parseChunk(tokens, source, model)) return undefined;
        } catch {
            return undefined;
        }
        if (first < 0) first = tokens[0].startOffset;
        let last = tokens[tokens.length - 1];
        if (last.isInsertedInRecovery) last = tokens[tokens.length - 2];
        end = last.startOffset + last.image.length;
    }
    if (first < 0) return undefined;
    return recognizer.finishModel(model, source, first, end);
}

/** Whether a line ends between two offsets (what a token's line number would tell). */
function lineBreakBetween(text: string, from: number, to: number): boolean {
    for (let i = from; i < to; i++) {
        const c = text.charCodeAt(i);
        if (c === 10 || c === 13) return true;
    }
    return false;
}

/** For PIDM in batch runs: `KvmodBatchModule` (kvmod-parser.ts) with the batch parser in front of Langium's. */
export const PidmBatchModule: Module<
    LangiumCoreServices,
    {
        parser: { LangiumParser: (services: LangiumCoreServices) => LangiumParser };
        references: { Linker: (services: LangiumCoreServices) => Linker };
    }
> = {
    ...KvmodBatchModule,
    parser: {
        LangiumParser: (services) => installPidmBatchParser(services, () => createKvmodParser(services, true)),
    },
};
