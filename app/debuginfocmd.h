// `symflame debuginfo fetch BUILDID [--kind debuginfo|executable]`: fetches one file from the
// debuginfod servers (or the client cache), verifies it and prints its local path.
// `symflame debuginfo check BIN... [--debug-dir D]... [--search-path D]... [--json]`: what each
// file holds for symbolization and which debug info would be used; exit 0 when every file
// symbolizes with lines, 1 when one does not, 2 when one can't be read.
#pragma once

namespace symflame::app {

int runDebuginfoCommand(int argc, char** argv);

} // namespace symflame::app
