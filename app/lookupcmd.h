// `symflame lookup --obj BIN [ADDR...]`: symbolizes addresses of one binary the way
// `llvm-symbolizer --obj BIN` does, taking its input forms and printing its layouts (the LLVM text
// layout with inline frames, and its JSON), so scripts written for llvm-symbolizer work with it.
// Qt-free.
#pragma once

namespace symflame::app {

/// Runs `symflame lookup`; args are the arguments after the command name. Returns 0 when the
/// addresses were looked up (unknown or malformed ones print as llvm-symbolizer prints them),
/// 2 when BIN can't be read or has nothing to symbolize with, 64 for a bad command line.
int runLookupCommand(int argc, char** argv);

} // namespace symflame::app
