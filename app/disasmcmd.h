// The disasm command: the instructions of the functions a pattern names, each with its flat and
// cum cost and the source line it came from, as `go tool pprof -disasm` prints them, or as JSON.
#pragma once

namespace symflame::app {

/// args: what follows "disasm" ("PROFILE FUNC_RE ..."). Returns the exit code.
int runDisasmCommand(int argc, char** argv);

} // namespace symflame::app
