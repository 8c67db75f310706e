#!/bin/sh
# convert_synth_encodings: fplsynth's encodings of a seed (-v 1: SAMPLE, STACK, ENDPOINT and
# METHOD records; -v 2: SAMPLE2, STACK2 and ENDPOINT2, with METHOD; -v 4: the same with
# METHOD2 and CLASS_NAME, what the agent writes) hold the same samples, stacks, names and
# methods, so every output `flyprof convert` makes of them must be byte for byte the same.
# Wall samples answering ticks, requests' contexts, overrun weights, line tables with lines
# going down and several chunks (SAMPLE2's chains restart in each) are all in the log. And
# each newer log must be the smaller: a synth that wrote the old records under every option
# would pass the comparison.
# Arguments: FPLSYNTH FLYPROF WORKDIR.
set -eu
synth=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") cli=$2 dir=$3
rm -rf "$dir"
# the logs have the same name in several folders: the name is in their HEADER (its options'
# file=)
for v in 1 2 4; do
    mkdir -p "$dir/$v"
    (cd "$dir/$v" && "$synth" -o synth.fpl -v $v -n 200k -u 5k -m 2k -t 12 -d 20 -w 0.2 \
        -r 20 -s 7) > "$dir/v$v.out"
    mv "$dir/$v/synth.fpl" "$dir/v$v.fpl"
done
cat "$dir/v1.out" "$dir/v2.out" "$dir/v4.out"
grep -q "as SAMPLE records (log version 1)" "$dir/v1.out"
grep -q "as SAMPLE2 records (log version 2)" "$dir/v2.out"
grep -q "methods as METHOD records" "$dir/v2.out"
grep -q "as SAMPLE2 records (log version 4)" "$dir/v4.out"
grep -q "methods as METHOD2 " "$dir/v4.out"
s1=$(wc -c < "$dir/v1.fpl")
s2=$(wc -c < "$dir/v2.fpl")
s4=$(wc -c < "$dir/v4.fpl")
if [ "$s2" -ge "$s1" ]; then
    echo "FAIL: the SAMPLE2 log ($s2 bytes) is not smaller than the SAMPLE one ($s1)"
    exit 1
fi
if [ "$s4" -ge "$s2" ]; then
    echo "FAIL: the METHOD2 log ($s4 bytes) is not smaller than the METHOD one ($s2)"
    exit 1
fi
fail=0
for spec in "collapsed:" "collapsed:--threads" "collapsed:--kind all --threads" \
            "pb.gz:--kind all" "html:--kind all" "jfr:" "txt:--kind all --threads"; do
    ext=${spec%%:*}
    opts=${spec#*:}
    for v in 1 2 4; do
        # shellcheck disable=SC2086 # opts are words
        "$cli" convert "$dir/v$v.fpl" -o "$dir/out$v.$ext" $opts 2> "$dir/err$v"
    done
    for v in 2 4; do
        if cmp -s "$dir/out1.$ext" "$dir/out$v.$ext"; then
            echo "same: $ext $opts, -v 1 and -v $v ($(wc -c < "$dir/out1.$ext") bytes)"
        else
            echo "FAIL: $ext $opts differs between the -v 1 and the -v $v log"
            cmp "$dir/out1.$ext" "$dir/out$v.$ext" || true
            fail=1
        fi
    done
done
exit $fail
