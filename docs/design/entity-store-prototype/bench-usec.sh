#!/bin/bash
# Server CPU per operation (INFO commandstats usec_per_call), less sensitive to the shared machine's load than rps.
# ./bench-usec.sh <engine> <port> <N> [n]
set -e
E=$1; P=$2; N=$3; n=${4:-5000}
cd "$(dirname "$0")"
SETUP_ONLY=1 node bench.mjs $E $P $N >/dev/null
usec() { redis-cli -p $P CONFIG RESETSTAT >/dev/null; redis-benchmark -p $P -n $n -c 2 -P 16 -r 1000000 -q "$@" >/dev/null; redis-cli -p $P INFO commandstats | grep -i "cmdstat_$(echo $1 | tr A-Z a-z | tr . _ | sed 's/ft_add/ft.add/'):" | grep -oE 'usec_per_call=[0-9.]+' | cut -d= -f2; }
OP=$(usec FCALL kv_op 0 update Tag hot label L__rand_int__)
OPR=$(usec FCALL kv_op 0 update Book b0 rank __rand_int__)
HS=$(usec HSET 'kv:Tag:{hot}' label L__rand_int__ _v 7 name hot)
if [ $E = rs1 ]; then
  IDX=$(redis-cli -p $P KEYS 'Q3_booksWithTag_*:b0:hot' | head -1 | cut -d: -f1)
  ROW=$(usec FT.ADD $IDX $IDX:b0:hot 1.0 REPLACE FIELDS Q3_booksWithTag_id b0:hot isbn b0 title T0 author A0 rank 0 T_label L__rand_int__ T_name hot)
  ROWR=$(usec FT.ADD $IDX $IDX:b0:hot 1.0 REPLACE FIELDS Q3_booksWithTag_id b0:hot isbn b0 title T0 author A0 rank __rand_int__ T_label L T_name hot)
else
  ROW=$(usec FCALL shop_put 2 Q3_booksWithTag:b0:hot '{Q3_booksWithTag}:rec' Q3_booksWithTag b0 T0 A0 0 L__rand_int__ hot)
  ROWR=$(usec FCALL shop_put 2 Q3_booksWithTag:b0:hot '{Q3_booksWithTag}:rec' Q3_booksWithTag b0 T0 A0 __rand_int__ L hot)
fi
RAW=$(usec HSET Q3row:b0:hot Q3_booksWithTag_id b0:hot isbn b0 title T0 author A0 rank 0 T_label L__rand_int__ T_name hot)
python3 - <<PY
op, opr, hs, row, rowr, raw, N = $OP, $OPR, $HS, $ROW, $ROWR, $RAW, $N
f = hs + N*row; fr = hs + 4*rowr; rw = (N+1)*raw
print(f"$E renameTag N={N}: server usec/op={op:.1f}  floor usec (HSET + {N} row writes)={f:.1f}  ratio(floor/op)={f/op:.2f}  raw-HSET floor={rw:.1f} ratio={rw/op:.2f}")
print(f"$E bookRank (4 rows move): server usec/op={opr:.1f} floor={fr:.1f} ratio={fr/opr:.2f}   [usec: hset={hs} row={row} row-move={rowr} raw={raw}]")
PY
