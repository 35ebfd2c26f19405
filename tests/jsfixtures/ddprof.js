// Runs a script under @datadog/pprof's wall-time profiler and writes the profile it encodes
// (gzipped pprof). Usage: node ddprof.js NODE_MODULES SCRIPT OUT.pb.gz
// The fixture program runs for about a second; the profile covers 1.5 s from its start.
const fs = require("fs");
const path = require("path");
const [nodeModules, script, out] = process.argv.slice(2);
const pprof = require(path.join(nodeModules, "@datadog/pprof"));
const profiling = pprof.time.profile({ durationMillis: 1500, intervalMicros: 1000 });
require(path.resolve(script));
profiling
    .then((profile) => pprof.encode(profile))
    .then((buf) => fs.writeFileSync(out, buf))
    .catch((e) => {
        console.error(e);
        process.exit(1);
    });
