# A real check for the calc fixture (test/fixtures/loop/calc), run by the real verifier: prints TAP
# for test/calc.test.ts's `mul` test, failing with mul's body quoted unless mul multiplies. sh and
# awk, so a run costs a few ms (the fixture's own tsc and node:test cost seconds).
# usage: sh calc.sh [HOLD]   With HOLD, waits while that file exists: a test holds a verification in
# flight by creating it and lets it go by deleting it (a stop kills the wait like any check).
if [ -n "$1" ]; then
  while [ -e "$1" ]; do sleep 0.01; done
fi
exec awk '
  want {
    want = 0
    if ($0 ~ /^  return .*;$/) body = substr($0, 10, length($0) - 10)
  }
  /^export function mul\(a: number, b: number\): number \{$/ { want = 1 }
  END {
    if (body == "") body = "?"
    print "TAP version 13"
    if (body == "a * b") print "ok 1 - mul multiplies"
    else {
      gsub(/'"'"'/, "'"''"'", body)
      print "not ok 1 - mul multiplies"
      print "  ---"
      print "  location: '"'"'test/calc.test.ts:8'"'"'"
      print "  error: '"'"'expected 6, mul returns " body "'"'"'"
      print "  ..."
    }
    print "1..1"
    exit (body != "a * b")
  }
' src/calc.ts
