#!/bin/bash
# The series patches jump_label.c and static_call_inline.c (patches/): the
# static keys subsystem's own selftest, run unmodified from the base tree,
# must still pass.  It exercises keys in modules (not the lookups the
# patches change, which the KUnit suite kprobes_text_reserved and
# guest:kprobe_text_reserved_after_boot test).  Its script exits 0 on a
# failed second module, so its "ok" line is the observable.  (The static
# call selftest, STATIC_CALL_SELFTEST, runs at boot: a failure there is a
# WARN the console scan fails on.)
# shellcheck source=guest-tests/lib.sh
. "$KP_LIB"

st=$KP_SRC/tools/testing/selftests/static_keys/test_static_keys.sh
[ -f "$st" ] || skip "no $st"
modprobe -q -n test_static_keys || skip "test_static_keys is not built (TEST_STATIC_KEYS)"
out=$(sh "$st" 2>&1)
echo "$out"
grep -qx 'static_keys: ok' <<< "$out" || fail "static keys selftest: $out"
lsmod | grep -q '^test_static_key' && fail "its modules stayed loaded"
pass "static keys selftest: ok"
