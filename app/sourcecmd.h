// The source command: the cost of every source line of the functions a pattern names, as
// `go tool pprof -list` prints it (flat and cum columns), or as JSON.
#pragma once

namespace symflame::app {

/// args: what follows "source" ("PROFILE FUNC_RE ..."). Returns the exit code.
int runSourceCommand(int argc, char** argv);

} // namespace symflame::app
