#!/usr/bin/env python3
"""Throughput by redis-cli --pipe (REDIS.md's method: the same commands replayed, client cost ~nil).
pipe-bench.py <engine rs1|core> <port> <N> <ops> : kv_op rename of a tag copied in N rows, vs the floors:
  raw   = per op: HSET entity + N x HSET row T_label (the same keys and fields, no index upkeep)
  rows  = per op: HSET entity + N x full row write as the design writes it today (rs1 FT.ADD REPLACE; core FCALL shop_put)
Each variant runs 3 times interleaved; the best time counts. Needs the data of `SETUP_ONLY=1 node bench.mjs`."""
import subprocess, sys, time, os
E, P, N, M = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
S = sys.argv[5] if len(sys.argv) > 5 else 'rename'
def resp(*args):
    out = [b'*%d\r\n' % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b'$%d\r\n%s\r\n' % (len(a), a))
    return b''.join(out)
cli = lambda *a: subprocess.run(['redis-cli', '-p', P, *a], capture_output=True, text=True).stdout.strip()
idx = cli('KEYS', 'Q3_booksWithTag_*:b0:hot').split(':')[0] if E == 'rs1' else None
prefix = idx + ':' if E == 'rs1' else 'Q3_booksWithTag:'
def row(i, label, v):
    key = f'{prefix}b{i}:hot'
    if E == 'rs1':
        return resp('FT.ADD', idx, key, '1.0', 'REPLACE', 'FIELDS', 'Q3_booksWithTag_id', f'b{i}:hot', 'isbn', f'b{i}', 'title', f'T{i}', 'author', f'A{i%7}', 'rank', i, 'T_label', label, 'T_name', 'hot')
    return resp('FCALL', 'shop_put', 2, key, '{Q3_booksWithTag}:rec', 'Q3_booksWithTag', f'b{i}', f'T{i}', f'A{i%7}', i, label, 'hot')
idx6 = cli('KEYS', 'Q6_booksOfAuthor_*:b0').split(':')[0] if E == 'rs1' else None
def rank_rows(k):
    # book b0 (tags hot, a, b): Q3 rows b0:hot, b0:a, b0:b and Q6 row b0 move in the rank index
    out = []
    for t in ('hot', 'a', 'b'):
        key = f'{prefix}b0:{t}'
        if E == 'rs1': out.append(resp('FT.ADD', idx, key, '1.0', 'REPLACE', 'FIELDS', 'Q3_booksWithTag_id', f'b0:{t}', 'isbn', 'b0', 'title', 'T0', 'author', 'A0', 'rank', k, 'T_label', t, 'T_name', t))
        else: out.append(resp('FCALL', 'shop_put', 2, key, '{Q3_booksWithTag}:rec', 'Q3_booksWithTag', 'b0', 'T0', 'A0', k, t, t))
    if E == 'rs1': out.append(resp('FT.ADD', idx6, f'{idx6}:b0', '1.0', 'REPLACE', 'FIELDS', 'Q6_booksOfAuthor_id', 'b0', 'title', 'T0', 'rank', k, 'P_pname', 'Pub', 'author', 'A0'))
    else: out.append(resp('FCALL', 'shop_put', 2, 'Q6_booksOfAuthor:b0', '{Q6_booksOfAuthor}:rec', 'Q6_booksOfAuthor', 'T0', k, 'Pub', 'A0'))
    return b''.join(out)
if S == 'rank':
  N = 4
  files = {
    'kv_op': b''.join(resp('FCALL', 'kv_op', 0, 'update', 'Book', 'b0', 'rank', 5000 + k) for k in range(M)),
    'raw': b''.join(resp('HSET', 'kv:Book:{b0}', 'rank', 5000 + k, '_v', k) + b''.join(resp('HSET', key, 'rank', 5000 + k) for key in [f'{prefix}b0:hot', f'{prefix}b0:a', f'{prefix}b0:b', (idx6 + ':b0') if E == 'rs1' else 'Q6_booksOfAuthor:b0']) for k in range(M)),
    'rows': b''.join(resp('HSET', 'kv:Book:{b0}', 'rank', 5000 + k, '_v', k) + rank_rows(5000 + k) for k in range(M)),
  }
else: files = {
  'kv_op': b''.join(resp('FCALL', 'kv_op', 0, 'update', 'Tag', 'hot', 'label', f'L{k}') for k in range(M)),
  'raw': b''.join(resp('HSET', 'kv:Tag:{hot}', 'label', f'L{k}', '_v', k) + b''.join(resp('HSET', f'{prefix}b{i}:hot', 'T_label', f'L{k}') for i in range(N)) for k in range(M)),
  'rows': b''.join(resp('HSET', 'kv:Tag:{hot}', 'label', f'L{k}', '_v', k) + b''.join(row(i, f'L{k}', k) for i in range(N)) for k in range(M)),
}
if S != 'rank': files = files
best = {}
for rnd in range(3):
    for name, data in files.items():
        t = time.perf_counter()
        r = subprocess.run(['redis-cli', '-p', P, '--pipe'], input=data, capture_output=True)
        dt = time.perf_counter() - t
        if b'errors: 0' not in r.stdout: print(name, r.stdout[-200:]); sys.exit(1)
        best[name] = min(best.get(name, 1e9), dt)
op = M / best['kv_op']
print(f"{E} {S} (N={N} rows, {N+1} keys/op, {M} ops): kv_op {op:.0f} ops/s | raw HSET floor {M/best['raw']:.0f}/s -> ratio {best['raw']/best['kv_op']:.2f} | row-write floor {M/best['rows']:.0f}/s -> ratio {best['rows']/best['kv_op']:.2f}")
