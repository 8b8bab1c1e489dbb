#!/bin/sh
# A stand-in engine for the fault suite: prints FLOOD_BYTES of per-layer diagnostics (and, by FLOOD_SHAPE,
# hostile output) before the nh-ref token lines, which the reference engine cannot be made to do.
echo "[nh-ref] engine loaded in 0.01 s"
# A leg that hangs with a child of its own (the engine's worker), for harness-death tests.
if [ -n "$FLOOD_HANG_WHEN" ] && [ "$FLOOD_HANG_WHEN" = "$FLOOD_FLAG" ]; then sleep 300 & echo "worker $!"; wait; fi
b="${FLOOD_BYTES:-0}"
case "${FLOOD_SHAPE:-lines}" in
  lines) [ "$b" -gt 0 ] && { yes '[trace] layer 12 |conv|=310.374 |ssm|=3985.8 step 0 diag diag diag diag diag' | head -c "$b"; echo; };;
  longline) [ "$b" -gt 0 ] && tr '\000' 'x' </dev/zero | head -c "$b"; echo;;
  hostile) printf 'bad utf8 \377\376 here\nnul\000in\000line\n'; printf 'progress 10%%\rprogress 50%%\rprogress 100%%\n';;
  badrows) printf '[nh-ref] prompt 0: prompt_tokens=3 generated=4 golden_width=4 compared=4 matched=4 wall=0.0\0001s\n'
    printf '[nh-ref] prompt 1: prompt_tokens=2 generated=4 golden_width=4 compared=4 matched=4 wall=0.0\3771s\n'
    echo "[nh-ref] TOKEN MATCH: 8/8 over 2 prompt(s) (full rows=2, short rows=0, mode=decode)"; echo "[nh-ref] STRICT PASS"; exit 0;;
  crprompt) printf 'loading 10%%\r[nh-ref] prompt 0: prompt_tokens=3 generated=4 golden_width=4 compared=4 matched=4 wall=0.01s\n'
    echo "[nh-ref] prompt 1: prompt_tokens=2 generated=4 golden_width=4 compared=4 matched=4 wall=0.01s"
    echo "[nh-ref] TOKEN MATCH: 8/8 over 2 prompt(s) (full rows=2, short rows=0, mode=decode)"; echo "[nh-ref] STRICT PASS"; exit 0;;
esac
[ -n "$FLOOD_DECODE_S" ] && sleep "$FLOOD_DECODE_S"
echo "[nh-ref] prompt 0: prompt_tokens=3 generated=4 golden_width=4 compared=4 matched=4 wall=0.01s"
echo "[nh-ref] prompt 1: prompt_tokens=2 generated=4 golden_width=4 compared=4 matched=4 wall=0.01s"
echo "[nh-ref] TOKEN MATCH: 8/8 over 2 prompt(s) (full rows=2, short rows=0, mode=decode)"
echo "[nh-ref] STRICT PASS"
