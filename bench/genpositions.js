// Writes COUNT generated positions ("line column", 0-based) inside SCRIPT: lines drawn in
// proportion to their length, columns uniform within the line, in random order, with a fixed
// seed (the same file every run).  node genpositions.js SCRIPT COUNT OUT
const fs = require("fs");
const [script, count, out] = process.argv.slice(2);
const lines = fs.readFileSync(script, "utf8").split("\n");
// Columns count UTF-16 code units, as JavaScript string lengths do.
const ends = [];
let total = 0;
for (const l of lines) {
    total += l.length + 1;
    ends.push(total);
}
let seed = 12345;
const rand = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 4294967296;
};
const rows = [];
for (let i = 0; i < Number(count); ++i) {
    const at = Math.floor(rand() * total);
    let lo = 0, hi = ends.length - 1;
    while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (ends[mid] > at) hi = mid; else lo = mid + 1;
    }
    const column = Math.floor(rand() * (lines[lo].length + 1));
    rows.push(lo + " " + column);
}
fs.writeFileSync(out, rows.join("\n") + "\n");
