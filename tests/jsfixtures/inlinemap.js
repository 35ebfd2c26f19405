// Extracts the inline (data: URI) source map of a script into a file, so the oracle can read
// it. Usage: node inlinemap.js SCRIPT OUT_MAP
const fs = require("fs");
const [script, out] = process.argv.slice(2);
const m = /\/\/[#@] sourceMappingURL=data:application\/json;(?:charset=utf-8;)?base64,([A-Za-z0-9+/=]+)\s*$/m.exec(fs.readFileSync(script, "utf8"));
if (!m)
    throw new Error("no inline map in " + script);
fs.writeFileSync(out, Buffer.from(m[1], "base64"));
