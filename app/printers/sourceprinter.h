// Printing `symflame source`: pprof's -list layout, or JSON.
#pragma once

#include "app/output.h"
#include "model/analysis/sourcelines.h"
#include "symbolize/locate/sourcefiles.h"

#include <string>
#include <vector>

namespace symflame::app {

struct SourceResult {
    std::string sampleType, unit;
    int64_t total = 0;
    struct Function {
        model::FunctionLines lines;
        size_t file; ///< index into files
        bool javaScript = false; ///< a JavaScript frame: its source through the source map
        /// Why the file found may not be the text measured (symbolize::sourceChangeWarning), or empty.
        std::string warning;
    };
    std::vector<Function> functions;
    std::vector<symbolize::SourceFile> files;
};

/// "Total: ..." then per function and file "ROUTINE ======================== NAME in FILE", the
/// sums "FLAT CUM (flat, cum) P% of Total", and the source lines from the function's start line
/// (else 5 before its first line with a cost) to 5 after its last, each "FLAT CUM LINE:TEXT"
/// with "." for nothing. Without the file: why, then the lines with a cost, by number. A
/// JavaScript function's text says first where it came from: its map's sourcesContent or a file.
void printSourceText(Output& out, const SourceResult& result);
void printSourceJson(Output& out, const SourceResult& result);

} // namespace symflame::app
