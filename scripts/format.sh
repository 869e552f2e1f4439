#!/usr/bin/env bash
# Reformats every tracked C, header, CUDA and C++ source of arlab with the
# committed .clang-format, in place.
#   scripts/format.sh           reformat
#   scripts/format.sh --check   change nothing; list the files that differ and
#                               exit 1 if there are any (0 if none)
# Needs clang-format (14 or newer; CLANG_FORMAT=... picks another binary).
# Not run by CI: the tree is reformatted once, by hand.
set -euo pipefail

cd "$(dirname "$0")/.."
cf=${CLANG_FORMAT:-clang-format}
check=0
case "${1:-}" in
    --check) check=1 ;;
    "") ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    *) echo "format.sh: unknown option '$1' (use --check or nothing)" >&2; exit 2 ;;
esac
command -v "$cf" >/dev/null || { echo "format.sh: $cf not found (apt-get install clang-format)" >&2; exit 2; }
[ -f .clang-format ] || { echo "format.sh: no .clang-format at $(pwd)" >&2; exit 2; }

mapfile -t files < <(git ls-files -- '*.c' '*.h' '*.cu' '*.cpp' '*.hpp')
[ "${#files[@]}" -gt 0 ] || { echo "format.sh: no sources found (not a git checkout?)" >&2; exit 2; }

if [ "$check" = 0 ]; then
    "$cf" -i --style=file "${files[@]}"
    echo "format.sh: formatted ${#files[@]} files"
    exit 0
fi
ndiff=0
for f in "${files[@]}"; do
    if ! "$cf" --style=file "$f" | cmp -s - "$f"; then
        n=$("$cf" --style=file "$f" | diff "$f" - | grep -c '^[<>]' || true)
        echo "$f: $n lines differ"
        ndiff=$((ndiff + 1))
    fi
done
echo "format.sh: $ndiff of ${#files[@]} files differ from .clang-format"
[ "$ndiff" = 0 ]
