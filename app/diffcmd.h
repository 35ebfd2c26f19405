// `symflame diff top|collapse BASE NEW`: two profiles compared, frames matched by function
// (model/analysis/diff), each function's or stack's value on both sides and the change.
#pragma once

namespace symflame::app {

/// args: what follows "diff" ("top BASE NEW ..."). Returns the exit code.
int runDiffCommand(int argc, char** argv);

} // namespace symflame::app
