// The viewer: `symflame [FILE]` with Qt's own options (-platform, -style, ...) passed through.
#pragma once

namespace symflame::app {

/// Checks the command line and the display, then runs the GUI. Returns the exit code.
int runGui(int argc, char** argv);

} // namespace symflame::app
