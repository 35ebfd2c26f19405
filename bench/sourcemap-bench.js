// The peer of symflame-benchsourcemap: @jridgewell/trace-mapping resolving the same positions.
//   node sourcemap-bench.js NODE_MODULES MAP POSITIONS
// Parse = JSON.parse and the TraceMap, with every segment decoded (decodedMappings), as the C++
// side decodes all of them; then originalPositionFor per position; checksum as there.
const fs = require("fs");
const path = require("path");
const [nodeModules, mapFile, positionsFile] = process.argv.slice(2);
const tm = require(path.join(nodeModules, "@jridgewell/trace-mapping"));

const text = fs.readFileSync(positionsFile, "latin1").split("\n");
const lines = new Uint32Array(text.length), columns = new Uint32Array(text.length);
let n = 0;
for (const row of text) {
    if (!row)
        continue;
    const space = row.indexOf(" ");
    lines[n] = Number(row.slice(0, space));
    columns[n] = Number(row.slice(space + 1));
    ++n;
}

let h = 2166136261;
const enc = new TextEncoder();
function addU32(v) {
    for (let i = 0; i < 4; ++i) {
        h ^= (v >>> (8 * i)) & 0xff;
        h = Math.imul(h, 16777619) >>> 0;
    }
}
function addStr(s) {
    for (const c of enc.encode(s)) {
        h ^= c;
        h = Math.imul(h, 16777619) >>> 0;
    }
    addU32(0xffffffff);
}

let t = process.hrtime.bigint();
const json = fs.readFileSync(mapFile, "utf8");
const readTime = Number(process.hrtime.bigint() - t) / 1e9;
t = process.hrtime.bigint();
const map = new tm.TraceMap(JSON.parse(json));
const segments = tm.decodedMappings(map).reduce((a, l) => a + l.length, 0);
const parseTime = Number(process.hrtime.bigint() - t) / 1e9;
t = process.hrtime.bigint();
const needle = { line: 0, column: 0 };
const answers = new Array(n);
for (let i = 0; i < n; ++i) {
    needle.line = lines[i] + 1;
    needle.column = columns[i];
    answers[i] = tm.originalPositionFor(map, needle);
}
const lookupTime = Number(process.hrtime.bigint() - t) / 1e9;
// The checksum, outside the timed part.
let mapped = 0;
for (const p of answers) {
    if (p.source === null) {
        addU32(0xfffffffe);
        continue;
    }
    ++mapped;
    addStr(p.source);
    addU32(p.line - 1);
    addU32(p.column);
    addStr(p.name === null ? "" : p.name);
}
console.log(`trace-mapping: ${json.length} chars, ${segments} segments; ${n} positions, ${mapped} mapped`);
console.log(`trace-mapping: read ${readTime.toFixed(3)} s, parse ${parseTime.toFixed(3)} s, resolve ${lookupTime.toFixed(3)} s, ` +
    `parse+resolve ${(parseTime + lookupTime).toFixed(3)} s, checksum ${h.toString(16).padStart(8, "0")}`);
