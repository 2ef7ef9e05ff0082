#!/bin/bash
# Server-side throughput with redis-benchmark (a C client: the node client is not what is measured here).
# ./bench.sh <engine rs1|core> <port> <N>
# op:    FCALL kv_op 0 update Tag hot label <random>   (N rows copy the label: Q3_booksWithTag rows of the hot tag)
# floor: the same keys written by plain commands: HSET of the entity + N row writes (rs1: FT.ADD … REPLACE; core: FCALL shop_put)
set -e
E=$1; P=$2; N=$3; n=${4:-20000}
cd "$(dirname "$0")"
SETUP_ONLY=1 node bench.mjs $E $P $N >/dev/null
rps() { redis-benchmark -p $P -n $n -c 4 -P 16 -r 1000000 -q "$@" | tr '\r' '\n' | grep -oE '[0-9.]+ requests per second' | tail -1 | cut -d' ' -f1; }
OP=$(rps FCALL kv_op 0 update Tag hot label L__rand_int__)
OPR=$(rps FCALL kv_op 0 update Book b0 rank __rand_int__)
HS=$(rps HSET 'kv:Tag:{hot}' label L__rand_int__ _v 7 name hot)
if [ $E = rs1 ]; then
  IDX=$(redis-cli -p $P FT._LIST 2>/dev/null | grep Q3 || redis-cli -p $P KEYS 'Q3_booksWithTag_*:b0:hot' | head -1 | cut -d: -f1)
  IDX=$(redis-cli -p $P KEYS 'Q3_booksWithTag_*:b0:hot' | head -1 | cut -d: -f1)
  ROW=$(rps FT.ADD $IDX $IDX:b0:hot 1.0 REPLACE FIELDS Q3_booksWithTag_id b0:hot isbn b0 title T0 author A0 rank 0 T_label L__rand_int__ T_name hot)
  ROWR=$(rps FT.ADD $IDX $IDX:b0:hot 1.0 REPLACE FIELDS Q3_booksWithTag_id b0:hot isbn b0 title T0 author A0 rank __rand_int__ T_label L T_name hot)
else
  ROW=$(rps FCALL shop_put 2 Q3_booksWithTag:b0:hot '{Q3_booksWithTag}:rec' Q3_booksWithTag b0 T0 A0 0 L__rand_int__ hot)
  ROWR=$(rps FCALL shop_put 2 Q3_booksWithTag:b0:hot '{Q3_booksWithTag}:rec' Q3_booksWithTag b0 T0 A0 __rand_int__ L hot)
fi
RAW=$(rps HSET Q3row:b0:hot Q3_booksWithTag_id b0:hot isbn b0 title T0 author A0 rank 0 T_label L__rand_int__ T_name hot)
python3 - <<PY
op, opr, hs, row, rowr, raw, N = $OP, $OPR, $HS, $ROW, $ROWR, $RAW, $N
floor = 1 / (1/hs + N/row)
floorr = 1 / (1/hs + 4/rowr)
rawf = 1 / ((N+1)/raw)
print(f"$E renameTag N={N}: keys/op={N+1} op={op:.0f}/s floor(HSET+{N} row writes)={floor:.0f}/s ratio={op/floor:.2f} raw-HSET floor={rawf:.0f}/s ratio={op/rawf:.2f}")
print(f"$E bookRank (4 rows move): keys/op=5 op={opr:.0f}/s floor={floorr:.0f}/s ratio={opr/floorr:.2f}  [hset={hs:.0f}/s row={row:.0f}/s]")
PY
