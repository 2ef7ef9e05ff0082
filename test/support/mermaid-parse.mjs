// Runs Mermaid's own parser (the `mermaid` package's `parse`) on diagrams, headless in Node with a jsdom
// window. Reads a JSON array of diagram texts on standard input; prints a JSON array with, for each,
// null (accepted) or the parser's message (rejected). A child process, so jest never loads Mermaid itself.
import { JSDOM } from 'jsdom';

const dom = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = dom.window;
globalThis.document = dom.window.document;
globalThis.DOMParser = dom.window.DOMParser;
globalThis.Element = dom.window.Element;
const { default: mermaid } = await import('mermaid');
mermaid.initialize({ startOnLoad: false });

let input = '';
for await (const chunk of process.stdin) input += chunk;
const results = [];
for (const diagram of JSON.parse(input)) {
    try {
        await mermaid.parse(diagram);
        results.push(null);
    } catch (error) {
        results.push(String(error instanceof Error ? error.message : error));
    }
}
process.stdout.write(JSON.stringify(results));
