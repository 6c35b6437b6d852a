#!/usr/bin/env bash
# The KCSAN row's verdict (rows.sh): every "BUG: KCSAN:" report of a boot,
# cut out of RUN/console.log into RUN/kcsan.txt.  A report whose title
# ("data-race in A / B": the two accesses' functions) names one of our
# functions fails (a race in our code must be fixed or annotated with its
# reason, data_race()/READ_ONCE(), as upstream does); the others are the
# base kernel's own (an interrupt's race shows the interrupted code of
# ours further down its stack) and only counted.  The
# marker RUN/kcsan-accounted tells report.py to leave the reports out of
# its console scan.  Prints one line: pass|fail <TAB> detail.
# Usage: kcsan.sh RUN OUT   (OUT: the row's build directory)
. "$(dirname "$0")/lib.sh"
KP_STEP=kcsan
run=$1
kout=$2
ours=$run/our-functions
kp_our_functions "$kout" > "$ours"
if [ ! -s "$run/console.log" ]; then
	printf 'fail\tno console log in %s\n' "$run"
	exit 0
fi
if [ ! -s "$ours" ]; then
	printf 'fail\tfound none of our functions in %s\n' "$kout"
	exit 0
fi
# A report runs from the rule of '=' before "BUG: KCSAN:" to the next rule.
tr -d '\r' < "$run/console.log" | sed 's/^\[ *[0-9.]*\] //' | awk '
	/^=+$/ { if (in_r) { print; print ""; in_r = 0 } else rule = 1; next }
	/BUG: KCSAN:/ && rule { in_r = 1; print "==================================================================" }
	in_r { print }
	{ rule = 0 }' > "$run/kcsan.txt"
touch "$run/kcsan-accounted"
read -r total mine first < <(awk -v ours="$ours" '
	BEGIN { while ((getline l < ours) > 0) f[l] = 1 }
	/BUG: KCSAN:/ {
		n++
		t = $0; sub(/.*race in /, "", t)
		k = split(t, fns, " / ")
		for (i = 1; i <= k; i++) {
			fn = fns[i]; sub(/\+.*/, "", fn); gsub(/ /, "", fn)
			if (fn in f) { m++; if (!hit) hit = fn; break }
		}
	}
	END { printf "%d %d %s\n", n, m, hit ? hit : "-" }' "$run/kcsan.txt")
if [ "$mine" != 0 ]; then
	printf 'fail\t%s of %s KCSAN reports name our functions (first: %s; see %s)\n' \
		"$mine" "$total" "$first" "$run/kcsan.txt"
else
	printf 'pass\t%s KCSAN reports, none naming our functions (%s)\n' "$total" "$run/kcsan.txt"
fi
