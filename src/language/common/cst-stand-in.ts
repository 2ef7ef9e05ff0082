/**
 * What every CST stand-in of a batch run answers the same way: where its node is and what it spells. A batch
 * run (the command line) reads a document's CST only for positions and texts, so the batch parser's nodes
 * (batch-cst.ts) and the released syntax tree's (syntax-release.ts) are small objects that compute a node's
 * `end`, `range` and `text` from its offset and length, on the document's text, when asked.
 */
import type { AstNode } from 'langium';
import type { Position, Range } from 'vscode-languageserver-types';

/** The text a stand-in reads, and its positions (the document's `textDocument`, or the batch parser's source). */
export interface StandInText {
    getText(): string;
    positionAt(offset: number): Position;
}

/** A CST node's position and text, without children, container or root (see the file comment). */
export abstract class CstStandIn<S extends StandInText = StandInText> {
    constructor(
        protected readonly source: S,
        readonly astNode: AstNode,
        readonly offset: number,
        readonly length: number,
    ) {}

    get end(): number {
        return this.offset + this.length;
    }

    get range(): Range {
        return { start: this.source.positionAt(this.offset), end: this.source.positionAt(this.end) };
    }

    get text(): string {
        return this.source.getText().substring(this.offset, this.end);
    }

    get hidden(): boolean {
        return false;
    }

    get container(): undefined {
        return undefined;
    }

    get root(): undefined {
        return undefined;
    }
}
