# A real check for the loop's tests, run by the real verifier: reads a `key=value` file and prints
# TAP, one test per key, failing each key whose value is not `ok`, with the value in the message (a
# reworded failure keeps its test but changes the state's identity). awk, because a run then costs
# about 2 ms of CPU where a node script costs 50-100.
# usage: awk -f values.awk FILE   (a missing FILE holds no tests: green, as an empty suite is)
BEGIN {
  file = ARGV[1]
  # Read here rather than by the main loop, so that a missing file is no error.
  ARGV[1] = ""
  print "TAP version 13"
  n = 0
  failed = 0
  while ((getline line < file) > 0) {
    sub(/^[ \t]+/, "", line)
    sub(/[ \t\r]+$/, "", line)
    if (line !~ /^[A-Za-z0-9_]+=/) continue
    n++
    eq = index(line, "=")
    key = substr(line, 1, eq - 1)
    value = substr(line, eq + 1)
    if (value == "ok") {
      print "ok " n " - " key
      continue
    }
    failed++
    gsub(/'/, "''", value)
    print "not ok " n " - " key
    print "  ---"
    print "  location: 'test/values.test.txt'"
    print "  error: 'expected " key " to be ok, got " value "'"
    print "  ..."
  }
  print "1.." n
  exit (failed > 0)
}
