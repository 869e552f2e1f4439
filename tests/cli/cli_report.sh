#!/usr/bin/env bash
# The figures and the report, end to end: every experiments/*.json sweep runs
# (model backend, to keep the test short), every plots/*.gp script turns its
# CSV into a non-empty PNG and PDF, `arlab report` builds one self-contained
# HTML page (every figure embedded) and its Markdown twin, and headless
# Chromium loads the page with every image decoded (a marker script counts
# naturalWidth > 0) and takes a screenshot.
# Exit 77 (skipped, SKIP_RETURN_CODE) when gnuplot or chromium is missing,
# after the checks that do not need it.
# Env: ARLAB (the binary), ARLAB_SRC (the source tree).
set -u
: "${ARLAB:?set ARLAB to the arlab binary}" "${ARLAB_SRC:?set ARLAB_SRC to the source tree}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$ARLAB_SRC/tests/lib_check.sh" # check DESC COMMAND..., $checks, $fail
skip=""

# 1. the figure sweeps, forced onto the model backend (sim-vs-real stays "real"
# and imports the measurements below from ../out/real/, i.e. $tmp/out/real/)
mkdir -p "$tmp/exp/platforms" "$tmp/out/fig" "$tmp/out/real"
cat >"$tmp/out/real/m.csv" <<'EOF'
algo,platform,ranks,bytes,measured_s,inplace
ring,bc-ibm-2x4,8,1000000,0.00021,1
ring,bc-ibm-2x4,8,16000000,0.0019,1
halving-doubling,p3.8xlarge,4,16000000,0.0011,1
EOF
cp "$ARLAB_SRC"/experiments/platforms/*.json "$tmp/exp/platforms/"
ids=()
for f in "$ARLAB_SRC"/experiments/*.json; do
    name=$(basename "$f" .json)
    sed 's/"backend": "auto"/"backend": "model"/' "$f" >"$tmp/exp/$name.json"
    "$ARLAB" sweep "$tmp/exp/$name.json" --out "$tmp/out" -j 2 --quiet
    check "sweep $name runs" test -s "$tmp/out/$name.csv"
    ids+=("$name")
done
check "six figure sweeps" test "${#ids[@]}" -ge 6

# 2. plots: PNG and PDF, non-empty, right signatures
if command -v gnuplot >/dev/null; then
    for id in "${ids[@]}"; do
        gp="$ARLAB_SRC/plots/$id.gp"
        check "plot script for $id exists" test -f "$gp"
        [ -f "$gp" ] || continue
        GNUPLOT_LIB="$ARLAB_SRC/plots" gnuplot -e "data='$tmp/out/$id.csv'; out='$tmp/out/fig/$id'" "$gp" 2>"$tmp/gp.err"
        check "gnuplot $id exits 0 ($(head -c 300 "$tmp/gp.err"))" test $? -eq 0
        check "$id.png larger than 10 KB" test "$(stat -c %s "$tmp/out/fig/$id.png" 2>/dev/null || echo 0)" -gt 10000
        check "$id.png is a PNG" test "$(head -c 8 "$tmp/out/fig/$id.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a"
        check "$id.pdf is a PDF" test "$(head -c 5 "$tmp/out/fig/$id.pdf")" = "%PDF-"
        check "no gnuplot warnings for $id: $(head -c 200 "$tmp/gp.err")" test ! -s "$tmp/gp.err"
    done
else
    skip="gnuplot not installed (apt-get install gnuplot-nox)"
fi

# 3. the report
"$ARLAB" report "$tmp/out" 2>"$tmp/rep.err"
check "arlab report exits 0 ($(cat "$tmp/rep.err"))" test $? -eq 0
html="$tmp/out/report.html"
md="$tmp/out/report.md"
check "HTML written" test -s "$html"
check "Markdown twin written" test -s "$md"
nfig=$(ls "$tmp/out/fig/"*.png 2>/dev/null | wc -l)
check "one embedded <img> per figure ($nfig)" test "$(grep -o '<img ' "$html" | wc -l)" -eq "$nfig"
check "images are data: URIs (self-contained), vector SVG" test "$(grep -o 'src="data:image/svg+xml;base64,' "$html" | wc -l)" -eq "$nfig"
check "no external references" test "$(grep -c 'src="http\|href="http\|<link ' "$html")" -eq 0
check "Markdown references every figure" test "$(grep -c '^!\[.*\](fig/.*\.svg)' "$md")" -eq "$nfig"
for claim in "about 1.6x" "31.0 ms / 58.0 ms" "32-42 %" "21-25 %" "mean at most 1.5" "proposed -13 %"; do
    check "claim table has \"$claim\"" grep -qF "$claim" "$html"
done
check "platform assumptions section" grep -q 'id="platforms"' "$html"
check "measurements imported and counted" grep -qF "3 measured, 42 without measurement" "$html"
check "platform notes included" grep -qF "10 Gbps per node link (paper)" "$html"
check "report names each sweep" test "$(grep -c '<h2 id=' "$html")" -ge 6
"$ARLAB" report "$tmp/nonexistent" 2>"$tmp/rep2.err"
check "missing results directory: exit 4" test $? -eq 4

# 3b. the claims' narrative comes from the sweep files' "report" objects: a bad
# placeholder is one line naming the file, the JSON path and the placeholder; a
# sweep of the user's own (no "report" object) still gets its section
check "claim rendered from the sweep file's template" grep -qF "BLC speed-up over NCCL2, bc-intel-2x4, 2e+08 FP32s" "$md"
mkdir -p "$tmp/badrep"
cp "$tmp/out/bc-fig5.csv" "$tmp/badrep/"
sed 's/{top:%.3g}/{tops:%.3g}/' "$tmp/out/bc-fig5.json" >"$tmp/badrep/bc-fig5.json"
"$ARLAB" report "$tmp/badrep" 2>"$tmp/rep3.err"
check "unknown placeholder: exit 2" test $? -eq 2
check "unknown placeholder: one line naming file, path, placeholder ($(cat "$tmp/rep3.err"))" \
    test "$(wc -l <"$tmp/rep3.err")" -eq 1 -a -n "$(grep -F "badrep/bc-fig5.json: report.claims[0].what: unknown placeholder {tops}" "$tmp/rep3.err")"
check "no report left behind" test ! -e "$tmp/badrep/report.md"
sed 's/{top:%.3g}/{top:%.3n}/' "$ARLAB_SRC/experiments/bc-fig5.json" >"$tmp/exp/badfmt.json"
"$ARLAB" sweep "$tmp/exp/badfmt.json" --out "$tmp/badrep" --quiet 2>"$tmp/rep4.err"
check "bad format in a sweep file: exit 2" test $? -eq 2
check "bad format: one line naming file and path ($(cat "$tmp/rep4.err"))" \
    test "$(wc -l <"$tmp/rep4.err")" -eq 1 -a -n "$(grep -F "badfmt.json: report.claims[0].what: placeholder {top:%.3n}: bad format %.3n" "$tmp/rep4.err")"
mkdir -p "$tmp/mine"
echo '{"name": "mine", "platforms": ["fr-4"], "algos": ["ring"], "sizes": ["1MB"], "backend": "model"}' >"$tmp/exp/mine.json"
"$ARLAB" sweep "$tmp/exp/mine.json" --out "$tmp/mine" --quiet && "$ARLAB" report "$tmp/mine" 2>"$tmp/rep5.err"
check "own sweep without a report object: report built ($(cat "$tmp/rep5.err"))" grep -q '^## mine' "$tmp/mine/report.md"
check "own sweep: no claims table" test "$(grep -c "The paper's claims" "$tmp/mine/report.md")" -eq 0
check "own sweep: a neutral title" grep -qx "# arlab report" "$tmp/mine/report.md"
check "own sweep: a default figure, embedded" grep -q 'src="data:image/svg+xml;base64,' "$tmp/mine/report.html"
check "own sweep: the default figure is an SVG" grep -q "<svg" "$tmp/mine/fig/mine-default.svg"
check "own sweep: winner per platform and size" grep -q "^| fr-4 | 1 MB | ring | " "$tmp/mine/report.md"
"$ARLAB" fit --reference "$ARLAB_SRC/experiments/reference/published.csv" --csv >"$tmp/mine/reference.csv" &&
    "$ARLAB" report "$tmp/mine" 2>/dev/null
check "reference corpus section: published vs predicted" grep -q "^| dgx-h100 | 8 | .* | nvls | NVLS | 480.0 | " "$tmp/mine/report.md"
echo '{not json' >"$tmp/mine/broken.json"
cp "$tmp/mine/mine.csv" "$tmp/mine/broken.csv"
"$ARLAB" report "$tmp/mine" 2>"$tmp/rep6.err"
rc=$?
check "an unreadable sweep is an error: exit 2 ($rc: $(cat "$tmp/rep6.err"))" test $rc -eq 2
check "one line naming the file" grep -q "broken.json: not a readable sweep result (malformed JSON)" "$tmp/rep6.err"

# 4. headless Chromium: every image decoded, and a screenshot
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$browser" ] && [ -s "$html" ]; then
    marker='<script>window.addEventListener("load",function(){var im=document.images,ok=0;for(var i=0;i<im.length;i++)if(im[i].complete\&\&im[i].naturalWidth>0)ok++;var m=document.createElement("div");m.id="imgcheck";m.textContent="IMAGES "+ok+"/"+im.length;document.body.appendChild(m);});</script></body>'
    sed "s|</body>|$marker|" "$html" >"$tmp/check.html"
    dom=$(timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
        --virtual-time-budget=5000 --dump-dom "file://$tmp/check.html" 2>/dev/null)
    got=$(grep -o 'IMAGES [0-9]*/[0-9]*' <<<"$dom")
    check "chromium decoded every image ($got, want $nfig/$nfig)" test "$got" = "IMAGES $nfig/$nfig"
    check "chromium DOM has the title" grep -q "the papers' figures, reproduced" <<<"$dom"
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars \
        --screenshot="$tmp/shot.png" --window-size=1280,2000 "file://$html" >/dev/null 2>&1
    check "screenshot written (> 50 KB)" test "$(stat -c %s "$tmp/shot.png" 2>/dev/null || echo 0)" -gt 50000
    if [ -n "${ARLAB_KEEP_SCREENSHOT:-}" ]; then cp "$tmp/shot.png" "$ARLAB_KEEP_SCREENSHOT"; fi
else
    skip="${skip:+$skip; }chromium not installed (apt-get install chromium): the browser check did not run"
fi

echo "cli_report: $checks checks, $fail failed"
[ "$fail" -eq 0 ] || exit 1
if [ -n "$skip" ]; then
    echo "SKIP: $skip"
    exit 77
fi
exit 0
