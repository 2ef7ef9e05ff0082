#!/usr/bin/env node
// `node scripts/load-floor.mjs DATA.json COMMANDS.resp PORT COUNT` — the floor of any Node loader that takes its data
// as JSON, for `npm run bench:load`: start Node, read and JSON.parse the data file (then drop it), and write COUNT
// commands already encoded as RESP (what redis-cli --pipe replays) to 127.0.0.1:PORT, as deep as the socket takes
// them, until every reply has come back. No model, no check, no rows, no encoding: what kvmod load does beyond this
// is the price of reading a PIDM model, refusing bad data before any write, and making the rows. Every reply must be
// `+OK` (FT.ADD's): replies are counted by their line ends, and any other reply makes the byte count differ.
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';

const [data, commands, port, count] = process.argv.slice(2);
let parsed = JSON.parse(readFileSync(data, 'utf8'));
if (typeof parsed !== 'object' || parsed === null) throw new Error(`${data} holds no JSON object`);
parsed = undefined;
const bytes = readFileSync(commands);
const expected = Number(count);
const socket = connect(Number(port), '127.0.0.1');
let replies = 0;
let received = 0;
socket.on('data', (chunk) => {
    received += chunk.length;
    for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) replies++;
    if (replies < expected) return;
    if (replies > expected || received !== 5 * expected)
        throw new Error(`expected ${expected} +OK replies, received ${replies} replies in ${received} bytes`);
    socket.end();
});
socket.on('connect', () => socket.write(bytes));
