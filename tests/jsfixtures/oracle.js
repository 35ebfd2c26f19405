// Oracle for the source-map tests: @jridgewell/trace-mapping's originalPositionFor on the
// positions given. Usage: node oracle.js NODE_MODULES MAP_FILE MAP_URL POSITIONS_FILE
// MAP_URL is what relative sources are resolved from ("" for none). POSITIONS_FILE has one
// "line column" per line, both 0-based, with " lub" after it to ask with LEAST_UPPER_BOUND
// (default GREATEST_LOWER_BOUND); the answer is one JSON array of {source, line, column, name}
// (line 0-based, null fields when nothing maps) on stdout.
const fs = require("fs");
const path = require("path");
const [nodeModules, mapFile, mapUrl, positionsFile] = process.argv.slice(2);
const tm = require(path.join(nodeModules, "@jridgewell/trace-mapping"));
const map = new tm.AnyMap(fs.readFileSync(mapFile, "utf8"), mapUrl || undefined);
const out = [];
for (const row of fs.readFileSync(positionsFile, "utf8").split("\n")) {
    if (!row.trim())
        continue;
    const [line, column, bias] = row.split(" ");
    const p = tm.originalPositionFor(map, {
        line: Number(line) + 1,
        column: Number(column),
        bias: bias === "lub" ? tm.LEAST_UPPER_BOUND : tm.GREATEST_LOWER_BOUND,
    });
    out.push({ source: p.source, line: p.line === null ? null : p.line - 1, column: p.column, name: p.name });
}
process.stdout.write(JSON.stringify(out));
