#!/bin/sh
# convert_synth_encodings: fplsynth's two encodings of a seed (-v 1: SAMPLE, STACK and
# ENDPOINT records, -v 2: SAMPLE2, STACK2 and ENDPOINT2, what the agent writes) hold the same
# samples, stacks and names, so every output `flyprof convert` makes of them must be byte for
# byte the same. Wall samples answering ticks, requests'
# contexts, overrun weights and several chunks (SAMPLE2's chains restart in each) are all in
# the log. And the SAMPLE2 log must be the smaller one: a synth that wrote SAMPLE records
# under either option would pass the comparison.
# Arguments: FPLSYNTH FLYPROF WORKDIR.
set -eu
synth=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") cli=$2 dir=$3
rm -rf "$dir"
# the logs have the same name in two folders: the name is in their HEADER (its options' file=)
mkdir -p "$dir/1" "$dir/2"
for v in 1 2; do
    (cd "$dir/$v" && "$synth" -o synth.fpl -v $v -n 200k -u 5k -m 2k -t 12 -d 20 -w 0.2 \
        -r 20 -s 7) > "$dir/v$v.out"
    mv "$dir/$v/synth.fpl" "$dir/v$v.fpl"
done
cat "$dir/v1.out" "$dir/v2.out"
grep -q "as SAMPLE records (log version 1)" "$dir/v1.out"
grep -q "as SAMPLE2 records (log version 2)" "$dir/v2.out"
s1=$(wc -c < "$dir/v1.fpl")
s2=$(wc -c < "$dir/v2.fpl")
if [ "$s2" -ge "$s1" ]; then
    echo "FAIL: the SAMPLE2 log ($s2 bytes) is not smaller than the SAMPLE one ($s1)"
    exit 1
fi
fail=0
for spec in "collapsed:" "collapsed:--threads" "collapsed:--kind all --threads" \
            "pb.gz:--kind all" "html:--kind all" "jfr:" "txt:--kind all --threads"; do
    ext=${spec%%:*}
    opts=${spec#*:}
    for v in 1 2; do
        # shellcheck disable=SC2086 # opts are words
        "$cli" convert "$dir/v$v.fpl" -o "$dir/out$v.$ext" $opts 2> "$dir/err$v"
    done
    if cmp -s "$dir/out1.$ext" "$dir/out2.$ext"; then
        echo "same: $ext $opts ($(wc -c < "$dir/out1.$ext") bytes)"
    else
        echo "FAIL: $ext $opts differs between the SAMPLE and the SAMPLE2 log"
        cmp "$dir/out1.$ext" "$dir/out2.$ext" || true
        fail=1
    fi
done
exit $fail
