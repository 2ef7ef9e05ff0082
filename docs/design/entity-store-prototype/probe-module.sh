#!/bin/bash
# Q1: do RediSearch 1.2's commands run inside EVAL and inside a Redis Function; what a refusal and a mid-script
# failure leave. ./probe-module.sh <port of a redis-server with redisearch.so loaded> (a scratch server: it FLUSHALLs)
R="redis-cli -p $1"
$R FLUSHALL >/dev/null; $R FT.CREATE idx STOPWORDS 0 SCHEMA name TAG SEPARATOR , rank NUMERIC SORTABLE
echo "--- EVAL FT.ADD / PARTIAL / FT.DEL / FT.ADDHASH / FT.SEARCH"
$R EVAL "return redis.call('FT.ADD','idx',KEYS[1],'1.0','REPLACE','FIELDS','name',ARGV[1],'rank',ARGV[2])" 1 d:1 alice 5
$R EVAL "return redis.call('FT.ADD','idx',KEYS[1],'1.0','REPLACE','PARTIAL','FIELDS','name',ARGV[1])" 1 d:1 bob
$R FT.SEARCH idx "@name:{bob}" NOCONTENT; $R FT.SEARCH idx "@name:{alice}" NOCONTENT; $R HGET d:1 rank
$R EVAL "return redis.call('FT.DEL','idx',KEYS[1],'DD')" 1 d:1; $R EXISTS d:1
$R HSET d:2 name carol rank 7 >/dev/null; $R EVAL "return redis.call('FT.ADDHASH','idx',KEYS[1],'1.0','REPLACE')" 1 d:2
$R EVAL "redis.call('FT.ADD','idx','a:1','1.0','REPLACE','FIELDS','name','x','rank','1'); return redis.call('FT.SEARCH','idx','@name:{x}','NOCONTENT')" 0
echo "--- FUNCTION LOAD + FCALL"
$R -x FUNCTION LOAD REPLACE < "$(dirname "$0")/probe-fn.lua"
$R FCALL p_add 1 f:1 dave 3; $R FCALL p_partial 1 f:1 erin; $R FT.SEARCH idx "@name:{erin}" NOCONTENT; $R FCALL p_del 1 f:1
echo "--- refusal before the first write"; $R SET ref:1 x >/dev/null; $R FCALL p_refuse 2 w:1 ref:1; $R EXISTS w:1
echo "--- FT.ADD failing mid-function (unparseable NUMERIC)"; $R FCALL p_midfail 2 m:1 m:2; $R HGETALL m:1; $R HGETALL m:2; $R FT.SEARCH idx "@name:{n}" NOCONTENT
echo "--- FT.ADD without REPLACE on an indexed doc, mid-function"; $R FT.ADD idx m:3 1.0 FIELDS name n rank 1; $R FCALL p_midfail_dup 2 m:4 m:3; $R HGETALL m:4
