# shellcheck shell=bash
# Counted checks for the tests/*.sh scripts that keep their own temporary files (sourced; named lib_* so
# the test globs skip it; tests/lib_cli.sh is the fuller harness with expect_ok/expect_error).
#   check DESC COMMAND...   a failed check (FAIL: DESC on stderr) when COMMAND fails
#   check_rc DESC STATUS    a failed check when STATUS (a command's exit status) is not 0
# $checks counts the checks, $fail the failed ones.
fail=0
checks=0
check() {
    local what=$1
    shift
    "$@"
    check_rc "$what" $?
}
check_rc() {
    checks=$((checks + 1))
    if [[ $2 != 0 ]]; then
        echo "FAIL: $1" >&2
        fail=$((fail + 1))
    fi
}
