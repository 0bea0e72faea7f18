// Fails early, in one sentence, on a Node.js older than package.json's `engines.node` (the CLI and the
// build need Node 20.19 or newer). Written for any Node: no modern syntax, CommonJS, no dependency.
'use strict';
var pkg = require('../package.json');
var want = /(\d+)\.(\d+)\.(\d+)/.exec(pkg.engines.node);
var have = /^v?(\d+)\.(\d+)\.(\d+)/.exec(process.version);
function cmp(a, b) {
  for (var i = 1; i <= 3; i++) if (Number(a[i]) !== Number(b[i])) return Number(a[i]) - Number(b[i]);
  return 0;
}
if (!want || !have || cmp(have, want) < 0) {
  process.stderr.write(
    'Fix Until Green needs Node.js ' + pkg.engines.node + ' (20 LTS from 20.19, 22 or 24); this is ' + process.version +
      '. Install a newer Node.js (e.g. with nvm: nvm install 20) and run the command again.\n',
  );
  process.exit(1);
}
