#!/usr/bin/env bash
# Bad input of every kind: one clear line on stderr, a non-zero exit, no crash.
. "$(dirname "$0")/../lib_cli.sh"
d=$T_TMP
printf '{"name":"x","kind":"tree","levels":[{"fanout":2,"bw":"12.5GBs","lat":"1us"}]}' >"$d/badrate.json"
printf '{"name":"x","kind":"tree","levels":[{"fanout":2,"bw":"0GBps","lat":"1us"}]}' >"$d/zerobw.json"
printf '{"name":"x","kind":"tree","levels":[{"fanout":2,"bw":"-5GBps","lat":"1us"}]}' >"$d/negbw.json"
printf '{"name":"x","kind":"tree","levels":[{"fanout":0,"bw":"5GBps","lat":"1us"}]}' >"$d/fan0.json"
printf '{"name":"x","kind":"tree","levels":[' >"$d/trunc.json"
printf '' >"$d/empty.json"
head -c 3000 /dev/urandom >"$d/random.json"

expect_error "malformed rate" 'levels[0].bw: "12.5GBs" is not a rate' -- model --platform "$d/badrate.json"
expect_error "zero bandwidth" 'levels[0].bw' -- model --platform "$d/zerobw.json"
expect_error "negative bandwidth" 'levels[0].bw' -- model --platform "$d/negbw.json"
expect_error "zero fan-out" 'levels[0].fanout' -- plan --algo ring --platform "$d/fan0.json"
expect_error "truncated JSON" 'trunc.json' -- model --platform "$d/trunc.json"
expect_error "empty file" 'empty.json' -- model --platform "$d/empty.json"
expect_error "random bytes" 'random.json' -- model --platform "$d/random.json"
expect_error "missing file" 'nosuch.json' -- model --platform "$d/nosuch.json"
expect_error "unknown platform" 'unknown platform "nosuch"' -- model --platform nosuch
expect_error "unknown algorithm" 'unknown algorithm "nosuch"' -- model --platform blueconnect-12 --algo nosuch
expect_error "unknown algorithm (plan)" 'unknown algorithm "rnig"' -- plan --platform blueconnect-12 --algo rnig
expect_error "unknown parameter" 'unknown parameter "chunk"' -- plan --platform blueconnect-12 --algo pipelined-ring:chunk=4
expect_error "bad parameter value" 'chunks=0' -- plan --platform blueconnect-12 --algo pipelined-ring:chunks=0
expect_error "size -1" '"-1"' -- model --platform blueconnect-12 --size -1
expect_error "size 0" '"0"' -- model --platform blueconnect-12 --size 0
expect_error "size bad unit" '"12XB"' -- model --platform blueconnect-12 --size 12XB
expect_error "size huge" 'size' -- model --platform blueconnect-12 --size 9EB
expect_error "size not multiple of dtype" 'size' -- model --platform blueconnect-12 --size 10B
expect_error "bad dtype" 'dtype' -- model --platform blueconnect-12 --dtype f128
expect_error "bad format" 'format' -- model --platform blueconnect-12 --format xml
expect_error "ranks -1" 'ranks' -- model --platform flat --ranks -1
expect_error "ranks huge" 'ranks' -- model --platform flat --ranks 99999999999
expect_error "ranks vs preset" 'ranks' -- model --platform blueconnect-12 --ranks 13
expect_error "unknown family key" 'nosuchkey' -- model --platform flat:nosuchkey=3
expect_error "bad family bw" 'bw' -- model --platform flat:ranks=4,bw=0Gbps
expect_error "unknown command" 'unknown command' -- frobnicate
expect_error "unknown option" 'unknown option' -- model --platform blueconnect-12 --frob
expect_error "missing value" 'needs a value' -- model --platform
expect_error "two algos to plan" 'one --algo' -- plan --platform blueconnect-12 --algo ring --algo hd
expect_error "hd param on 3 masters" 'impl' -- plan --platform machines:gpus=2+2+2 --algo two-level:impl=hd
expect_error "unequal machines closed form" 'two-level' -- plan --platform machines:gpus=2+3 --algo two-level:impl=bogus

# Exit codes (docs/cli.md "Exit codes and limits"): bad input 2, a documented limit 7.
expect_code() { # expect_code DESC CODE -- ARGS...: exit status CODE, one stderr line
  local desc=$1 want=$2
  shift 3
  "$ARLAB" "$@" >"$T_TMP/out" 2>"$T_TMP/err"
  local rc=$?
  if [ "$rc" -ne "$want" ]; then t_bad "$desc: exit status $rc, want $want: $(head -c 300 "$T_TMP/err")"; return; fi
  if [ "$(wc -l <"$T_TMP/err")" -ne 1 ]; then t_bad "$desc: not one stderr line: $(head -c 300 "$T_TMP/err")"; return; fi
  t_good
}
{
  printf '{"name":"big","kind":"graph","gpus":4096,"nodes":[{"name":"s","type":"switch"}],"links":['
  printf '{"a":"gpu0","b":"s","bw":"1GBps","lat":"1us"}]}'
} >"$d/big.json"
expect_code "malformed rate: bad input" 2 -- model --platform "$d/badrate.json"
expect_code "family ranks beyond 1048576: limit" 7 -- model --platform flat:ranks=2000000
expect_code "fanouts beyond 1048576 ranks: limit" 7 -- model --platform tree:fanouts=2048x1024
expect_code "graph of 4097 nodes: limit" 7 -- model --platform "$d/big.json"
# verbs' own options that need code (the option table's handlers): the message names the option as written
expect_error "sim --sync missing" 'arlab sim: --sync: give dataflow (every rank on its own data, the default) or round (lockstep rounds and phases, the closed forms'"'"' semantics), not ""' -- sim --platform flat:ranks=4 --size 1MB --sync
expect_error "sim --sync=bogus" 'the closed forms'"'"' semantics), not "bogus"' -- sim --platform flat:ranks=4 --size 1MB --sync=bogus
expect_error "sweep -j missing" 'arlab sweep: -j needs a number of processes' -- sweep -j
expect_error "sweep --jobs missing" 'arlab sweep: --jobs needs a number of processes' -- sweep --jobs
expect_error "sweep -jx" 'arlab sweep: -j: "x" is not a count' -- sweep -jx a.json
expect_error "sweep --jobs=999" 'arlab sweep: -j: "999" is out of range (1..256)' -- sweep --jobs=999 a.json
expect_error "sweep -j 0" 'arlab sweep: -j: "0" is out of range (1..256)' -- sweep -j 0 a.json
expect_error "compare --plot missing" 'arlab compare: --plot needs a file (.png or .svg)' -- compare --platform flat:ranks=8 --plot
expect_error "testbed --timeout 0" 'arlab testbed run: --timeout needs seconds in (0, 86400]' -- testbed run --timeout 0
expect_error "testbed --timeout missing" 'arlab testbed up: --timeout needs seconds in (0, 86400]' -- testbed up --timeout
expect_error "testbed --timeout=5 is taken (the next error is the missing platform)" 'arlab testbed run: give --platform P' -- testbed run --timeout=5
t_done
