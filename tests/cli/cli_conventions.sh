#!/bin/bash
# Command-line conventions: comma lists for --algo and --platform (an algorithm's or
# platform's own comma-separated parameters stay with it: a comma followed by a bare key=value
# continues the spec before it), and nccl-tests' size range -b MIN -e MAX -f F | -i N (bytes,
# K/M/G = 1024^k). Columns are read by name.
. "$ARLAB_SRC/tests/lib_cli.sh"

if expect_ok "--algo comma list with parameters" -- model --platform blueconnect-12 \
    --algo ring,blueconnect:decomp=3x2x2,impl=ring+hd+ring,flexreduce --size 1MB --format csv; then
  got=$(csv_col "$T_TMP/out" algo | tr '\n' ';')
  t_check "three algorithms, blueconnect's parameters kept ($got)" \
    test "$got" = "ring;blueconnect:decomp=3x2x2,impl=ring+hd+ring;flexreduce;"
fi
if expect_ok "--platform comma list with a family's parameters" -- model \
    --platform tree:fanouts=4x2,bw=40GBps/100Gbps,fr-5 --algo ring --size 1MB --format csv; then
  got=$(csv_col "$T_TMP/out" platform ranks | tr '\t\n' ' ;')
  t_check "two platforms ($got)" test "$got" = "tree:fanouts=4x2,bw=40GBps/100Gbps 8;fr-5 5;"
fi
if expect_ok "the same as repeated flags" -- model --platform blueconnect-12 --algo ring \
    --algo blueconnect:decomp=3x2x2,impl=ring+hd+ring --algo flexreduce --size 1MB --format csv; then
  cp "$T_TMP/out" "$T_TMP/rep.csv"
  "$ARLAB" model --platform blueconnect-12 --algo ring,blueconnect:decomp=3x2x2,impl=ring+hd+ring,flexreduce \
    --size 1MB --format csv >"$T_TMP/com.csv"
  t_check "identical output" cmp -s "$T_TMP/rep.csv" "$T_TMP/com.csv"
fi

# nccl-tests' range: -b 8 -e 1M -f 4 = 8, 32, ..., 524288 bytes (10 sizes); -b 1M -e 3M -i 1M
if expect_ok "-b 8 -e 1M -f 4" -- model --platform fr-5 --algo ring -b 8 -e 1M -f 4 --format csv; then
  got=$(csv_col "$T_TMP/out" bytes | tr '\n' ' ')
  t_check "sizes 8 x 4^k up to 1 MiB ($got)" test "$got" = "8 32 128 512 2048 8192 32768 131072 524288 "
fi
if expect_ok "-b 1M -e 3M -i 1M on sim --model-only" -- sim --platform fr-5 --algo ring -b 1M -e 3M -i 1M --model-only --format csv; then
  got=$(csv_col "$T_TMP/out" bytes | tr '\n' ' ')
  t_check "1, 2, 3 MiB ($got)" test "$got" = "1048576 2097152 3145728 "
fi
expect_ok "-b alone: one size" -- model --platform fr-5 --algo ring -b 64K --format csv &&
  t_check "65536 bytes" test "$(csv_col "$T_TMP/out" bytes)" = 65536
expect_error "-e below -b" "need 1 <= MIN <= MAX" -- model --platform fr-5 -b 8 -e 4
expect_error "-b not a size" '"8x" is not a size in bytes' -- model --platform fr-5 -b 8x
expect_error "-f 1" "is not an integer factor >= 2" -- model --platform fr-5 -b 8 -e 64 -f 1
expect_error "-e without -b" "need -b MIN" -- model --platform fr-5 -e 64
expect_error "too many sizes" "more than 64 sizes" -- model --platform fr-5 -b 1 -e 100 -i 1
expect_error "empty list entry" "empty value after ','" -- model --platform fr-5 --algo ring,
t_done
