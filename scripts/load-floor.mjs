#!/usr/bin/env node
// `node scripts/load-floor.mjs DATA.json COMMANDS.resp PORT` — the floor of any Node loader that takes its data as
// JSON, for `npm run bench:load`: start Node, read and JSON.parse the data file (then drop it), and write commands
// already encoded as RESP (what redis-cli --pipe replays) to 127.0.0.1:PORT, as deep as the socket takes them, until
// every reply has come back. No model, no check, no rows, no encoding: what kvmod load does beyond this is the price
// of reading a PIDM model, refusing bad data before any write, and making the rows. Every reply must be `+OK`.
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';

const [data, commands, port] = process.argv.slice(2);
let parsed = JSON.parse(readFileSync(data, 'utf8'));
if (typeof parsed !== 'object' || parsed === null) throw new Error(`${data} holds no JSON object`);
parsed = undefined;
const bytes = readFileSync(commands);
// The commands are counted by their array headers (`*N\r\n` at the start of a command): values hold no CRLF + `*`
// at a command boundary that is not one, because every bulk string is skipped by its length.
let expected = 0;
for (let at = 0; at < bytes.length; expected++) {
    let end = bytes.indexOf(13, at);
    const argc = Number(bytes.toString('latin1', at + 1, end));
    at = end + 2;
    for (let i = 0; i < argc; i++) {
        end = bytes.indexOf(13, at);
        at = end + 2 + Number(bytes.toString('latin1', at + 1, end)) + 2;
    }
}
const socket = connect(Number(port), '127.0.0.1');
let replies = 0;
let tail = '';
socket.on('data', (chunk) => {
    const text = tail + chunk.toString('latin1');
    const lines = text.split('\r\n');
    tail = lines.pop();
    for (const line of lines) {
        if (line !== '+OK') throw new Error(`the server answered ${line}`);
        replies++;
    }
    if (replies === expected) socket.end();
});
socket.on('connect', () => socket.write(bytes));
